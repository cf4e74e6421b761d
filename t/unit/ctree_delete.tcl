# Subtree deletes of tree counters (doc/protocol.md, "Objects and the
# keyspace"): `delete` answers with the subtree already gone for every
# reader (its keys NOT_FOUND, the ancestors' totals and `stats` exact, out
# of ctchildren, ctactive and kscan), and its memory is released after, in
# steps. debugctreehold stops the release part-way, so that what readers
# see is checked at many points of it: after each step every read is
# exact, a deleted key may be reused at once, increments racing the delete
# apply whole or answer NOT_FOUND, and ctactive, ctperiods and ctcounter
# (which finish the release) count exactly. The server is stopped with a
# release under way (the valgrind run checks that nothing leaks then).
# Under -m, an increment that finds no room finishes a held release first.

source [file join [srcdir] t support ctree.tcl]

set T0 1609459200               ;# 2021-01-01 00:00 UTC

# Every read a client can make of the world, checked against the model of
# the live objects' increments: each live object's values, the counts in
# stats, the deleted keys NOT_FOUND, ctchildren of the deleted root's
# parent, no deleted key in a kscan.
proc ctd_check {fd model live gone parent children} {
    foreach o $live {
        assert_equal [ct_lines [ct_values $fd $o]] [ct_lines [ct_model_of $model $o]] "values of $o"
    }
    assert_equal [mc_stat $fd ctree_objects] [llength $live] ctree_objects
    assert_equal [mc_stat $fd ctree_values] [dict size $model] ctree_values
    foreach k $gone {
        assert_equal [mc_exchange $fd "ctinfo $k\r\nctget $k 1 107 1\r\nctincr $k 1 103 @$::T0 1\r\nctchildren $k\r\n"] \
            [string repeat "NOT_FOUND\r\n" 4] "deleted $k"
    }
    assert_equal [mc_exchange $fd "ctchildren $parent count=10000\r\n"] \
        "[join [lmap c $children { string cat "CHILD " $c "\r\n" }] ""]END\r\n"
    assert_equal [lmap k $gone { expr {$k in [ct_kscan $fd $k]} }] [lmap k $gone { expr 0 }] "kscan of deleted keys"
}

