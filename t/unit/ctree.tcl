# Tree counters (doc/protocol.md, "5. Tree counters"): counters, objects,
# the atomic increment with its roll-ups in time and up the hierarchy,
# limits, quantization (the thesis's figure 5), reads with filters and
# continuation, active objects and periods, retention on the debugtime
# clock, classic verbs on object keys, hostile input, deep and wide trees,
# and a randomized workload checked against a recomputation in Tcl.

source [file join [srcdir] t support ctree.tcl]

set BADTIME "CLIENT_ERROR bad time or period\r\n"
proc ct_err {args} { join [lmap why $args { string cat "CLIENT_ERROR " $why "\r\n" }] "" }
set HOUR_TYPES {103 104 105 106 107}

start_server {tags {ctree mcds-only}} {
    set fd [mc_connect]

    # ---- counters ----

    test {ctdef: CREATED then EXISTS; ctcounter shows the types finest first} {
        assert_equal [mc_exchange $fd "ctdef 1 107,104,103,106,105\r\nctdef 1 103\r\nctdef 9 107,104:30,103:48\r\n"] "CREATED\r\nEXISTS\r\nCREATED\r\n"
        mc_exchange $fd "ctcounter 1\r\nctcounter 9\r\n"
    } "COUNTER 1 103:0,104:0,105:0,106:0,107:0 aggregate=1 quantize=1 objects=0\r\nEND\r\nCOUNTER 9 103:48,104:30,107:0 aggregate=1 quantize=1 objects=0\r\nEND\r\n"

    test {ctdef options: aggregate=0, quantize, manual coarser types} {
        assert_equal [mc_exchange $fd "ctdef 2 103,104:0:m aggregate=0 quantize=5\r\n"] "CREATED\r\n"
        mc_exchange $fd "ctcounter 2\r\n"
    } "COUNTER 2 103:0,104:0:m aggregate=0 quantize=5 objects=0\r\nEND\r\n"

    test {ctdef: period types that do not nest are refused} {
        mc_exchange $fd "ctdef 3 105,3004\r\nctdef 3 704,105\r\nctdef 3 702,103\r\nctdef 3 103,103\r\nctcounter 3\r\n"
    } "CLIENT_ERROR period types do not nest\r\nCLIENT_ERROR period types do not nest\r\nCLIENT_ERROR period types do not nest\r\n[ct_err {bad period types}]NOT_FOUND\r\n"

    test {ctdef: nesting types are accepted (5 and 15 minutes, hours, quarters, all time)} {
        assert_equal [mc_exchange $fd "ctdef 4 502,1502,103,104,305,106,107\r\n"] "CREATED\r\n"
        mc_exchange $fd "ctcounter 4\r\n"
    } "COUNTER 4 502:0,1502:0,103:0,104:0,305:0,106:0,107:0 aggregate=1 quantize=1 objects=0\r\nEND\r\n"

    test {ctdef: bad period type codes 0, 108, 9999999, 207, 10001 and bad options} {
        set r {}
        foreach line {"ctdef 5 0" "ctdef 5 108" "ctdef 5 9999999" "ctdef 5 207" "ctdef 5 10001" "ctdef 5 100"
                      "ctdef 5 103:x" "ctdef 5 103:1:q" "ctdef 5 103," "ctdef 5 ,103" "ctdef x 103"
                      "ctdef -1 103" "ctdef 4294967296 103" "ctdef 5 103 aggregate=2" "ctdef 5 103 quantize=0"
                      "ctdef 5 103 quantize=-3" "ctdef 5 103 foo=1" "ctdef 5 103 quantize=99999999999999999999"} {
            append r [mc_exchange $fd "$line\r\n"]
        }
        append r [mc_exchange $fd "ctcounter 5\r\nctdef 5\r\n"]
    } [string cat [string repeat [ct_err {bad period types}] 10] [string repeat [ct_err {bad counter}] 3] \
           [ct_err {bad value for aggregate} {bad value for quantize} {bad value for quantize} \
                {unknown option foo} {bad value for quantize}] "NOT_FOUND\r\nERROR\r\n"]

    test {ctdef: more than 16 period types is refused} {
        mc_exchange $fd "ctdef 6 101,201,301,601,1201,102,202,302,602,1202,103,203,303,603,1203,104,105\r\n"
    } [ct_err {bad period types}]

    test {ctcounters lists every counter in id order; ctundef deletes an unused one} {
        assert_equal [mc_exchange $fd "ctdef 4294967295 107\r\nctdef 0 104\r\n"] "CREATED\r\nCREATED\r\n"
        set r [mc_exchange $fd "ctcounters\r\n"]
        assert_match "COUNTER 0 *\r\nCOUNTER 1 *\r\nCOUNTER 2 *\r\nCOUNTER 4 *\r\nCOUNTER 9 *\r\nCOUNTER 4294967295 *\r\nEND\r\n" $r
        mc_exchange $fd "ctundef 4294967295\r\nctundef 4294967295\r\nctundef 0 noreply\r\nctcounter 0\r\nctundef x\r\nctundef 1 2\r\n"
    } "DELETED\r\nNOT_FOUND\r\nNOT_FOUND\r\n[ct_err {bad counter} {too many tokens}]"

    test {ctcounters pages: count=, MORE <last id>, after= resumes; bad options refused} {
        set r [mc_exchange $fd "ctcounters count=2\r\n"]
        assert_match "COUNTER 1 *\r\nCOUNTER 2 *\r\nMORE 2\r\nEND\r\n" $r
        set r [mc_exchange $fd "ctcounters count=2 after=2\r\n"]
        assert_match "COUNTER 4 *\r\nCOUNTER 9 *\r\nEND\r\n" $r
        set r [mc_exchange $fd "ctcounters after=3 count=1\r\n"]
        assert_match "COUNTER 4 *\r\nMORE 4\r\nEND\r\n" $r
        list [mc_exchange $fd "ctcounters after=9\r\n"] \
            [mc_exchange $fd "ctcounters count=0\r\nctcounters count=10001\r\nctcounters after=x\r\nctcounters after=4294967296\r\nctcounters x=1\r\nctcounters count=1 after=1 more\r\n"]
    } [list "END\r\n" [string cat "CLIENT_ERROR count must be 1..10000\r\n" "CLIENT_ERROR count must be 1..10000\r\n" \
                       "CLIENT_ERROR bad value for after\r\n" "CLIENT_ERROR bad value for after\r\n" \
                       "CLIENT_ERROR unknown option x\r\n" "ERROR\r\n"]]

    # ---- objects ----

    test {ctobj: CREATED, EXISTS, NOT_FOUND for a missing parent; ctinfo} {
        assert_equal [mc_exchange $fd "ctobj o1\r\nctobj o1\r\nctobj o2 parent=nope\r\nctobj o2 parent=o1 quantize=3 limits=1:104:100,1:107:-\r\n"] \
            "CREATED\r\nEXISTS\r\nNOT_FOUND\r\nCREATED\r\n"
        mc_exchange $fd "ctinfo o1\r\nctinfo o2\r\nctinfo nope\r\n"
    } "OBJECT o1 - 0 1 0\r\nEND\r\nOBJECT o2 o1 3 0 0\r\nLIMIT 1 104 100\r\nEND\r\nNOT_FOUND\r\n"

    test {ctobj: limits on unknown counters or types are refused, nothing created} {
        mc_exchange $fd "ctobj o3 limits=99:103:1\r\nctobj o3 limits=1:102:1\r\nctobj o3 limits=1:108:1\r\nctobj o3 limits=1:103\r\nctobj o3 bogus=1\r\nctinfo o3\r\n"
    } "CLIENT_ERROR no such counter\r\nCLIENT_ERROR counter does not store that period type\r\n[ct_err {bad value for limits} {bad value for limits} {unknown option bogus}]NOT_FOUND\r\n"

    test {parent cycles cannot be formed: a parent must exist first, itself included} {
        mc_exchange $fd "ctobj cy parent=cy\r\nctinfo cy\r\nctobj cy\r\nctobj cy parent=cy\r\nctinfo cy\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\nCREATED\r\nEXISTS\r\nOBJECT cy - 0 0 0\r\nEND\r\n"

    test {ctobj on a key holding a cache value: wrong type, the value is kept} {
        mc_set $fd plainkey v
        mc_exchange $fd "ctobj plainkey\r\nctobj x1 parent=plainkey\r\nget plainkey\r\n"
    } "CLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key holds another type of value\r\nVALUE plainkey 0 1\r\nv\r\nEND\r\n"

    test {ctlimits redefines every limit, ctraise raises by an amount} {
        mc_exchange $fd "ctobj l1 limits=1:103:10,1:104:20\r\n"
        assert_equal [mc_exchange $fd "ctraise l1 limits=1:103:5,1:105:7\r\nctinfo l1\r\n"] \
            "STORED\r\nOBJECT l1 - 0 0 0\r\nLIMIT 1 103 15\r\nLIMIT 1 104 20\r\nLIMIT 1 105 7\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctlimits l1 limits=1:106:1 quantize=2\r\nctinfo l1\r\n"] \
            "STORED\r\nOBJECT l1 - 2 0 0\r\nLIMIT 1 106 1\r\nEND\r\n"
        mc_exchange $fd "ctlimits l1\r\nctinfo l1\r\nctraise l1\r\nctraise l1 quantize=1\r\nctraise nope limits=1:103:1\r\nctlimits l1 limits=7:103:1\r\n"
    } "STORED\r\nOBJECT l1 - 2 0 0\r\nEND\r\n[ct_err {ctraise takes limits= only}][ct_err {ctraise takes limits= only}]NOT_FOUND\r\nCLIENT_ERROR no such counter\r\n"

    test {ctchildren: every child, count and MORE for continuation with after=} {
        mc_exchange $fd "ctobj kp\r\nctobj kc1 parent=kp\r\nctobj kc2 parent=kp\r\nctobj kc3 parent=kp\r\n"
        assert_equal [mc_exchange $fd "ctchildren kp\r\n"] "CHILD kc3\r\nCHILD kc2\r\nCHILD kc1\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctchildren kp count=2\r\n"] "CHILD kc3\r\nCHILD kc2\r\nMORE kc2\r\nEND\r\n"
        mc_exchange $fd "ctchildren kp count=2 after=kc2\r\nctchildren kc1\r\nctchildren nope\r\nctchildren kp count=0\r\nctchildren kp after=o1\r\n"
    } "CHILD kc1\r\nEND\r\nEND\r\nNOT_FOUND\r\n[ct_err {count must be 1..10000}]NOT_FOUND\r\n"

    # ---- increments ----

    test {ctincr rolls up through every coarser period and every ancestor} {
        mc_exchange $fd "ctobj r\r\nctobj r.a parent=r\r\nctobj r.a.x parent=r.a\r\nctobj r.b parent=r\r\n"
        assert_equal [mc_exchange $fd "ctincr r.a.x 1 103 2021031514 7 values\r\n"] \
            "VALUE r.a.x 1 103 2021031514 7 0\r\nVALUE r.a 1 103 2021031514 7 0\r\nVALUE r 1 103 2021031514 7 0\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctincr r.b 1 103 @[clock scan 2021-03-15T23:59:59Z -format %Y-%m-%dT%H:%M:%SZ -gmt 1] 5\r\n"] "STORED\r\n"
        mc_exchange $fd "ctvalues r\r\n"
    } "VALUE r 1 103 2021031514 7 0\r\nVALUE r 1 103 2021031523 5 0\r\nVALUE r 1 104 20210315 12 0\r\nVALUE r 1 105 202103 12 0\r\nVALUE r 1 106 2021 12 0\r\nVALUE r 1 107 1 12 0\r\nEND\r\n"

    test {ctget: one value; a period never changed is 0; time forms of the type} {
        mc_exchange $fd "ctget r 1 104 20210315\r\nctget r 1 105 202103\r\nctget r.a 1 107 1\r\nctget r 1 103 2021031500\r\nctget r 1 104 @1615766400\r\n"
    } "VALUE r 1 104 20210315 12 0\r\nEND\r\nVALUE r 1 105 202103 12 0\r\nEND\r\nVALUE r.a 1 107 1 7 0\r\nEND\r\nVALUE r 1 103 2021031500 0 0\r\nEND\r\nVALUE r 1 104 20210315 12 0\r\nEND\r\n"

    test {a non-aggregating counter stays in its object (and its manual 104 is not fed from 103)} {
        assert_equal [mc_exchange $fd "ctincr r.a.x 2 103 2021031514 4 values\r\n"] "VALUE r.a.x 2 103 2021031514 0 4\r\nEND\r\n"
        mc_exchange $fd "ctget r.a 2 103 2021031514\r\nctget r.a.x 2 104 20210315\r\n"
    } "VALUE r.a 2 103 2021031514 0 0\r\nEND\r\nVALUE r.a.x 2 104 20210315 0 0\r\nEND\r\n"

    test {a manual coarser type changes directly and is not fed from finer ones} {
        assert_equal [mc_exchange $fd "ctincr r.a.x 2 104 20210316 10\r\n"] "STORED\r\n"
        mc_exchange $fd "ctvalues r.a.x counters=2\r\n"
    } "VALUE r.a.x 2 103 2021031514 0 4\r\nVALUE r.a.x 2 104 20210316 10 0\r\nEND\r\n"

    test {ctincr on a computed type, an unknown counter, a type not stored: refused} {
        mc_exchange $fd "ctincr r 1 104 20210315 1\r\nctincr r 99 103 2021031514 1\r\nctincr r 1 102 202103151400 1\r\nctincr nope 1 103 2021031514 1\r\nctget r 1 104 20210315\r\n"
    } "CLIENT_ERROR period type is computed from finer ones\r\nCLIENT_ERROR no such counter\r\nCLIENT_ERROR counter does not store that period type\r\nNOT_FOUND\r\nVALUE r 1 104 20210315 12 0\r\nEND\r\n"

    test {ctincr: bad period type codes 0, 108, 9999999 and bad numbers} {
        set r {}
        foreach line {"ctincr r 1 0 2021 1" "ctincr r 1 108 2021 1" "ctincr r 1 9999999 2021 1"
                      "ctincr r x 103 2021031514 1" "ctincr r 1 103 2021031514 x" "ctincr r 1 103 2021031514 1.5"
                      "ctincr r 1 103 2021031514 +1" "ctincr r 1 103 2021031514 9223372036854775808"
                      "ctincr r 1 103 2021031514 -9223372036854775809" "ctincr r 1 103 2021031514 1 valuez"
                      "ctincr r 1 103 2021031514 1 values values"} {
            append r [mc_exchange $fd "$line\r\n"]
        }
        set r
    } [string cat [string repeat [ct_err {bad type}] 3] [ct_err {bad counter}] [string repeat [ct_err {bad delta}] 5] \
           [ct_err {too many tokens} {too many tokens}]]

    test {ctincr: periods that do not exist (20210230, hour 24, month 13, before 1970, wrong length)} {
        set r {}
        foreach p {20210230 20210229 2021022924 2021130100 1969123123 202103151 @ @-1 @253402300800 @12x 2} {
            set code [expr {[string length $p] == 8 ? 104 : 103}]
            append r [mc_exchange $fd "ctincr r.b 1 $code $p 1\r\n"]
        }
        append r [mc_exchange $fd "ctvalues r.b type=104\r\n"]
    } "[string repeat $BADTIME 11]VALUE r.b 1 104 20210315 5 0\r\nEND\r\n"

    test {leap days exist in leap years; the last second of year 9999 is accepted} {
        mc_exchange $fd "ctincr r.b 1 103 2020022923 1\r\nctincr r.b 1 103 @253402300799 1\r\nctget r.b 1 106 9999\r\nctget r.b 1 104 20200229\r\n"
    } "STORED\r\nSTORED\r\nVALUE r.b 1 106 9999 1 0\r\nEND\r\nVALUE r.b 1 104 20200229 1 0\r\nEND\r\n"

    test {int64 overflow anywhere on the path refuses the whole increment} {
        mc_exchange $fd "ctobj ov\r\nctobj ov.c parent=ov\r\nctincr ov 1 103 2021010100 9223372036854775000\r\n"
        assert_equal [mc_exchange $fd "ctincr ov.c 1 103 2021010200 1000\r\n"] "CLIENT_ERROR value would overflow\r\n"
        assert_equal [mc_exchange $fd "ctincr ov.c 1 103 2021010200 807\r\n"] "STORED\r\n"
        mc_exchange $fd "ctget ov 1 107 1\r\nctget ov.c 1 107 1\r\nctincr ov 1 103 2021010100 -9223372036854775808\r\nctincr ov 1 103 2021010100 -9223372036854775807\r\nctget ov 1 106 2021\r\n"
    } "VALUE ov 1 107 1 9223372036854775807 0\r\nEND\r\nVALUE ov.c 1 107 1 807 0\r\nEND\r\nSTORED\r\nCLIENT_ERROR value would overflow\r\nVALUE ov 1 106 2021 -1 0\r\nEND\r\n"

    # ---- limits ----

    test {a limit anywhere on the path refuses the whole increment and names the object and type} {
        mc_exchange $fd "ctobj lim\r\nctobj lim.a parent=lim limits=1:104:100\r\nctobj lim.a.x parent=lim.a\r\nctlimits lim limits=1:106:150\r\n"
        assert_equal [mc_exchange $fd "ctincr lim.a.x 1 103 2021050110 90\r\nctincr lim.a.x 1 103 2021050111 11\r\n"] \
            "STORED\r\nEXCEEDED lim.a 104 20210501\r\n"
        assert_equal [mc_exchange $fd "ctincr lim.a.x 1 103 2021050211 70\r\n"] "EXCEEDED lim 106 2021\r\n"
        assert_equal [mc_exchange $fd "ctincr lim.a.x 1 103 2021050111 10\r\nctincr lim.a.x 1 103 2021050211 50\r\n"] "STORED\r\nSTORED\r\n"
        list [ct_lines [ct_values $fd lim.a.x]] [ct_lines [ct_values $fd lim]]
    } [list {1/103/2021050110=90 1/103/2021050111=10 1/103/2021050211=50 1/104/20210501=100 1/104/20210502=50 1/105/202105=150 1/106/2021=150 1/107/1=150} \
            {1/103/2021050110=90 1/103/2021050111=10 1/103/2021050211=50 1/104/20210501=100 1/104/20210502=50 1/105/202105=150 1/106/2021=150 1/107/1=150}]

    test {a limit reached exactly accepts; one more refuses; a negative delta always passes; ctraise lets it through} {
        mc_exchange $fd "ctincr lim.a.x 1 103 2021050112 1\r\nctincr lim.a.x 1 103 2021050112 -5\r\nctraise lim limits=1:106:10\r\nctincr lim.a.x 1 103 2021050212 6\r\nctget lim 1 106 2021\r\n"
    } "EXCEEDED lim.a 104 20210501\r\nSTORED\r\nSTORED\r\nSTORED\r\nVALUE lim 1 106 2021 151 0\r\nEND\r\n"

    test {ctincr noreply: no reply, even for a refusal} {
        mc_exchange $fd "ctincr lim.a.x 1 103 2021050112 1000 noreply\r\nctincr lim.a.x 1 103 2021050112 1 values noreply\r\nctincr lim.a.x 1 103 20210230 1 noreply\r\nctget lim 1 106 2021\r\n"
    } "VALUE lim 1 106 2021 152 0\r\nEND\r\n"

    # ---- quantization ----

    test {quantization, the thesis's figure 5: step 3, children remainders 2+2 make the parent one step higher} {
        mc_exchange $fd "ctdef 10 103,107 quantize=3\r\nctobj q\r\nctobj q.a parent=q\r\nctobj q.b parent=q\r\n"
        mc_exchange $fd "ctincr q.a 10 103 2021010100 5\r\nctincr q.b 10 103 2021010100 2 values\r\nctget q.a 10 107 1\r\nctget q 10 107 1\r\n"
    } "STORED\r\nVALUE q.b 10 103 2021010100 0 2\r\nVALUE q 10 103 2021010100 6 1\r\nEND\r\nVALUE q.a 10 107 1 3 2\r\nEND\r\nVALUE q 10 107 1 6 1\r\nEND\r\n"

    test {an object's own quantization step overrides the counter's; negative totals round towards zero} {
        mc_exchange $fd "ctobj q2 quantize=10\r\nctincr q2 10 103 2021010100 -27\r\nctincr q2 1 103 2021010100 44\r\nctget q2 10 107 1\r\nctget q2 1 107 1\r\n"
    } "CREATED\r\nSTORED\r\nSTORED\r\nVALUE q2 10 107 1 -20 -7\r\nEND\r\nVALUE q2 1 107 1 40 4\r\nEND\r\n"

    # ---- reads ----

    test {ctvalues filters: counters list and range, type, period list and range} {
        mc_exchange $fd "ctobj f\r\n"
        foreach {c h d} {1 2021060100 1 1 2021060200 2 1 2021070300 4 10 2021060100 8 4 202106010000 16} {
            set code [expr {$c == 4 ? 502 : 103}]
            assert_equal [mc_exchange $fd "ctincr f $c $code $h $d\r\n"] "STORED\r\n"
        }
        assert_equal [ct_lines [ct_values $fd f "counters=10 type=107"]] {10/107/1=8}
        assert_equal [ct_lines [ct_values $fd f "counters=1-3 type=104 periods=20210601-20210630"]] {1/104/20210601=1 1/104/20210602=2}
        assert_equal [ct_lines [ct_values $fd f "counters=4,1 type=105 periods=202107,202101"]] {1/105/202107=4}
        assert_equal [ct_lines [ct_values $fd f "counters=4 type=1502"]] {4/1502/202106010000=16}
        mc_exchange $fd "ctvalues f periods=2021\r\nctvalues f type=104 periods=2021\r\nctvalues f counters=5-4\r\nctvalues f counters=\r\nctvalues f type=108\r\nctvalues f scan=0\r\nctvalues f count=10001\r\nctvalues nope\r\n"
    } "[ct_err {periods= needs type=} {bad value for periods} {bad value for counters} {bad value for counters} \
            {bad value for type} {bad value for scan} {count must be 1..10000}]NOT_FOUND\r\n"

    test {ctvalues: count and scan caps end in MORE; after= continues to the end without repeats} {
        set all [ct_lines [ct_values $fd f]]
        set got {}
        set after {}
        for {set i 0} {$i < 100} {incr i} {
            set r [mc_exchange $fd "ctvalues f count=3 $after\r\n"]
            foreach line [split [string trimright $r "\n"] "\n"] {
                set line [string trimright $line "\r"]
                if {[regexp {^VALUE f (\d+) (\d+) (\d+) (-?\d+) (-?\d+)$} $line -> c code p v fr]} {
                    lappend got "$c/$code/$p=[expr {$v + $fr}]"
                } elseif {[regexp {^MORE (\S+)$} $line -> cur]} {
                    set after "after=$cur"
                } elseif {$line eq "END"} {
                } else { fail "unexpected line $line" }
            }
            if {![string match "*MORE*" $r]} break
        }
        assert_equal [llength $got] [llength $all]
        assert_equal [lsort $got] $all
        set r [mc_exchange $fd "ctvalues f scan=2\r\n"]
        assert_match "VALUE f 1 103 2021060100 1 0\r\nVALUE f 1 103 2021060200 2 0\r\nMORE 1:103:2021060200\r\nEND\r\n" $r
        mc_exchange $fd "ctvalues f type=103 periods=2021060200,2021070300 scan=1\r\n"
    } "VALUE f 1 103 2021060200 2 0\r\nMORE 1:103:2021060200\r\nEND\r\n"

    test {ctperiods: periods with a non-zero value, with the number of objects holding one} {
        mc_exchange $fd "ctdef 20 104,106\r\nctobj p1\r\nctobj p2\r\nctincr p1 20 104 20210101 1\r\nctincr p2 20 104 20210101 1\r\nctincr p2 20 104 20210102 1\r\nctincr p2 20 104 20210102 -1\r\n"
        mc_exchange $fd "ctperiods counters=20\r\nctperiods counters=20 count=1\r\nctperiods type=104 periods=20210101-20210101 counters=20\r\n"
    } "PERIOD 20 104 20210101 2\r\nPERIOD 20 106 2021 2\r\nEND\r\nPERIOD 20 104 20210101 2\r\nMORE 20:104:20210101\r\nEND\r\nPERIOD 20 104 20210101 2\r\nEND\r\n"

    test {ctactive: objects changed since a time, newest first, with count and after} {
        assert_equal [mc_exchange $fd "debugtime 5\r\nctincr p1 20 104 20210105 1\r\nctincr p2 20 104 20210105 1\r\n"] "OK\r\nSTORED\r\nSTORED\r\n"
        set now [lindex [regexp -inline {ACTIVE p2 (\d+)} [mc_exchange $fd "ctactive count=1\r\n"]] 1]
        assert_equal [mc_exchange $fd "ctactive since=$now\r\n"] "ACTIVE p2 $now\r\nACTIVE p1 $now\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctactive since=$now count=1\r\n"] "ACTIVE p2 $now\r\nMORE p2\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctactive since=$now count=1 after=p2\r\n"] "ACTIVE p1 $now\r\nEND\r\n"
        assert_equal [mc_exchange $fd "ctactive since=[expr {$now + 1}]\r\n"] "END\r\n"
        mc_exchange $fd "ctactive since=x\r\nctactive count=0\r\nctactive after=nope\r\n"
    } "[ct_err {bad value for since} {count must be 1..10000}]NOT_FOUND\r\n" {debugtime}

    test {stats: ctree_counters, ctree_objects and ctree_values move with definitions, objects and values} {
        set before [list [mc_stat $fd ctree_counters] [mc_stat $fd ctree_objects] [mc_stat $fd ctree_values]]
        mc_exchange $fd "ctdef 70 104,106\r\nctobj st\r\nctobj st.c parent=st\r\nctincr st.c 70 104 20210101 1\r\n"
        set after [list [mc_stat $fd ctree_counters] [mc_stat $fd ctree_objects] [mc_stat $fd ctree_values]]
        assert_equal [mc_exchange $fd "delete st\r\n"] "DELETED\r\n"
        lappend after {*}[list [mc_stat $fd ctree_objects] [mc_stat $fd ctree_values]]
        list [expr {[lindex $after 0] - [lindex $before 0]}] [expr {[lindex $after 1] - [lindex $before 1]}] \
            [expr {[lindex $after 2] - [lindex $before 2]}] [expr {[lindex $after 3] - [lindex $before 1]}] \
            [expr {[lindex $after 4] - [lindex $before 2]}]
    } {1 2 4 0 0}

    # ---- classic verbs on object keys ----

    test {classic verbs on an object key: get misses, set is wrong type} {
        mc_exchange $fd "get r\r\nset r 0 0 1\r\nx\r\nincr r 1\r\n"
    } "END\r\nCLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n"

    test {delete removes the object and its subtree and takes their values out of the ancestors} {
        mc_exchange $fd "ctobj d\r\nctobj d.a parent=d\r\nctobj d.a.x parent=d.a\r\nctobj d.b parent=d\r\n"
        mc_exchange $fd "ctincr d.a.x 1 103 2021010100 5\r\nctincr d.a 1 103 2021010100 1\r\nctincr d.b 1 103 2021010100 2\r\n"
        assert_equal [mc_exchange $fd "delete d.a\r\nctinfo d.a\r\nctinfo d.a.x\r\nctincr d.a.x 1 103 2021010100 1\r\nctchildren d\r\n"] \
            "DELETED\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nCHILD d.b\r\nEND\r\n"
        assert_equal [ct_lines [ct_values $fd d]] [ct_lines [ct_values $fd d.b]]
        mc_exchange $fd "ctobj d.a.x\r\nctinfo d.a.x\r\n"
    } "CREATED\r\nOBJECT d.a.x - 0 0 0\r\nEND\r\n"

    test {ctundef refuses a counter objects hold values or limits of; it goes once they are deleted} {
        mc_exchange $fd "ctdef 30 103\r\nctobj u1 limits=30:103:5\r\nctundef 30\r\ndelete u1\r\nctundef 30\r\n"
    } "CREATED\r\nCREATED\r\nCLIENT_ERROR counter in use\r\nDELETED\r\nDELETED\r\n"

    # ---- retention ----

    test {retention: periods older than the keep count are dropped on the clock, coarser ones stay} {
        set now [clock seconds]
        mc_exchange $fd "ctdef 40 103:2,104:3,107\r\nctobj ret\r\n"
        assert_equal [mc_exchange $fd "ctincr ret 40 103 @$now 1\r\nctincr ret 40 103 @[expr {$now - 7200}] 10\r\n"] "STORED\r\nSTORED\r\n"
        set h [ct_period 103 $now]
        set v [ct_values $fd ret "counters=40"]
        assert_equal [dict get $v [list 40 103 $h]] 1
        assert_equal [dict exists $v [list 40 103 [ct_period 103 [expr {$now - 7200}]]]] 0
        assert_equal [dict get $v [list 40 107 1]] 11
        mc_exchange $fd "debugtime 7200\r\n"
        set v [ct_values $fd ret "counters=40"]
        list [dict exists $v [list 40 103 $h]] [dict get $v [list 40 107 1]]
    } {0 11} {debugtime}

    # ---- scale ----

    test {a hierarchy 1000 levels deep: one increment reaches every ancestor} {
        set b "ctobj deep0\r\n"
        for {set i 1} {$i < 1000} {incr i} { append b "ctobj deep$i parent=deep[expr {$i - 1}]\r\n" }
        assert_equal [mc_exchange $fd $b] [string repeat "CREATED\r\n" 1000]
        set r [mc_exchange $fd "ctincr deep999 1 103 2021010100 3 values\r\n"]
        assert_equal [llength [regexp -all -inline {VALUE deep\d+ 1 103 2021010100 3 0} $r]] 1000
        mc_exchange $fd "ctget deep0 1 107 1\r\ndelete deep500\r\nctget deep0 1 107 1\r\nctget deep499 1 107 1\r\n"
    } "VALUE deep0 1 107 1 3 0\r\nEND\r\nDELETED\r\nVALUE deep0 1 107 1 0 0\r\nEND\r\nVALUE deep499 1 107 1 0 0\r\nEND\r\n"

    test {an object with 100000 children} {
        mc_exchange $fd "ctobj wide\r\n"
        set b {}
        for {set i 0} {$i < 100000} {incr i} { append b "ctobj w$i parent=wide\r\n" }
        mc_send $fd $b
        for {set i 0} {$i < 100000} {incr i} {
            set l [mc_readline $fd]
            if {$l ne "CREATED"} { fail "ctobj w$i: $l" }
        }
        assert_equal [mc_exchange $fd "ctincr w77777 1 103 2021010100 2\r\nctincr w3 1 103 2021010100 5\r\n"] "STORED\r\nSTORED\r\n"
        assert_match "OBJECT wide - 0 100000 *\r\nEND\r\n" [mc_exchange $fd "ctinfo wide\r\n"]
        set r [mc_exchange $fd "ctchildren wide count=10000\r\n"]
        assert_equal [llength [regexp -all -inline {CHILD w\d+\r} $r]] 10000
        assert_match "*MORE w90000\r\nEND\r\n" $r
        mc_exchange $fd "ctget wide 1 106 2021\r\n"
    } "VALUE wide 1 106 2021 7 0\r\nEND\r\n"
}

