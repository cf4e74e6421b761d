# Several OS processes hammer the same keys at once; the totals must be
# exact. Each helper is bounded in operations and in time.

set ::worker_script [file join [srcdir] t helpers mc_worker.tcl]

# run_workers mode key n count: start n helper processes, wait for them all,
# return the sum of their retry counts.
proc run_workers {mode key n count} {
    set hs {}
    for {set i 0} {$i < $n} {incr i} {
        lappend hs [exec_bg [info nameofexecutable] $::worker_script [srcdir] \
            [srv port] $mode $key $count 120 w$i]
    }
    set retries 0
    foreach h $hs {
        set out [wait_bg $h 150]
        if {![regexp {ok \S+ \d+ retries (\d+)} $out -> r]} {
            fail "worker output: [visible $out]"
        }
        incr retries $r
    }
    return $retries
}

start_server {tags {concurrency}} {
    set fd [mc_connect]

    test {4 processes x 500 incr on one key add up to 2000} {
        assert_equal [mc_set $fd ctr 0] STORED
        run_workers incr ctr 4 500
        mc_get $fd ctr
    } 2000

    test {4 processes x 150 gets/cas increments on one key add up to 600} {
        assert_equal [mc_set $fd casctr 0] STORED
        set retries [run_workers cas casctr 4 150]
        verbose "cas retries: $retries"
        string trimright [mc_get $fd casctr]
    } 600

    test {4 processes x 300 appends on one key lose nothing} {
        assert_equal [mc_set $fd log {}] STORED
        run_workers append log 4 300
        set v [mc_get $fd log]
        assert_equal [string length $v] [expr {4 * 300 * 3}]
        set counts {}
        foreach part [split [string trimright $v ,] ,] { dict incr counts $part }
        lsort -stride 2 [dict get $counts]
    } {w0 300 w1 300 w2 300 w3 300}

    test {incr, cas and append at the same time on different keys} {
        mc_exchange $fd "set m1 0 0 1\r\n0\r\nset m2 0 0 1\r\n0\r\nset m3 0 0 0\r\n\r\n"
        set hs {}
        foreach {mode key} {incr m1 incr m1 cas m2 cas m2 append m3 append m3} {
            lappend hs [exec_bg [info nameofexecutable] $::worker_script [srcdir] \
                [srv port] $mode $key 200 120 $mode]
        }
        foreach h $hs { wait_bg $h 150 }
        list [mc_get $fd m1] [string trimright [mc_get $fd m2]] [string length [mc_get $fd m3]]
    } [list 400 400 [expr {2 * 200 * [string length append,]}]]
}