start_server {tags {ctree mcds-only}} {
    set fd [mc_connect]
    set rd [mc_connect]
    set model [dict create]
    set parents {t {} t.keep t t.keep.0 t.keep t.keep.1 t.keep t.keep.2 t.keep o {}}
    set live [dict keys $parents]
    set NBIG [expr {1 + 20 + 20 * 1000}]
    set gone {t.big t.big.0 t.big.19 t.big.19.999 t.big.0.0 t.big.7.500}

    test {a subtree delete answers with the subtree gone for every reader; its release waits under debugctreehold 0} {
        assert_equal [mc_exchange $fd "ctdef 1 103,104,107\r\n"] "CREATED\r\n"
        ct_make_tree $fd $parents
        foreach {o h d} {t.keep.0 1 5 t.keep.1 1 -2 t.keep.2 30 7 t.keep 3 4 o 1 9} {
            assert_equal [mc_exchange $fd "ctincr $o 1 103 @[expr {$T0 + 3600 * $h}] $d\r\n"] "STORED\r\n"
            ct_model_add model [ct_path $parents $o] 1 {103 104 107} [expr {$T0 + 3600 * $h}] $d
        }
        assert_equal [mc_exchange $fd "ctobj t.big parent=t\r\n"] "CREATED\r\n"
        ct_build_subtree $fd t.big 20 1000
        assert_equal [mc_stat $fd ctree_objects] [expr {[llength $live] + $NBIG}]
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete t.big\r\n"] "OK\r\nDELETED\r\n"
        ctd_check $rd $model $live $gone t {t.keep}
        mc_stat $rd ctree_releasing
    } [expr {1 + 20 + 20 * 1000}]

    test {released part-way in held steps: after each, every read exact and the memory smaller} {
        set released 0
        set mem [mc_malloced $rd]
        foreach step {1 2500 5000 5000} {
            assert_equal [mc_exchange $fd "debugctreehold $step\r\n"] "OK\r\n"
            incr released $step
            wait_for {[mc_stat $rd ctree_releasing] == $NBIG - $released}
            ctd_check $rd $model $live $gone t {t.keep}
            set now [mc_malloced $rd]
            assert_true {$now < $mem} "memory after $released released: $now, before: $mem"
            set mem $now
        }
        mc_stat $rd ctree_releasing
    } [expr {1 + 20 + 20 * 1000 - 12501}]

    test {ctobj reuses deleted keys at once, released or not, leaf or inner; their increments count} {
        foreach k {t.big.0.0 t.big.19.999 t.big.0 t.big} {
            assert_equal [mc_exchange $fd "ctobj $k\r\nctinfo $k\r\nctincr $k 1 103 @$T0 3\r\n"] \
                "CREATED\r\nOBJECT $k - 0 0 0\r\nEND\r\nSTORED\r\n"
            dict set parents $k {}
            lappend live $k
            ct_model_add model [list $k] 1 {103 104 107} $T0 3
        }
        ctd_check $rd $model $live {t.big.19 t.big.0.1 t.big.7.500} t {t.keep}
        assert_equal [lsort [ct_kscan $rd t.big*]] [lsort {t.big.0.0 t.big.19.999 t.big.0 t.big}]
        expr {[mc_stat $rd ctree_releasing] > 0}
    } 1

    test {ctactive, ctperiods and ctcounter finish the release first and count exactly} {
        set act [regexp -all -inline {ACTIVE (\S+) \d+\r\n} [mc_exchange $rd "ctactive count=10000\r\n"]]
        assert_equal [lsort [lmap {- k} $act { set k }]] [lsort $live]
        assert_equal [mc_stat $rd ctree_releasing] 0
        assert_equal [ct_server_periods $rd] [ct_model_periods $model]
        mc_exchange $rd "ctcounter 1\r\n"
    } "COUNTER 1 103:0,104:0,107:0 aggregate=1 quantize=1 objects=[llength $live]\r\nEND\r\n"

    test {the released objects' keys leave the keyspace; the reused keys stay} {
        assert_equal [mc_exchange $fd "debugctreehold off\r\n"] "OK\r\n"
        wait_for {[mc_stat $rd curr_items] == [llength $live]}
        ctd_check $rd $model $live {t.big.19 t.big.0.1} t {t.keep}
    } {}

    test {increments racing a delete on the deleted subtree apply whole (and leave with it) or answer NOT_FOUND} {
        set p2 {r {} r.keep r}
        ct_make_tree $fd $p2
        assert_equal [mc_exchange $fd "ctobj r.x parent=r\r\nctincr r.keep 1 103 @$T0 11\r\n"] "CREATED\r\nSTORED\r\n"
        ct_model_add model {r.keep r} 1 {103 104 107} $T0 11
        lappend live r r.keep
        ct_build_subtree $fd r.x 4 500
        set race [mc_connect]
        set lines {}
        for {set i 0} {$i < 4000} {incr i} {
            lappend lines "ctincr r.x.[expr {$i % 4}].[expr {$i % 500}] 1 103 @[expr {$T0 + 3600 * ($i % 48)}] 2"
        }
        mc_send $race [join [lmap l $lines { string cat $l "\r\n" }] ""]
        assert_equal [mc_exchange $fd "delete r.x\r\n"] "DELETED\r\n"
        set seen [dict create STORED 0 NOT_FOUND 0]
        foreach l $lines {
            set got [mc_readline $race]
            if {![dict exists $seen $got]} { fail "$l: [visible $got]" }
            dict incr seen $got
        }
        ctd_check $rd $model $live {r.x r.x.0 r.x.3.499} r {r.keep}
        expr {[dict get $seen STORED] + [dict get $seen NOT_FOUND]}
    } 4000

    test {a delete released in the background while another connection reads: every read exact} {
        assert_equal [mc_exchange $fd "ctobj t.big2 parent=t\r\n"] "CREATED\r\n"
        ct_build_subtree $fd t.big2 20 1000
        assert_equal [mc_exchange $fd "delete t.big2\r\n"] "DELETED\r\n"
        set reads 0
        while {[mc_stat $rd ctree_releasing] > 0 || $reads == 0} {
            ctd_check $rd $model $live {t.big2 t.big2.0.0 t.big2.19.999} t {t.keep}
            incr reads
        }
        wait_for {[mc_stat $rd curr_items] == [llength $live]}
        ctd_check $rd $model $live {t.big2 t.big2.5 t.big2.0.0} t {t.keep}
        assert_equal [ct_server_periods $rd] [ct_model_periods $model]
    } {}

    test {the server stops with a subtree release held part-way} {
        assert_equal [mc_exchange $fd "ctobj t.big3 parent=t\r\n"] "CREATED\r\n"
        ct_build_subtree $fd t.big3 5 1000
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete t.big3\r\ndebugctreehold 2000\r\n"] "OK\r\nDELETED\r\nOK\r\n"
        wait_for {[mc_stat $rd ctree_releasing] == 5006 - 2000}
        ctd_check $rd $model $live {t.big3 t.big3.4.999 t.big3.0.0} t {t.keep}
    } {}
}