# A seeded random workload on a small forest, checked against a model
# that recomputes every value from the accepted increments, and against
# the two roll-up invariants read back from the server.
start_server {tags {ctree mcds-only}} {
    set fd [mc_connect]
    set seed [expr {[clock milliseconds] % 100000}]
    expr {srand($seed)}
    set parents {root {} a root b root c root a1 a a2 a b1 b b2 b c1 c}
    set leaves {a1 a2 b1 b2 c1}
    set limits {b {50 104 60} a1 {50 105 200} root {51 106 500} c1 {52 103 15}}
    mc_exchange $fd "ctdef 50 103,104,105,106,107\r\nctdef 51 103,104,106,107 quantize=3\r\nctdef 52 103,104 aggregate=0\r\n"
    ct_make_tree $fd $parents $limits
    set codes {50 {103 104 105 106 107} 51 {103 104 106 107} 52 {103 104}}

    test "random increments (seed $seed): every value equals the recomputation, refusals are exact" {
        set model [dict create]
        set refused 0
        for {set i 0} {$i < 600} {incr i} {
            set counter [lindex {50 51 52} [expr {int(rand() * 3)}]]
            set pool [expr {$counter == 52 ? [dict keys $parents] : $leaves}]
            set o [lindex $pool [expr {int(rand() * [llength $pool])}]]
            set t [expr {1609459200 + int(rand() * 31536000)}]
            set delta [expr {int(rand() * 24) - 3}]
            set path [expr {$counter == 52 ? [list $o] : [ct_path $parents $o]}]
            # the model's verdict: the first limit on the path, types finest first
            set expect "STORED\r\n"
            foreach po $path {
                if {$expect ne "STORED\r\n"} break
                if {![dict exists $limits $po]} continue
                lassign [dict get $limits $po] lc lcode lmax
                if {$lc != $counter || $delta <= 0} continue
                set k [list $po $counter $lcode [ct_period $lcode $t]]
                set cur [expr {[dict exists $model $k] ? [dict get $model $k] : 0}]
                if {$cur + $delta > $lmax} { set expect "EXCEEDED $po $lcode [ct_period $lcode $t]\r\n" }
            }
            set r [mc_exchange $fd "ctincr $o $counter 103 @$t $delta\r\n"]
            if {$r ne $expect} { fail "increment $i ($o $counter @$t $delta): expected '[visible $expect]', got '[visible $r]'" }
            if {$r eq "STORED\r\n"} {
                ct_model_add model $path $counter [dict get $codes $counter] $t $delta
            } else {
                incr refused
            }
        }
        assert_true {$refused > 0} "no increment met a limit"
        foreach o [dict keys $parents] {
            assert_equal [ct_lines [ct_values $fd $o]] [ct_lines [ct_model_of $model $o]]
        }
    }

    test "random increments (seed $seed): a parent is the sum of its children, a period the sum of the finer ones" {
        set vals [dict create]
        foreach o [dict keys $parents] { dict set vals $o [ct_values $fd $o] }
        # hierarchy: aggregating counters 50 and 51, every timeframe of every parent
        foreach p {root a b c} {
            set sum [dict create]
            dict for {o pp} $parents {
                if {$pp ne $p} continue
                dict for {k v} [dict get $vals $o] {
                    if {[lindex $k 0] == 52} continue
                    dict incr sum $k $v
                }
            }
            set own [dict filter [dict get $vals $p] script {k v} { expr {[lindex $k 0] != 52} }]
            assert_equal [ct_lines $own] [ct_lines [dict filter $sum script {k v} {expr {$v != 0}}]]
        }
        # time: each coarser period is the sum of the periods of the next finer stored type inside it
        set prefix {104 8 105 6 106 4}
        dict for {o v} $vals {
            dict for {c cs} $codes {
                for {set i 1} {$i < [llength $cs]} {incr i} {
                    set fine [lindex $cs [expr {$i - 1}]]
                    set coarse [lindex $cs $i]
                    set sums [dict create]
                    dict for {k x} $v {
                        lassign $k kc kcode kp
                        if {$kc != $c || $kcode != $fine} continue
                        set cp [expr {$coarse == 107 ? 1 : [string range $kp 0 [dict get $prefix $coarse]-1]}]
                        dict incr sums $cp $x
                    }
                    dict for {k x} $v {
                        lassign $k kc kcode kp
                        if {$kc != $c || $kcode != $coarse} continue
                        if {![dict exists $sums $kp] || [dict get $sums $kp] != $x} {
                            fail "$o counter $c: $coarse $kp is $x, the $fine periods inside sum to [expr {[dict exists $sums $kp] ? [dict get $sums $kp] : 0}]"
                        }
                        dict unset sums $kp
                    }
                    dict for {kp x} $sums {
                        if {$x != 0} { fail "$o counter $c: $fine periods in $kp sum to $x, $coarse has none" }
                    }
                }
            }
        }
    }
}

