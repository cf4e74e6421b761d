# ctincrn (doc/protocol.md, "5. Tree counters"): several increments as one
# unit, all applied or none, each checked against the values the ones
# before it leave; its errors name the increment; with --data-dir the
# request is one log record, restored whole after kill -9.

set T @1700000000
set H 2023111422
set D 20231114

# ct_value fd key counter type period -> the value (first field) of ctget.
proc ct_value {fd key counter type period} {
    set r [mc_exchange $fd "ctget $key $counter $type $period\r\n"]
    if {![regexp {^VALUE \S+ \d+ \d+ \d+ (-?\d+) } $r -> v]} { return $r }
    return $v
}

start_server {tags {ctree mcds-only}} {
    set fd [mc_connect]
    mc_exchange $fd "ctdef 1 103,104\r\nctdef 2 103,104:0:m\r\nctobj root\r\nctobj a parent=root limits=1:103:10\r\nctobj b parent=root\r\nctobj c parent=a\r\n"

    test {ctincrn: every increment applied and rolled up, one STORED} {
        list [mc_exchange $fd "ctincrn a 1 103 $T 3 b 1 103 $T 4 c 1 103 $T 2\r\n"] \
            [ct_value $fd a 1 103 $H] [ct_value $fd b 1 103 $H] [ct_value $fd c 1 103 $H] \
            [ct_value $fd root 1 103 $H] [ct_value $fd root 1 104 $D]
    } [list "STORED\r\n" 5 4 2 9 9]

    test {ctincrn values: each increment's object and ancestors, in order, after the whole request} {
        mc_exchange $fd "ctincrn b 1 103 $T 1 c 1 103 $T 1 values\r\n"
    } "VALUE b 1 103 $H 5 0\r\nVALUE root 1 103 $H 11 0\r\nVALUE c 1 103 $H 3 0\r\nVALUE a 1 103 $H 6 0\r\nVALUE root 1 103 $H 11 0\r\nEND\r\n"

    test {ctincrn: a limit met by a later increment refuses the whole request, naming it} {
        set r [mc_exchange $fd "ctincrn b 1 103 $T 7 a 1 103 $T 5\r\n"]
        list $r [ct_value $fd a 1 103 $H] [ct_value $fd b 1 103 $H] [ct_value $fd root 1 103 $H]
    } [list "EXCEEDED a 103 $H 2\r\n" 6 5 11]

    test {ctincrn: two increments that each fit but not together are refused (checked in order)} {
        set r [mc_exchange $fd "ctincrn a 1 103 $T 3 c 1 103 $T 2\r\n"]
        list $r [ct_value $fd a 1 103 $H] [ct_value $fd c 1 103 $H]
    } [list "EXCEEDED a 103 $H 2\r\n" 6 3]

    test {ctincrn: a decrease first makes room for an increase after it} {
        list [mc_exchange $fd "ctincrn c 1 103 $T -3 a 1 103 $T 7\r\n"] [ct_value $fd a 1 103 $H] [ct_value $fd c 1 103 $H]
    } [list "STORED\r\n" 10 0]

    test {ctincrn: overflow over the whole request, nothing changed} {
        mc_exchange $fd "ctobj big\r\nctincr big 1 103 $T 9223372036854775806\r\n"
        set r [mc_exchange $fd "ctincrn b 1 103 $T 1 big 1 103 $T 1 big 1 103 $T 1\r\n"]
        list $r [ct_value $fd big 1 103 $H] [ct_value $fd b 1 103 $H]
    } [list "CLIENT_ERROR value would overflow in increment 3\r\n" 9223372036854775806 5]

    test {ctincrn: a missing object, another type, a counter or type it lacks: the increment named, nothing changed} {
        mc_exchange $fd "set plain 0 0 1\r\nx\r\n"
        set r [mc_exchange $fd "ctincrn b 1 103 $T 1 nobody 1 103 $T 1\r\nctincrn b 1 103 $T 1 plain 1 103 $T 1\r\nctincrn b 1 103 $T 1 b 9 103 $T 1\r\nctincrn b 1 103 $T 1 b 1 105 $T 1\r\nctincrn b 1 103 $T 1 b 1 104 $T 1\r\n"]
        list $r [ct_value $fd b 1 103 $H]
    } [list "NOT_FOUND 2\r\nCLIENT_ERROR key holds another type of value in increment 2\r\nCLIENT_ERROR no such counter in increment 2\r\nCLIENT_ERROR counter does not store that period type in increment 2\r\nCLIENT_ERROR period type is computed from finer ones in increment 2\r\n" 5]

    test {ctincrn: a manual coarser type takes an increment} {
        list [mc_exchange $fd "ctincrn b 2 104 $D 4 b 2 103 $T 1\r\n"] [ct_value $fd b 2 104 $D]
    } [list "STORED\r\n" 4]

    test {ctincrn: bad tokens, the first bad increment named} {
        set long [string repeat k 251]
        mc_exchange $fd "ctincrn b 1 103 $T 1 b x 103 $T 1\r\nctincrn b 1 103 $T 1 b 1 x $T 1\r\nctincrn b 1 103 $T 1 b 1 100 $T 1\r\nctincrn b 1 103 2023 1\r\nctincrn b 1 103 $T +1\r\nctincrn b 1 103 $T 99999999999999999999\r\nctincrn $long 1 103 $T 1\r\n"
    } "CLIENT_ERROR bad counter in increment 2\r\nCLIENT_ERROR bad type in increment 2\r\nCLIENT_ERROR bad type in increment 2\r\nCLIENT_ERROR bad time or period in increment 1\r\nCLIENT_ERROR bad delta in increment 1\r\nCLIENT_ERROR bad delta in increment 1\r\nCLIENT_ERROR key too long in increment 1\r\n"

    test {ctincrn: a line that is not groups of five tokens, or more than 100 of them} {
        set many [string repeat "b 1 103 $T 1 " 101]
        set hundred [string repeat "b 1 103 $T 1 " 100]
        set r [mc_exchange $fd "ctincrn\r\nctincrn b 1 103 $T\r\nctincrn b 1 103 $T 1 c\r\nctincrn b 1 103 $T 1 values values\r\nctincrn $many\r\nctincrn $hundred\r\n"]
        list $r [ct_value $fd b 1 103 $H]
    } [list "[string repeat "CLIENT_ERROR ctincrn takes 1 to 100 increments of 5 tokens\r\n" 5]STORED\r\n" 105]

    test {ctincrn noreply: silent, applied; errors silent too} {
        mc_send $fd "ctincrn b 1 103 $T 2 noreply\r\nctincrn b 1 103 $T 1 values noreply\r\nctincrn nobody 1 103 $T 1 noreply\r\nctincrn b 9 103 $T 1 noreply\r\n"
        ct_value $fd b 1 103 $H
    } 108

    test {ctincrn: a key named like an option is a key} {
        mc_exchange $fd "ctobj values parent=root\r\nctobj noreply parent=root\r\n"
        set root [expr {[ct_value $fd root 1 103 $H] + 3}]
        set r [mc_exchange $fd "ctincrn values 1 103 $T 1 noreply 1 103 $T 2 values\r\n"]
        assert_equal $r "VALUE values 1 103 $H 1 0\r\nVALUE root 1 103 $H $root 0\r\nVALUE noreply 1 103 $H 2 0\r\nVALUE root 1 103 $H $root 0\r\nEND\r\n"
        ct_value $fd noreply 1 103 $H
    } 2

    test {ctincrn: the same object many times, new periods in one request} {
        mc_exchange $fd "ctobj many\r\n"
        set line "ctincrn"
        for {set i 0} {$i < 100} {incr i} { append line " many 1 103 @[expr {1700000000 + 3600 * $i}] [expr {$i + 1}]" }
        # hour i after 2023-11-14 22:00 gets i + 1; 2023-11-18 holds hours 74 to 97
        list [mc_exchange $fd "$line\r\n"] [ct_value $fd many 1 103 2023111422] [ct_value $fd many 1 103 2023111901] \
            [ct_value $fd many 1 104 20231118]
    } [list "STORED\r\n" 1 100 [expr {(75 + 98) * 24 / 2}]]
}