# Memory: what a deleted subtree still holds is given back before an
# increment that finds no room under -m is refused.
start_server {tags {ctree mcds-only} args {-m 2 -I 512k}} {
    set fd [mc_connect]

    test {-m: increments that find no room first finish a held release} {
        assert_equal [mc_exchange $fd "ctdef 1 101,107\r\nctobj m\r\nctobj big\r\nctobj big.x parent=big\r\n"] \
            [string repeat "CREATED\r\n" 4]
        lassign [ct_fill $fd big.x $T0] n last
        assert_equal $last "SERVER_ERROR out of memory storing object"
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete big\r\n"] "OK\r\nDELETED\r\n"
        assert_equal [mc_stat $fd ctree_releasing] 2
        # as many new periods in m as big.x held (big held as many again)
        set lines {}
        for {set i 0} {$i < $n} {incr i} { lappend lines "ctincr m 1 101 @[expr {$T0 + $i}] 1" }
        ct_bulk $fd $lines STORED
        assert_equal [mc_exchange $fd "ctget m 1 107 1\r\n"] "VALUE m 1 107 1 $n 0\r\nEND\r\n"
        mc_stat $fd ctree_releasing
    } 0
}

# flush_all takes every tree-counter object out of the keyspace while the
# release of a deleted subtree runs on the main thread. A child whose last
# reference the flush dropped waits for the ctree lock to end itself; the
# release walking its subtree must not take a reference on it then (a
# double free, the child's memory read after the release freed it: found
# by ASan in the replication test's flush_all).
start_server {tags {ctree mcds-only}} {
    test {flush_all while deleted subtrees are released: no crash, every object gone, nothing left to release} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 1 103,104\r\n"
        for {set r 0} {$r < 12} {incr r} {
            set batch "ctobj root$r\r\n"
            for {set i 0} {$i < 1500} {incr i} { append batch "ctobj k${r}_$i parent=root$r\r\n" }
            assert_equal [mc_exchange $fd $batch] [string repeat "CREATED\r\n" 1501]
            mc_exchange $fd "delete root$r\r\nflush_all\r\n"
        }
        wait_for {[mc_stat $fd ctree_releasing] == 0} 200 50
        list [mc_stat $fd ctree_objects] [mc_stat $fd ctree_releasing] [mc_exchange $fd "ctinfo k0_1\r\n"]
    } [list 0 0 "NOT_FOUND\r\n"]
}
