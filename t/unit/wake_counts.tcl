# Wakes of blocking reads, counted (doc/performance.md, "Tail latency"):
# park_wakes counts the waits a structure served, park_wakes_remote those
# served by a thread other than the waiter's worker (its worker has to be
# woken to answer). With -t 2, connections opened one after the other go
# to the two workers in turn, so c1 and c3 share a worker and c2 is on the
# other. Nothing here measures time.

# wake_counts fd: the two counters, as a list.
proc wake_counts {fd} {
    list [mc_stat $fd park_wakes] [mc_stat $fd park_wakes_remote]
}

# wake_delta before after: after - before, element by element.
proc wake_delta {before after} {
    lmap b $before a $after { expr {$a - $b} }
}

start_server {tags {queue mcds-only} args {-t 2}} {
    set c1 [mc_connect]
    set c2 [mc_connect]
    set c3 [mc_connect]
    mc_exchange $c3 ""

    test {a push serving a waiter on its own worker counts a wake, not a remote one} {
        set before [wake_counts $c1]
        mc_send $c3 "qpop wk1 wait=100\r\n"
        q_wait_waiters $c1 wk1 1
        set a [q_push $c1 wk1 local]
        assert_equal [mc_exchange $c3 ""] "[q_item $a 0 local 1]END\r\n"
        wake_delta $before [wake_counts $c1]
    } {1 0}

    test {a push serving a waiter on the other worker counts a remote wake} {
        set before [wake_counts $c1]
        mc_send $c2 "qpop wk2 wait=100\r\n"
        q_wait_waiters $c1 wk2 1
        set a [q_push $c1 wk2 remote]
        assert_equal [mc_exchange $c2 ""] "[q_item $a 0 remote 1]END\r\n"
        wake_delta $before [wake_counts $c1]
    } {1 1}

    test {a wait that ends unserved counts no wake} {
        set before [wake_counts $c1]
        assert_equal [mc_exchange $c2 "qpop wk3 wait=0.2\r\n"] "END\r\n"
        wake_delta $before [wake_counts $c1]
    } {0 0}

    test {a list's waiting pop is counted as a queue's is} {
        set before [wake_counts $c1]
        mc_send $c2 "lpop wk4 wait=100\r\n"
        l_waiters $c1 1
        assert_equal [mc_exchange $c1 "rpush wk4 1\r\nx\r\n"] "1\r\n"
        assert_equal [mc_exchange $c2 ""] [l_vals wk4 x]
        wake_delta $before [wake_counts $c1]
    } {1 1}
}
