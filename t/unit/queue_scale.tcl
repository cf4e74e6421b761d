# Queue costs that must not grow with the number of queues or messages
# (doc/protocol.md, "3. Queues"): the timer that runs out leases visits
# only the queues that have something due, and qstats answers in constant
# time whatever the queue holds. Each is checked by the CPU time the server
# uses (clock ticks from /proc, which other load on the machine does not
# inflate) against a bound far below what the old linear costs took.

start_server {tags {queue mcds-only valgrind:skip sanitizer:skip} args {-m 512}} {
    set fd [mc_connect]

    test {50,000 queues with leases running out over two seconds: the timer's CPU stays small} {
        set batch {}
        for {set i 0} {$i < 50000} {incr i} {
            # Leases from 0.5 s to 2.5 s, 0.04 ms apart.
            set lease [format %.3f [expr {0.5 + $i / 25000.0}]]
            append batch "qpush many$i 0 0 1 noreply\r\nx\r\nqpop many$i lease=$lease\r\n"
            if {$i % 2000 == 1999} { mc_send $fd $batch; set batch {} }
        }
        mc_send $fd $batch
        for {set i 0} {$i < 50000} {incr i} {
            if {![string match "ITEM *" [mc_readline $fd]]} { fail "pop $i" }
            mc_readline $fd
            assert_equal [mc_readline $fd] END
        }
        set before [proc_cpu_ticks [srv pid]]
        wait_for {[mc_stat $fd queue_in_flight] == 0} 100 50
        set used [expr {[proc_cpu_ticks [srv pid]] - $before}]
        verbose "$used ticks while the leases ran out"
        assert_true {$used < 60} "the server used $used ticks of CPU while 50,000 leases ran out"
        mc_stat $fd queue_ready
    } 50000

    test {qstats on a queue of 200,000 ready messages answers in constant time} {
        set batch [string repeat "qpush big 0 0 1 noreply\r\nx\r\n" 10000]
        set t0 [clock seconds]
        for {set i 0} {$i < 20} {incr i} { mc_send $fd $batch }
        assert_equal [q_stat $fd big ready] 200000
        set before [proc_cpu_ticks [srv pid]]
        mc_exchange $fd [string repeat "qstats big\r\n" 2000]
        set used [expr {[proc_cpu_ticks [srv pid]] - $before}]
        assert_true {$used < 50} "2000 qstats on 200,000 messages took $used ticks"
        # the oldest was pushed after t0: its age is at most the time since
        assert_range [q_stat $fd big age_oldest_ready] 0 [expr {[clock seconds] - $t0}]
    }
}