# Memory: values count under -m, cache values are evicted for them, and
# an increment that finds no room changes nothing.
start_server {tags {ctree mcds-only} args {-m 2 -I 512k}} {
    set fd [mc_connect]

    test {-m: increments evict cache values, then answer out of memory with nothing lost} {
        mc_exchange $fd "ctdef 1 101,107\r\nctobj m\r\nctobj m.c parent=m\r\n"
        set blob [string repeat x 1000]
        for {set i 0} {$i < 200} {incr i} { mc_set $fd cache$i $blob }
        set t0 1609459200
        lassign [ct_fill $fd m.c $t0] n last
        assert_equal $last "SERVER_ERROR out of memory storing object"
        assert_true {[mc_stat $fd evictions] > 0} "no cache value was evicted"
        assert_equal [mc_exchange $fd "ctget m.c 1 107 1\r\nctget m 1 107 1\r\n"] \
            "VALUE m.c 1 107 1 $n 0\r\nEND\r\nVALUE m 1 107 1 $n 0\r\nEND\r\n"
        # a period that exists already needs no memory
        assert_equal [mc_exchange $fd "ctincr m.c 1 101 @$t0 1\r\nctget m 1 107 1\r\n"] \
            "STORED\r\nVALUE m 1 107 1 [expr {$n + 1}] 0\r\nEND\r\n"
    }
}
