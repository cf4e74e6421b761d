# What a request costs the event loop, counted (doc/performance.md, "Tail
# latency"): conn_event_changes counts the times a connection's watched
# events changed (each costs epoll_ctl calls), worker_notifies the bytes
# written to a worker's notify pipe to wake it for posted calls. Nothing
# here measures time.

# counts fd: the two counters, as a list.
proc event_counts {fd} {
    list [mc_stat $fd conn_event_changes] [mc_stat $fd worker_notifies]
}

# delta before after: after - before, element by element.
proc counts_delta {before after} {
    lmap b $before a $after { expr {$a - $b} }
}

start_server {tags {conn mcds-only} args {-t 1}} {
    set fd [mc_connect]

    test {sets and gets change no connection's events and wake no worker} {
        set before [event_counts $fd]
        for {set i 0} {$i < 20} {incr i} {
            mc_exchange $fd "set ec$i 0 0 1\r\nx\r\nget ec$i\r\n"
        }
        counts_delta $before [event_counts $fd]
    } {0 0}

    test {a blocking qpop that waits and is woken changes none of its events} {
        set w [mc_connect]
        mc_exchange $w ""
        set before [event_counts $fd]
        mc_send $w "qpop ecq wait=100\r\n"
        q_wait_waiters $fd ecq 1
        set a [q_push $fd ecq hello]
        assert_equal [mc_exchange $w ""] "[q_item $a 0 hello 1]END\r\n"
        lindex [counts_delta $before [event_counts $fd]] 0
    } 0

    test {a push that wakes a waiter on its own worker writes no notify byte} {
        set w [mc_connect]
        mc_exchange $w ""
        set before [event_counts $fd]
        mc_send $w "qpop ecw wait=100\r\n"
        q_wait_waiters $fd ecw 1
        set a [q_push $fd ecw hi]
        assert_equal [mc_exchange $w ""] "[q_item $a 0 hi 1]END\r\n"
        lindex [counts_delta $before [event_counts $fd]] 1
    } 0
}
