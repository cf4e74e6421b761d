# Tree counters under concurrency: several OS processes increment random
# leaves of one tree whose limits are close to being reached. At the end
# every value equals the recomputation from the increments the server
# accepted, parents equal the sum of their children, coarser periods the
# sum of finer ones, and no limit is exceeded. Bounded in operations and
# time (t/helpers/ctree_worker.tcl).

source [file join [srcdir] t support ctree.tcl]
set ::ct_worker [file join [srcdir] t helpers ctree_worker.tcl]

start_server {tags {ctree concurrency mcds-only}} {
    set fd [mc_connect]
    set parents {root {} a root b root a1 a a2 a a3 a b1 b b2 b b3 b}
    set leaves {a1 a2 a3 b1 b2 b3}
    # object -> {counter type max}
    set limits {root {60 107 6000} a {60 104 900} b1 {60 103 40} a2 {60 106 700}}
    set codes {103 104 106 107}
    mc_exchange $fd "ctdef 60 103,104,106,107\r\n"
    ct_make_tree $fd $parents $limits

    test {6 processes x 600 increments on random leaves: exact values, no limit exceeded} {
        set t0 1609459200
        set hs {}
        for {set w 0} {$w < 6} {incr w} {
            lappend hs [exec_bg [info nameofexecutable] $::ct_worker [srcdir] [srv port] \
                [expr {1000 + $w}] 600 120 60 [join $leaves ,] $t0 [expr {3 * 86400}]]
        }
        set model [dict create]
        set refused 0
        foreach h $hs {
            set out [wait_bg $h 150]
            if {![regexp {ok (\d+) (\d+)\n?$} $out -> a r]} { fail "worker output: [visible [string range $out end-300 end]]" }
            incr refused $r
            foreach line [split $out \n] {
                if {![regexp {^A (\S+) (\d+) (-?\d+)$} $line -> leaf t delta]} continue
                ct_model_add model [ct_path $parents $leaf] 60 $codes $t $delta
            }
        }
        assert_true {$refused > 0} "no increment met a limit"
        set vals [dict create]
        foreach o [dict keys $parents] {
            dict set vals $o [ct_values $fd $o]
            assert_equal [ct_lines [dict get $vals $o]] [ct_lines [ct_model_of $model $o]]
        }
        # no limit exceeded
        dict for {o l} $limits {
            lassign $l c code max
            dict for {k v} [dict get $vals $o] {
                if {[lindex $k 1] == $code && $v > $max} { fail "$o: $k is $v, over its limit $max" }
            }
        }
        # parents are the sums of their children
        foreach p {root a b} {
            set sum [dict create]
            dict for {o pp} $parents {
                if {$pp eq $p} { dict for {k v} [dict get $vals $o] { dict incr sum $k $v } }
            }
            assert_equal [ct_lines [dict get $vals $p]] [ct_lines [dict filter $sum script {k v} {expr {$v != 0}}]]
        }
        set refused
    } {*}
}