# Two connections pipelining requests over the same objects: the totals
# are exact, and a limited value never passes its limit.
start_server {tags {ctree mcds-only}} {
    test {ctincrn from two connections at once: exact totals, limit kept} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 1 103\r\nctobj r limits=1:103:5000\r\nctobj x parent=r\r\nctobj y parent=r\r\n"
        set f1 [mc_connect]
        set f2 [mc_connect]
        for {set i 0} {$i < 400} {incr i} {
            mc_send $f1 "ctincrn x 1 103 $T 3 y 1 103 $T 4\r\n"
            mc_send $f2 "ctincrn y 1 103 $T 2 x 1 103 $T 1\r\n"
        }
        set ok 0
        foreach f [list $f1 $f2] {
            for {set i 0} {$i < 400} {incr i} {
                set line [mc_readline $f]
                if {$line eq "STORED"} { incr ok } elseif {![string match "EXCEEDED r 103 * 2" $line]} { fail "unexpected $line" }
            }
        }
        set x [ct_value $fd x 1 103 $H]
        set y [ct_value $fd y 1 103 $H]
        set r [ct_value $fd r 1 103 $H]
        list [expr {$x + $y == $r}] [expr {$r <= 5000}] [expr {$r == 5000 || $ok == 800}] [expr {$ok >= 700}]
    } {1 1 1 1}
}

