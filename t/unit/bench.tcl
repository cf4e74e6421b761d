# The load generator, contrib/bench/mcds-bench (issue 4): it runs against
# the server under test, completes requests and counts no errors; its queue
# workload (issue 5) runs push + pop + ack cycles. Nothing here is timed:
# the assertions are on counts, never on rates or latencies.

set ::bench_bin [file join [builddir] contrib bench mcds-bench]

# bench_run args: run mcds-bench against the innermost server with a CSV
# line; returns that line as a dict keyed by the --csv-header names.
proc bench_run {args} {
    if {![file executable $::bench_bin]} { skip "mcds-bench is not built" }
    set names [split [string trim [exec $::bench_bin --csv-header]] ,]
    set h [exec_bg $::bench_bin -s 127.0.0.1:[srv port] -q --csv {*}$args]
    set out [wait_bg $h 60]
    set lines [split [string trim $out] \n]
    set values [split [lindex $lines end] ,]
    assert_equal [llength $values] [llength $names] "CSV line: $out"
    set d [dict create]
    foreach n $names v $values { dict set d $n $v }
    return $d
}

# The tool's meta mode needs a server that speaks meta (issue 3); the meta
# protocol itself is tested in its own unit, so here a server without it
# skips rather than fails.
proc bench_server_has_meta {} {
    set fd [mc_connect]
    set reply [mc_cmd $fd "mn"]
    mc_close $fd
    return [expr {$reply eq "MN"}]
}

start_server {tags {bench}} {
    test {mcds-bench: a text get/set run completes requests with no errors} {
        set r [bench_run -t 1 -c 4 -d 1 -w 0 -k 1000 -P bt:]
        assert_equal [dict get $r errors] 0
        assert_equal [expr {[dict get $r ops] > 0}] 1 "ops [dict get $r ops]"
        assert_equal [expr {[dict get $r ops_per_sec] > 0}] 1
        assert_equal [dict get $r protocol] text
    }

    test {mcds-bench: load mode stores exactly N new items} {
        set fd [mc_connect]
        set before [mc_stat $fd curr_items]
        set r [bench_run -t 2 -c 2 -D 8 -l 1000 -S 10 -P bl:]
        assert_equal [dict get $r stored] 1000
        assert_equal [dict get $r errors] 0
        assert_equal [mc_stat $fd curr_items] [expr {$before + 1000}]
        assert_equal [mc_get $fd bl:0] abcdefghij
        assert_equal [mc_get $fd bl:999] abcdefghij
        assert_equal [mc_get $fd bl:1000] {}
        mc_close $fd
    }

    test {mcds-bench: pipelined text multi-get of loaded keys hits every key} {
        set r [bench_run -t 1 -c 2 -D 4 -W get -m 10 -k 1000 -P bl: -d 1 -w 0]
        assert_equal [dict get $r errors] 0
        assert_equal [expr {[dict get $r hits] > 0}] 1
        assert_equal [dict get $r misses] 0
        assert_equal [dict get $r hits] [expr {10 * [dict get $r ops]}]
    }

    test {mcds-bench: meta protocol get/set and multi-get run with no errors} {
        if {![bench_server_has_meta]} { skip "the server does not answer mn with MN" }
        set r [bench_run -t 1 -c 2 -D 4 -p meta -k 1000 -P bl: -S 10 -d 1 -w 0]
        assert_equal [dict get $r errors] 0
        assert_equal [expr {[dict get $r ops] > 0}] 1
        set r [bench_run -t 1 -c 2 -p meta -W get -m 5 -k 1000 -P bl: -d 1 -w 0]
        assert_equal [dict get $r errors] 0
        assert_equal [dict get $r misses] 0
        assert_equal [dict get $r protocol] meta
    }

    test {mcds-bench: queue push + pop + ack cycles complete with no errors} {
        set r [bench_run -W queue -t 1 -c 4 -D 2 --queues 2 -P bq. -d 1 -w 0.2]
        assert_equal [dict get $r errors] 0
        assert_equal [dict get $r workload] queue
        assert_equal [expr {[dict get $r cycles] > 0}] 1 "cycles [dict get $r cycles]"
        # Every pop of a cycle follows its own push: none comes back empty.
        # Pops and acks in the window differ only by the cycles open at its
        # two edges: at most 2 x 4 connections x depth 2.
        assert_equal [dict get $r misses] 0
        set d [expr {abs([dict get $r hits] - [dict get $r cycles])}]
        assert_equal [expr {$d <= 16}] 1 "pops [dict get $r hits], cycles [dict get $r cycles]"

        # Acks riding on the next pop (qpop ack=): cycles complete, no error,
        # and after the run nothing is left in flight or ready.
        set r [bench_run -W queue --ack-with-pop -t 1 -c 4 -D 2 --queues 2 -P bqa. -d 1 -w 0.2]
        assert_equal [dict get $r errors] 0
        assert_equal [expr {[dict get $r cycles] > 0}] 1 "cycles [dict get $r cycles]"
        set fd [mc_connect]
        assert_equal [list [mc_stat $fd queue_in_flight] [mc_stat $fd queue_ready]] {0 0}
        mc_close $fd

        # Producers and blocking consumers: cycles complete, nothing fails.
        set r [bench_run -W queue -t 1 -c 4 --producers 1 -P bqs. -d 1 -w 0.2 \
                   --pop-wait 0.2]
        assert_equal [dict get $r errors] 0
        assert_equal [dict get $r producers] 1
        assert_equal [expr {[dict get $r cycles] > 0}] 1 "cycles [dict get $r cycles]"
    }
}
