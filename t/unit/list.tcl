# Lists (doc/protocol.md, "Lists"): lcreate lpush rpush lpop rpop llen
# lrange lindex lset linsert ltrim lrem lexists, checked against a Tcl
# model of the list under a random workload, deep lists (many chunks),
# limits (maxlen, -I, -m), wrong types both ways, delete/touch/flush_all,
# and malformed or hostile input for every verb. Blocking pops are in
# list_blocking.tcl. Every test uses lists of its own.

set K250 [string repeat k 250]
set K251 [string repeat k 251]

# ---- the model (Redis's rules for offsets) ----

proc m_start {len off} {
    if {$off < 0} { set off [expr {$off + $len < 0 ? 0 : $off + $len}] }
    return $off
}

proc m_range {model off limit} {
    set s [m_start [llength $model] $off]
    if {$limit == 0 || $s >= [llength $model]} { return {} }
    lrange $model $s [expr {$s + $limit - 1}]
}

proc m_index {len idx} {
    if {$idx < 0} { incr idx $len }
    if {$idx < 0 || $idx >= $len} { return -1 }
    return $idx
}

# m_rem model count v -> {newmodel removed}
proc m_rem {model count v} {
    set idx [lsearch -all -exact $model $v]
    if {$count > 0} { set idx [lrange $idx 0 [expr {$count - 1}]] }
    if {$count < 0} { set idx [lrange $idx end-[expr {-$count - 1}] end] }
    foreach i [lsort -integer -decreasing $idx] { set model [lreplace $model $i $i] }
    list $model [llength $idx]
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    # ---- happy paths, one verb at a time ----

    test {rpush and lpush: the new length; lpush puts each value at the head in turn} {
        assert_equal [l_push $fd rpush h1 {a bb ccc}] "3\r\n"
        assert_equal [l_push $fd lpush h1 {x y}] "5\r\n"
        mc_exchange $fd "lrange h1 0 10\r\n"
    } [l_vals h1 {y x a bb ccc}]

    test {push auto-creates the list; llen; a missing list is NOT_FOUND for llen} {
        assert_equal [mc_exchange $fd "llen h2\r\n"] "NOT_FOUND\r\n"
        assert_equal [l_push $fd rpush h2 {one}] "1\r\n"
        mc_exchange $fd "llen h2\r\n"
    } "1\r\n"

    test {values are binary-safe: empty, spaces, CR LF and NUL inside} {
        set vals [list {} "a b" "x\r\ny" "\0\1\2" [string repeat z 3000]]
        assert_equal [l_push $fd rpush h3 $vals] "5\r\n"
        assert_equal [mc_exchange $fd "lrange h3 0 5\r\n"] [l_vals h3 $vals]
        l_all $fd h3
    } [list {} "a b" "x\r\ny" "\0\1\2" [string repeat z 3000]]

    test {lpop and rpop: one, or up to count, from their end; END when empty} {
        l_push $fd rpush h4 {1 2 3 4 5}
        assert_equal [mc_exchange $fd "lpop h4\r\n"] [l_vals h4 {1}]
        assert_equal [mc_exchange $fd "rpop h4 2\r\n"] [l_vals h4 {5 4}]
        assert_equal [mc_exchange $fd "lpop h4 10\r\n"] [l_vals h4 {2 3}]
        mc_exchange $fd "lpop h4\r\nrpop h4 3\r\nllen h4\r\nlpop nosuch\r\n"
    } "END\r\nEND\r\n0\r\nEND\r\n"

    test {an emptied list stays (with its options) until deleted} {
        mc_exchange $fd "llen h4\r\ndelete h4\r\nllen h4\r\n"
    } "0\r\nDELETED\r\nNOT_FOUND\r\n"

    test {lrange: offset and limit, negative offsets from the end, clamped} {
        l_push $fd rpush h5 {a b c d e}
        set r {}
        foreach {off lim} {0 2  3 10  -2 5  -5 1  -99 2  5 1  99 1  0 0  -1 1} {
            append r [mc_exchange $fd "lrange h5 $off $lim\r\n"]
        }
        set want {}
        foreach v {{a b} {d e} {d e} {a} {a b} {} {} {} {e}} { append want [l_vals h5 $v] }
        assert_equal $r $want
        mc_exchange $fd "lrange nosuch 0 5\r\n"
    } "END\r\n"

    test {lindex: from either end; out of range or missing is END} {
        mc_exchange $fd "lindex h5 0\r\nlindex h5 -1\r\nlindex h5 4\r\nlindex h5 5\r\nlindex h5 -6\r\nlindex nosuch 0\r\n"
    } "[l_vals h5 a][l_vals h5 e][l_vals h5 e]END\r\nEND\r\nEND\r\n"

    test {lset: STORED; out of range or missing list is NOT_FOUND and changes nothing} {
        assert_equal [mc_exchange $fd [l_blocks "lset h5 1 2" BB]] "STORED\r\n"
        assert_equal [mc_exchange $fd [l_blocks "lset h5 -1 1" E]] "STORED\r\n"
        assert_equal [mc_exchange $fd [l_blocks "lset h5 5 1" X][l_blocks "lset h5 -6 1" X][l_blocks "lset nosuch 0 1" X]] \
            "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\n"
        assert_equal [mc_exchange $fd "llen nosuch\r\n"] "NOT_FOUND\r\n"
        l_all $fd h5
    } {a BB c d E}

    test {linsert: before or after the first equal element; the new length; NOT_FOUND otherwise} {
        l_push $fd rpush h6 {p q p}
        assert_equal [mc_exchange $fd [l_blocks "linsert h6 before 1 2" p x1]] "4\r\n"
        assert_equal [mc_exchange $fd [l_blocks "linsert h6 after 1 2" q x2]] "5\r\n"
        assert_equal [mc_exchange $fd [l_blocks "linsert h6 after 1 1" z y][l_blocks "linsert nosuch after 1 1" p y]] \
            "NOT_FOUND\r\nNOT_FOUND\r\n"
        l_all $fd h6
    } {x1 p q x2 p}

    test {lrem: count > 0 from the head, < 0 from the tail, 0 all; the number removed} {
        l_push $fd rpush h7 {a x b x c x d x}
        assert_equal [mc_exchange $fd [l_blocks "lrem h7 1 1" x]] "1\r\n"
        assert_equal [l_all $fd h7] {a b x c x d x}
        assert_equal [mc_exchange $fd [l_blocks "lrem h7 -2 1" x]] "2\r\n"
        assert_equal [l_all $fd h7] {a b x c d}
        assert_equal [mc_exchange $fd [l_blocks "lrem h7 0 1" x][l_blocks "lrem h7 0 1" x]] "1\r\n0\r\n"
        assert_equal [mc_exchange $fd [l_blocks "lrem nosuch 0 1" x]] "NOT_FOUND\r\n"
        l_all $fd h7
    } {a b c d}

    test {ltrim: keeps limit elements from offset; the number removed} {
        l_push $fd rpush h8 {0 1 2 3 4 5 6 7 8 9}
        assert_equal [mc_exchange $fd "ltrim h8 2 5\r\n"] "5\r\n"
        assert_equal [l_all $fd h8] {2 3 4 5 6}
        assert_equal [mc_exchange $fd "ltrim h8 -2 100\r\n"] "3\r\n"
        assert_equal [l_all $fd h8] {5 6}
        assert_equal [mc_exchange $fd "ltrim h8 5 1\r\nllen h8\r\nltrim nosuch 0 1\r\n"] "2\r\n0\r\nNOT_FOUND\r\n"
        l_push $fd rpush h8 {a b}
        mc_exchange $fd "ltrim h8 0 0\r\nllen h8\r\n"
    } "2\r\n0\r\n"

    test {lexists: 1 or 0; a missing list is NOT_FOUND} {
        l_push $fd rpush h9 {a b}
        mc_exchange $fd "[l_blocks {lexists h9 1} b][l_blocks {lexists h9 1} c][l_blocks {lexists h9 0} {}][l_blocks {lexists nosuch 1} a]"
    } "1\r\n0\r\n0\r\nNOT_FOUND\r\n"

    test {noreply silences pushes, lset, linsert, ltrim and lrem} {
        mc_exchange $fd "[l_blocks {rpush n1 1 1 noreply} a b][l_blocks {lpush n1 1 noreply} c][l_blocks {lset n1 0 1 noreply} C][l_blocks {linsert n1 after 1 1 noreply} a z]ltrim n1 0 3 noreply\r\n[l_blocks {lrem n1 0 1 noreply} z]"
    } ""

    test {noreply state: after the noreply commands the list is right} {
        l_all $fd n1
    } {C a}

    test {lcreate: CREATED, then EXISTS; maxlen limits the length, all or nothing} {
        assert_equal [mc_exchange $fd "lcreate c1 maxlen=3\r\nlcreate c1\r\nlcreate c1 maxlen=9\r\n"] \
            "CREATED\r\nEXISTS\r\nEXISTS\r\n"
        assert_equal [l_push $fd rpush c1 {a b c d}] "NOT_STORED\r\n"
        assert_equal [l_push $fd rpush c1 {a b}] "2\r\n"
        assert_equal [l_push $fd lpush c1 {c d}] "NOT_STORED\r\n"
        assert_equal [l_push $fd lpush c1 {c}] "3\r\n"
        assert_equal [mc_exchange $fd [l_blocks "linsert c1 after 1 1" a z]] "NOT_STORED\r\n"
        assert_equal [mc_exchange $fd [l_blocks "lset c1 0 1" C]] "STORED\r\n"
        l_all $fd c1
    } {C a b}

    test {lcreate without maxlen: unbounded} {
        mc_exchange $fd "lcreate c2\r\nllen c2\r\n"
    } "CREATED\r\n0\r\n"

    # ---- the model under a random workload ----

    test {a random workload agrees with a model of the list (values cross chunk boundaries)} {
        expr {srand(12)}
        set pool {}
        foreach len {0 1 3 8 40 200 700 1500} {
            for {set i 0} {$i < 3} {incr i} {
                lappend pool [string range "v$len.$i:[string repeat x $len]" 0 [expr {$len - 1}]]
            }
        }
        set model {}
        set key rnd
        for {set step 0} {$step < 2500} {incr step} {
            set op [expr {int(rand() * 12)}]
            set v [lindex $pool [expr {int(rand() * [llength $pool])}]]
            set len [llength $model]
            set off [expr {int(rand() * ($len + 6)) - ($len + 6) / 2}]
            set k [expr {int(rand() * 4) + 1}]
            switch $op {
                0 - 1 {
                    set vals {}
                    for {set i 0} {$i < $k} {incr i} { lappend vals [lindex $pool [expr {int(rand() * [llength $pool])}]] }
                    set r [l_push $fd rpush $key $vals]
                    lappend model {*}$vals
                    set want "[llength $model]\r\n"
                }
                2 - 3 {
                    set vals {}
                    for {set i 0} {$i < $k} {incr i} { lappend vals [lindex $pool [expr {int(rand() * [llength $pool])}]] }
                    set r [l_push $fd lpush $key $vals]
                    foreach x $vals { set model [linsert $model 0 $x] }
                    set want "[llength $model]\r\n"
                }
                4 {
                    set r [mc_exchange $fd "lpop $key $k\r\n"]
                    set want [l_vals $key [lrange $model 0 [expr {$k - 1}]]]
                    set model [lrange $model $k end]
                }
                5 {
                    set r [mc_exchange $fd "rpop $key $k\r\n"]
                    set want [l_vals $key [lreverse [lrange $model end-[expr {$k - 1}] end]]]
                    set model [lrange $model 0 end-$k]
                }
                6 {
                    set lim [expr {int(rand() * 30)}]
                    set r [mc_exchange $fd "lrange $key $off $lim\r\n"]
                    set want [l_vals $key [m_range $model $off $lim]]
                }
                7 {
                    set i [m_index $len $off]
                    set r [mc_exchange $fd "lindex $key $off\r\n"]
                    set want [expr {$i < 0 ? "END\r\n" : [l_vals $key [list [lindex $model $i]]]}]
                    set i [m_index $len $off]
                }
                8 {
                    set i [m_index $len $off]
                    set r [mc_exchange $fd [l_blocks "lset $key $off [string length $v]" $v]]
                    set want [expr {$i < 0 ? "NOT_FOUND\r\n" : "STORED\r\n"}]
                    if {$i >= 0} { lset model $i $v }
                }
                9 {
                    set p [lindex $pool [expr {int(rand() * [llength $pool])}]]
                    set where [expr {rand() < 0.5 ? "before" : "after"}]
                    set r [mc_exchange $fd [l_blocks "linsert $key $where [string length $p] [string length $v]" $p $v]]
                    set i [lsearch -exact $model $p]
                    if {$i < 0} {
                        set want "NOT_FOUND\r\n"
                    } else {
                        set model [linsert $model [expr {$where eq "after" ? $i + 1 : $i}] $v]
                        set want "[llength $model]\r\n"
                    }
                }
                10 {
                    set cnt [expr {int(rand() * 5) - 2}]
                    set r [mc_exchange $fd [l_blocks "lrem $key $cnt [string length $v]" $v]]
                    lassign [m_rem $model $cnt $v] model gone
                    set want "$gone\r\n"
                }
                11 {
                    set r [mc_exchange $fd [l_blocks "lexists $key [string length $v]" $v]]
                    set want "[expr {[lsearch -exact $model $v] >= 0}]\r\n"
                    if {$len > 150 && rand() < 0.2} {
                        set lim [expr {$len - int(rand() * 40)}]
                        assert_equal [mc_exchange $fd "ltrim $key $off $lim\r\n"] \
                            "[expr {$len - [llength [m_range $model $off $lim]]}]\r\n" "step $step ltrim"
                        set model [m_range $model $off $lim]
                    }
                }
            }
            if {$r ne $want} {
                fail "step $step op $op off $off k $k: got '[visible [string range $r 0 200]]' want '[visible [string range $want 0 200]]'"
            }
        }
        assert_equal [mc_exchange $fd "llen $key\r\n"] "[llength $model]\r\n"
        expr {[l_all $fd $key] eq $model}
    } 1

    # ---- deep lists ----

    test {a list of 20000 elements: index, range and trim deep inside are exact} {
        set batch {}
        for {set i 0} {$i < 20000} {incr i} {
            lappend batch [format "e%06d-%s" $i [string repeat . 20]]
            if {[llength $batch] == 64} {
                l_push $fd rpush deep $batch
                set batch {}
            }
        }
        l_push $fd rpush deep $batch
        assert_equal [mc_exchange $fd "llen deep\r\n"] "20000\r\n"
        foreach i {0 1 4999 10000 12345 19999} {
            assert_equal [mc_exchange $fd "lindex deep $i\r\n"] [l_vals deep [list [format "e%06d-%s" $i [string repeat . 20]]]]
        }
        set r [l_parse deep [mc_exchange $fd "lrange deep -10001 3\r\n"]]
        assert_equal $r [list [format "e%06d-%s" 9999 [string repeat . 20]] \
                             [format "e%06d-%s" 10000 [string repeat . 20]] \
                             [format "e%06d-%s" 10001 [string repeat . 20]]]
        assert_equal [mc_exchange $fd [l_blocks "lexists deep 28" [format "e%06d-%s" 15000 [string repeat . 20]]]] "1\r\n"
        assert_equal [mc_exchange $fd [l_blocks "lrem deep 0 28" [format "e%06d-%s" 15000 [string repeat . 20]]]] "1\r\n"
        assert_equal [mc_exchange $fd "lindex deep 15000\r\n"] [l_vals deep [list [format "e%06d-%s" 15001 [string repeat . 20]]]]
        assert_equal [mc_exchange $fd "ltrim deep 100 50\r\n"] "19949\r\n"
        l_parse deep [mc_exchange $fd "lrange deep 0 1\r\nllen deep\r\n"]
    } [list [format "e%06d-%s" 100 [string repeat . 20]]]

    test {deleting a big list is immediate and its key is free again} {
        mc_exchange $fd "llen deep\r\ndelete deep\r\nllen deep\r\n[l_blocks {rpush deep 1} z]lindex deep 0\r\n"
    } "50\r\nDELETED\r\nNOT_FOUND\r\n1\r\n[l_vals deep z]"

    # ---- one keyspace: types, delete, touch, flush ----

    test {list verbs on a cache value or a queue: wrong type, and the value is kept} {
        mc_set $fd s1 plain
        mc_exchange $fd "qpush q1 0 0 1\r\nm\r\n"
        set r [mc_exchange $fd "[l_blocks {rpush s1 1} a][l_blocks {lpush q1 1} a]llen s1\r\nlpop q1\r\nlrange s1 0 1\r\nlindex q1 0\r\n[l_blocks {lset s1 0 1} a][l_blocks {linsert q1 before 1 1} a b]ltrim s1 0 1\r\n[l_blocks {lrem q1 0 1} a][l_blocks {lexists s1 1} a]lcreate q1\r\nrpop s1\r\n"]
        assert_equal $r [string repeat "CLIENT_ERROR key holds another type of value\r\n" 13]
        assert_equal [mc_get $fd s1] plain
        assert_match "ITEM * 0 1 0\r\nm\r\nEND\r\n" [mc_exchange $fd "qpeek q1\r\n"]
    }

    test {cache and queue verbs on a list: wrong type (add too) or a miss; the list is kept} {
        l_push $fd rpush w1 {a b}
        set r [mc_exchange $fd "set w1 0 0 1\r\nx\r\nadd w1 0 0 1\r\nx\r\nappend w1 0 0 1\r\nx\r\nget w1\r\ngets w1\r\nqpush w1 0 0 1\r\nx\r\nqpop w1\r\nqcreate w1\r\nmg w1 v\r\n"]
        assert_equal $r "CLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key holds another type of value\r\nEND\r\nEND\r\nCLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key holds another type of value\r\nEN\r\n"
        l_all $fd w1
    } {a b}

    test {delete removes a list; touch and an exptime end it on the clock} {
        l_push $fd rpush t1 {a}
        l_push $fd rpush t2 {a}
        assert_equal [mc_exchange $fd "touch t1 10\r\ndelete t2\r\nllen t2\r\n"] "TOUCHED\r\nDELETED\r\nNOT_FOUND\r\n"
        assert_equal [mc_exchange $fd "debugtime 5\r\nllen t1\r\n"] "OK\r\n1\r\n"
        mc_exchange $fd "debugtime 6\r\nllen t1\r\nlindex t1 0\r\n"
    } "OK\r\nNOT_FOUND\r\nEND\r\n" {debugtime}

    # ---- hostile input ----

    # 65 values are ERROR, and their blocks are skipped, never read as
    # commands (their lengths can all be read).
    test {lpush/rpush: too few or too many tokens are ERROR; 65 values' blocks are skipped} {
        set many [string repeat "1 " 65]
        mc_exchange $fd "lpush\r\nrpush x\r\n[l_blocks "rpush x $many" {*}[lrepeat 65 z]]llen x\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nNOT_FOUND\r\n"

    test {lpush/rpush: bad lengths are CLIENT_ERROR, close the connection and push nothing} {
        set r {}
        foreach len {abc -1 1x 4294967296 2147483646} {
            append r [mc_last_reply "rpush bad1 1 $len\r\nx\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad length\r\n" 5]
        mc_exchange $fd "llen bad1\r\n"
    } "NOT_FOUND\r\n"

    test {lpush: a 250-byte key works; 251 is CLIENT_ERROR and its blocks are skipped} {
        mc_exchange $fd "[l_blocks "rpush $K250 1" a][l_blocks "rpush $K251 1 2" a bb]llen $K250\r\n"
    } "1\r\nCLIENT_ERROR key too long\r\n1\r\n"

    test {a data block of the wrong size is CLIENT_ERROR bad data chunk; nothing pushed} {
        assert_equal [mc_exchange $fd "rpush bc 1 2\r\na\r\nbbb\r\n"] \
            "CLIENT_ERROR bad data chunk\r\nERROR\r\n"
        mc_exchange $fd "llen bc\r\n"
    } "NOT_FOUND\r\n"

    test {lpop/rpop: bad counts and options are CLIENT_ERROR, too many tokens ERROR} {
        set r {}
        foreach a {0 1001 -1 abc 1x wait=abc wait=-1 wait= "1 2" "wait=1 2" foo=1} {
            append r [mc_exchange $fd "lpop h1 $a\r\n"]
        }
        assert_equal $r [string cat [string repeat "CLIENT_ERROR count must be 1..1000\r\n" 5] \
                             [string repeat "CLIENT_ERROR bad value for wait\r\n" 3] \
                             [string repeat "CLIENT_ERROR unknown option 2\r\n" 2] \
                             "CLIENT_ERROR unknown option foo\r\n"]
        assert_equal [mc_exchange $fd "rpop h1 1 wait=0 x\r\nlpop\r\n"] "ERROR\r\nERROR\r\n"
        mc_exchange $fd "llen h1\r\n"
    } "5\r\n"

    test {lrange/lindex/ltrim: bad numbers are CLIENT_ERROR; wrong counts ERROR} {
        set r {}
        foreach a {"x 1" "0 x" "0 1001" "0 -1" "9223372036854775808 1" "-9223372036854775809 1" "1.5 1" "0 1x"} {
            append r [mc_exchange $fd "lrange h1 $a\r\n"]
        }
        foreach a {x 9223372036854775808 -9223372036854775809 1e3} {
            append r [mc_exchange $fd "lindex h1 $a\r\n"]
        }
        foreach a {"x 1" "0 -1" "0 18446744073709551616" "0 1 yes"} {
            append r [mc_exchange $fd "ltrim h1 $a\r\n"]
        }
        set want {}
        foreach why {offset limit limit limit offset offset offset limit index index index index
                     offset limit limit} {
            append want "CLIENT_ERROR bad $why\r\n"
        }
        assert_equal $r "${want}CLIENT_ERROR too many tokens\r\n"
        assert_equal [mc_exchange $fd "lrange h1 0\r\nlrange h1 0 1 2\r\nlindex h1 0 1\r\nllen h1 x\r\nltrim h1 0 1 noreply x\r\n"] \
            [string repeat "ERROR\r\n" 5]
        mc_exchange $fd "lrange h1 -9223372036854775808 1\r\nlindex h1 -9223372036854775808\r\nllen h1\r\n"
    } "[l_vals h1 y]END\r\n5\r\n"

    test {lset/linsert/lrem/lexists: bad tokens are CLIENT_ERROR and the blocks are skipped} {
        set r [mc_exchange $fd "[l_blocks {lset h1 x 1} a][l_blocks {lset h1 0 1 yes} a][l_blocks {linsert h1 middle 1 1} y z][l_blocks {linsert h1 after 1 1 yes} y z][l_blocks {lrem h1 x 1} a][l_blocks {lrem h1 0 1 yes} a]"]
        assert_equal $r [string cat "CLIENT_ERROR bad index\r\nCLIENT_ERROR too many tokens\r\n" \
                             "CLIENT_ERROR expected before or after\r\nCLIENT_ERROR too many tokens\r\n" \
                             "CLIENT_ERROR bad count\r\nCLIENT_ERROR too many tokens\r\n"]
        assert_equal [list [mc_last_reply "lset h1 0 x\r\nllen h1\r\n"] [mc_last_reply "lexists h1 -1\r\nllen h1\r\n"]] \
            [lrepeat 2 "CLIENT_ERROR bad length\r\n"]
        assert_equal [mc_exchange $fd "lexists h1\r\nlexists h1 1 2\r\na\r\n"] \
            "ERROR\r\nCLIENT_ERROR too many tokens\r\n"
        l_all $fd h1
    } {y x a bb ccc}

    test {lcreate: bad options are CLIENT_ERROR, wrong counts ERROR, long keys CLIENT_ERROR} {
        set r {}
        foreach opt {maxlen=abc maxlen=-1 maxlen= foo=1 maxlen noreply} {
            append r [mc_exchange $fd "lcreate cc $opt\r\n"]
        }
        assert_equal $r [string cat [string repeat "CLIENT_ERROR bad value for maxlen\r\n" 3] \
                             "CLIENT_ERROR unknown option foo\r\nCLIENT_ERROR unknown option maxlen\r\n" \
                             "CLIENT_ERROR unknown option noreply\r\n"]
        mc_exchange $fd "lcreate\r\nlcreate cc maxlen=1 x\r\nlcreate $K251\r\nllen cc\r\n"
    } "ERROR\r\nERROR\r\nCLIENT_ERROR key too long\r\nNOT_FOUND\r\n"

    test {every reading verb on a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "llen $K251\r\nlpop $K251\r\nlrange $K251 0 1\r\nlindex $K251 0\r\nltrim $K251 0 1\r\n"
    } [string repeat "CLIENT_ERROR key too long\r\n" 5]
}

start_server {tags {list mcds-only} args {-I 2k}} {
    set fd [mc_connect]

    test {-I: an element over -I is SERVER_ERROR object too large; its block is skipped} {
        set big [string repeat b 2049]
        set ok [string repeat o 2048]
        assert_equal [mc_exchange $fd "[l_blocks {rpush i1 2049} $big][l_blocks {rpush i1 2048} $ok]llen i1\r\n"] \
            "SERVER_ERROR object too large for cache\r\n1\r\n1\r\n"
        mc_exchange $fd "[l_blocks {lset i1 0 2049} $big][l_blocks {lrem i1 0 2049} $big]lindex i1 0\r\n"
    } "SERVER_ERROR object too large for cache\r\nSERVER_ERROR object too large for cache\r\n[l_vals i1 [list [string repeat o 2048]]]"

    test {-I: the values of one push together at most -I} {
        set half [string repeat h 1024]
        mc_exchange $fd "[l_blocks {rpush i2 1024 1024} $half $half][l_blocks {rpush i2 1024 1025} $half ${half}x]llen i2\r\n"
    } "2\r\nSERVER_ERROR object too large for cache\r\n2\r\n"
}

start_server {tags {list mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {-M: a push that does not fit is SERVER_ERROR out of memory; nothing in the list is lost} {
        set v [string repeat y 40000]
        for {set n 0} {$n < 200} {incr n} {
            set r [l_push $fd rpush m1 [list "$n:$v"]]
            if {$r ne "[expr {$n + 1}]\r\n"} break
        }
        assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
        assert_range $n 10 60
        # A push of several values is all or nothing.
        assert_equal [l_push $fd lpush m1 [list a b $v $v]] "SERVER_ERROR out of memory storing object\r\n"
        assert_equal [mc_exchange $fd "llen m1\r\n"] "$n\r\n"
        set all [l_all $fd m1]
        for {set i 0} {$i < $n} {incr i} {
            if {[lindex $all $i] ne "$i:$v"} { fail "element $i changed" }
        }
        assert_equal [mc_stat $fd evictions] 0
        # Popping gives the room back.
        mc_exchange $fd "lpop m1 5\r\n"
        assert_equal [l_push $fd rpush m1 [list z]] "[expr {$n - 4}]\r\n"
    }

    test {-M: after delete, as many elements fit again (memory reclaimed in the background)} {
        assert_equal [mc_exchange $fd "delete m1\r\n"] "DELETED\r\n"
        set v [string repeat y 40000]
        # Reclaiming runs on its own thread: wait until it is done.
        wait_for {[mc_stat $fd list_reclaiming] == 0}
        for {set n 0} {$n < 200} {incr n} {
            if {[l_push $fd rpush m2 [list $v]] ne "[expr {$n + 1}]\r\n"} break
        }
        assert_range $n 10 60
        mc_exchange $fd "delete m2\r\n"
    } "DELETED\r\n"

    # The value index is a cache: with no room for it, lexists, lrem and
    # linsert read every chunk instead (list_index_scans), never answer
    # out of memory.
    test {-M: a list that fills -m: lexists, lrem and linsert still answer, by reading every chunk} {
        set n 0
        while 1 {
            set vals {}
            for {set i 0} {$i < 64} {incr i} { lappend vals [format v%07d [incr n]] }
            set r [l_push $fd rpush m3 $vals]
            if {![string is digit [string trim $r]]} break
        }
        assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
        set len [string trim [mc_exchange $fd "llen m3\r\n"]]
        assert_true {$len > 10000} "only $len elements fit in -m 2"
        set scans [mc_stat $fd list_index_scans]
        set r [mc_exchange $fd [string cat [l_blocks "lexists m3 8" v0000007] [l_blocks "lexists m3 8" [format v%07d $len]] \
                                   [l_blocks "lexists m3 7" nothere] [l_blocks "lrem m3 1 8" v0000009] \
                                   [l_blocks "linsert m3 after 8 3" v0000100 INS] "lindex m3 99\r\nlindex m3 -1\r\n"]]
        assert_equal $r [string cat "1\r\n1\r\n0\r\n1\r\n$len\r\n" [l_vals m3 INS] [l_vals m3 [format v%07d $len]]]
        assert_true {[mc_stat $fd list_index_scans] - $scans == 5}
        mc_exchange $fd "delete m3\r\n"
    } "DELETED\r\n"
}

# The value index of a big list is built a bounded piece at a time: a
# by-value request indexes some elements, then lets its worker serve other
# connections, and runs again (list_index_steps counts the pieces). What
# other clients change meanwhile, before or after the part built so far,
# is in the index once it is complete.
start_server {tags {list mcds-only} args {-t 1}} {
    set fd [mc_connect]
    set other [mc_connect]
    set n 300000
    for {set i 0} {$i < $n} {incr i 64} {
        set vals {}
        for {set j $i} {$j < $i + 64 && $j < $n} {incr j} { lappend vals e$j }
        mc_send $fd [l_blocks "rpush big [join [lmap v $vals {string length $v}]] noreply" {*}$vals]
    }
    mc_exchange $fd ""

    test {a first by-value request on a 300,000-element list is answered after several steps; others run between them} {
        set steps [mc_stat $fd list_index_steps]
        mc_send $fd [l_blocks "lexists big 7" e299999]
        # Changes from another connection while the index is being built:
        # both ends, a position in the middle, a removal by value.
        set r [mc_exchange $other [string cat [l_blocks "lpush big 4" head] [l_blocks "rpush big 4" tail] \
                                        [l_blocks "lset big 150000 3" mid] [l_blocks "lrem big 0 6" e77777] \
                                        "lpop big\r\n" [l_blocks "rpush big 4" tail]]]
        assert_equal $r [string cat "300001\r\n300002\r\n" "STORED\r\n1\r\n" [l_vals big head] "300001\r\n"]
        assert_equal [mc_readline $fd] 1
        assert_true {[mc_stat $fd list_index_steps] - $steps > 1}
        # The complete index agrees with the list.
        mc_exchange $fd [string cat [l_blocks "lexists big 4" tail] [l_blocks "lrem big 0 4" tail] [l_blocks "lexists big 3" mid] \
                             [l_blocks "lexists big 7" e149999] [l_blocks "lexists big 6" e77777] [l_blocks "lexists big 4" head] \
                             [l_blocks "lexists big 2" e0] [l_blocks "linsert big before 7 1" e299999 Z] "lindex big -2\r\nllen big\r\n"]
    } [string cat "1\r\n2\r\n1\r\n0\r\n0\r\n0\r\n1\r\n300000\r\n" [l_vals big Z] "300000\r\n"]

    # A trim of more than a piece's worth drops the index rather than take
    # each element out of it; the next by-value request builds it again.
    test {ltrim of an indexed list, then by-value requests see exactly the elements kept} {
        # Position 100000 holds e100001: e77777 went, and the head.
        mc_exchange $fd [string cat "ltrim big 100000 3\r\n" "lrange big 0 10\r\n" [l_blocks "lexists big 7" e100001] \
                             [l_blocks "lexists big 7" e100000] [l_blocks "lexists big 7" e100004] \
                             [l_blocks "lrem big 0 7" e100002] [l_blocks "linsert big after 7 1" e100003 Y] "lrange big 0 10\r\n"]
    } [string cat "299997\r\n" [l_vals big {e100001 e100002 e100003}] "1\r\n0\r\n0\r\n1\r\n3\r\n" \
           [l_vals big {e100001 e100003 Y}]]
}

start_server {tags {list mcds-only} args {-m 2}} {
    set fd [mc_connect]

    test {without -M: cache sets evict cache values, never list elements} {
        set v [string repeat c 40000]
        for {set i 0} {$i < 20} {incr i} { mc_set $fd cache$i $v }
        for {set n 0} {$n < 200} {incr n} {
            if {[l_push $fd rpush e1 [list "$n:$v"]] ne "[expr {$n + 1}]\r\n"} break
        }
        assert_range $n 10 60
        assert_true {[mc_stat $fd evictions] > 0}
        assert_equal [mc_get $fd cache0] {}
        set all [l_all $fd e1]
        for {set i 0} {$i < $n} {incr i} {
            if {[lindex $all $i] ne "$i:$v"} { fail "element $i changed" }
        }
        assert_equal [llength $all] $n
    }
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {flush_all empties the keyspace of lists too} {
        l_push $fd rpush f1 {a b}
        mc_exchange $fd "flush_all\r\nllen f1\r\n[l_blocks {rpush f1 1} c]lrange f1 0 5\r\n"
    } "OK\r\nNOT_FOUND\r\n1\r\n[l_vals f1 c]"
}

start_server {tags {list mcds-only} args {--conn-output-max 64k}} {
    set fd [mc_connect]

    test {a range or a pop stops at the output limit; a pop removes only what it sent} {
        set v [string repeat o 20000]
        l_push $fd rpush o1 [list $v $v $v $v $v $v $v $v $v $v]
        assert_equal [llength [l_parse o1 [mc_exchange $fd "lrange o1 0 10\r\n"]]] 4
        assert_equal [llength [l_parse o1 [mc_exchange $fd "lpop o1 10\r\n"]]] 4
        mc_exchange $fd "llen o1\r\n"
    } "6\r\n"
}

# A pop whose reply cannot be buffered (the connection is closed for it)
# stops at once: the elements it did not reach stay in the list.
start_server {tags {list mcds-only} args {-I 1m --conn-buffer-limit 400k}} {
    test {a pop into a connection closed for its buffer limit takes no more elements} {
        set fd [mc_connect]
        set v [string repeat x 100000]
        for {set i 0} {$i < 20} {incr i} {
            assert_equal [mc_exchange $fd "rpush big 100000\r\n$v\r\n"] "[expr {$i + 1}]\r\n"
        }
        set p [mc_connect]
        mc_send $p "lpop big 20\r\n"
        mc_read_until_close $p
        set left [lindex [mc_exchange $fd "llen big\r\n"] 0]
        expr {$left >= 15}
    } 1
}