# Memory: with -M and -m full, a request that needs new cells answers out
# of memory and changes nothing, or is applied whole; cache values deleted
# a few at a time make room until requests pass.
start_server {tags {ctree mcds-only} args {-m 2 -M -I 1k}} {
    test {ctincrn out of memory: all or nothing} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 1 101\r\nctobj m\r\n"
        set v [string repeat x 900]
        for {set i 0} {$i < 4000} {incr i} {
            if {[mc_exchange $fd "set fill$i 0 0 900\r\n$v\r\n"] ne "STORED\r\n"} break
        }
        set outcomes {}
        for {set round 0} {$round < 40} {incr round} {
            for {set j 0} {$j < 2} {incr j} { mc_exchange $fd "delete fill[expr {2 * $round + $j}]\r\n" }
            set line "ctincrn"
            for {set k 0} {$k < 100} {incr k} { append line " m 1 101 @[expr {1700000000 + 100 * $round + $k}] 1" }
            set r [mc_exchange $fd "$line\r\n"]
            set got 0
            foreach l [split [mc_exchange $fd "ctvalues m count=1000\r\n"] "\n"] {
                if {[string match "VALUE *" $l]} { incr got }
            }
            lappend outcomes [expr {$r eq "STORED\r\n" ? "S" : $r eq "SERVER_ERROR out of memory storing object\r\n" ? "M" : $r}]
            if {$got % 100 != 0} { fail "a request applied in part: $got values after [join $outcomes {}]" }
        }
        lsort -unique $outcomes
    } {M S}
}

# Persistence: one record per request; after kill -9 the values are back.
set ::ctn_dir [tmpdir ctincrn]
with_data_dir $::ctn_dir {--fsync always} {
    test {ctincrn with --data-dir: one log record per request} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 1 103,104\r\nctobj p\r\nctobj q parent=p\r\nctobj s parent=p\r\n"
        set before [mc_stat $fd persist_log_position]
        assert_equal [mc_exchange $fd "ctincrn q 1 103 $T 5 s 1 103 $T 6 q 1 103 $T 7\r\n"] "STORED\r\n"
        set one [expr {[mc_stat $fd persist_log_position] - $before}]
        set before [mc_stat $fd persist_log_position]
        assert_equal [mc_exchange $fd "ctincr q 1 103 $T 5\r\nctincr s 1 103 $T 6\r\nctincr q 1 103 $T 7\r\n"] "STORED\r\nSTORED\r\nSTORED\r\n"
        set three [expr {[mc_stat $fd persist_log_position] - $before}]
        list [expr {$one < $three}] [ct_value $fd p 1 104 $D]
    } {1 36}
}

with_data_dir $::ctn_dir {} {
    test {ctincrn after kill -9: every request's increments are back, none twice} {
        set fd [mc_connect]
        list [ct_value $fd q 1 103 $H] [ct_value $fd s 1 103 $H] [ct_value $fd p 1 104 $D] \
            [mc_stat $fd persist_replay_quarantined]
    } {24 12 36 0}
}
