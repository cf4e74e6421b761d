# Tree counters on several workers at once (-t 4): increments of different
# trees run in parallel, each tree under its own lock, while what trees
# share (a counter's active periods, the active list, the counts) is
# guarded apart. Six processes, three sending ctincr and three ctincrn
# requests spanning trees, on the leaves of four trees, with deltas that
# cross zero (cells come and go) and hours over two weeks (new periods
# keep coming): at the end every value equals the recomputation from the
# accepted increments, parents are the sums of their children, and
# ctperiods counts, for every period, exactly the objects holding a value
# in it. Bounded in operations and time (t/helpers/ctree_worker.tcl).

source [file join [srcdir] t support ctree.tcl]
set ::ct_worker [file join [srcdir] t helpers ctree_worker.tcl]

# ctperiods as a dict {counter code period} -> objects.
proc ct_periods {fd} {
    set out [dict create]
    foreach line [split [mc_exchange $fd "ctperiods count=10000 scan=10000000\r\n"] "\n"] {
        set line [string trimright $line "\r"]
        if {[regexp {^PERIOD (\d+) (\d+) (\d+) (\d+)$} $line -> c code p n]} { dict set out [list $c $code $p] $n }
    }
    return $out
}

start_server {tags {ctree concurrency mcds-only} args {-t 4}} {
    set fd [mc_connect]
    set parents {}
    set leaves {}
    foreach t {t0 t1 t2 t3} {
        dict set parents $t {}
        foreach m {a b} {
            dict set parents $t.$m $t
            foreach l {x y} {
                dict set parents $t.$m.$l $t.$m
                lappend leaves $t.$m.$l
            }
        }
    }
    set codes {103 104 106 107}
    mc_exchange $fd "ctdef 70 103,104,106,107\r\n"
    ct_make_tree $fd $parents

    test {ctree on 4 workers: 6 processes over 4 trees, ctincr and ctincrn; exact values and active periods} {
        set t0 1609459200
        set hs {}
        for {set w 0} {$w < 6} {incr w} {
            # each process works mostly on one tree, and on every tree now and then
            set mine [lsearch -all -inline $leaves "t[expr {$w % 4}].*"]
            set pick [concat $mine $mine $mine $leaves]
            lappend hs [exec_bg [info nameofexecutable] $::ct_worker [srcdir] [srv port] \
                [expr {2000 + $w}] [expr {$w < 3 ? 1500 : 300}] 120 70 [join $pick ,] $t0 [expr {14 * 86400}] \
                [expr {$w < 3 ? 1 : 5}]]
        }
        set model [dict create]
        set accepted 0
        foreach h $hs {
            set out [wait_bg $h 150]
            if {![regexp {ok (\d+) (\d+)\n?$} $out -> a r]} { fail "worker output: [visible [string range $out end-300 end]]" }
            incr accepted $a
            foreach line [split $out \n] {
                if {![regexp {^A (\S+) (\d+) (-?\d+)$} $line -> leaf t delta]} continue
                ct_model_add model [ct_path $parents $leaf] 70 $codes $t $delta
            }
        }
        set vals [dict create]
        set holders [dict create]
        foreach o [dict keys $parents] {
            dict set vals $o [ct_values $fd $o]
            assert_equal [ct_lines [dict get $vals $o]] [ct_lines [ct_model_of $model $o]] "values of $o"
            dict for {k v} [dict get $vals $o] { dict incr holders $k }
        }
        dict for {o p} $parents {
            if {$p ne {} || [string match *.* $o]} continue
            foreach m [list $o.a $o.b] {
                set sum [dict create]
                foreach l [list $m.x $m.y] { dict for {k v} [dict get $vals $l] { dict incr sum $k $v } }
                assert_equal [ct_lines [dict get $vals $m]] [ct_lines [dict filter $sum script {k v} {expr {$v != 0}}]] "$m is its children's sum"
            }
        }
        set periods [ct_periods $fd]
        assert_equal [lsort [dict keys $periods]] [lsort [dict keys $holders]] "the periods ctperiods lists"
        dict for {k n} $holders {
            assert_equal [dict get $periods $k] $n "objects holding $k"
        }
        list [expr {$accepted >= 5000}] [expr {[dict size $periods] > 100}] \
            [expr {[mc_stat $fd ctree_values] == [tcl::mathop::+ {*}[dict values $holders]]}]
    } {1 1 1}
}
