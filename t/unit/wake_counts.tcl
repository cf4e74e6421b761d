# Wakes of blocking reads, counted (doc/performance.md, "Tail latency"):
# park_wakes counts the waits a structure served, park_wakes_remote those
# served by a thread other than the waiter's worker, park_wakes_direct
# those of them whose answer that thread wrote to the socket itself (a
# qpop over plain TCP whose earlier replies were all written). With -t 2,
# connections opened one after the other go to the two workers in turn,
# so c1 and c3 share a worker and c2 is on the other. Nothing here
# measures time.

# wake_counts fd: the three counters, as a list.
proc wake_counts {fd} {
    list [mc_stat $fd park_wakes] [mc_stat $fd park_wakes_remote] [mc_stat $fd park_wakes_direct]
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
    } {1 0 0}

    test {a push serving a waiter on the other worker counts a remote wake, answered directly} {
        set before [wake_counts $c1]
        mc_send $c2 "qpop wk2 wait=100\r\n"
        q_wait_waiters $c1 wk2 1
        set a [q_push $c1 wk2 remote]
        assert_equal [mc_exchange $c2 ""] "[q_item $a 0 remote 1]END\r\n"
        wake_delta $before [wake_counts $c1]
    } {1 1 1}

    test {a wait that ends unserved counts no wake} {
        set before [wake_counts $c1]
        assert_equal [mc_exchange $c2 "qpop wk3 wait=0.2\r\n"] "END\r\n"
        wake_delta $before [wake_counts $c1]
    } {0 0 0}

    test {a list's waiting pop is counted as a queue's is} {
        set before [wake_counts $c1]
        mc_send $c2 "lpop wk4 wait=100\r\n"
        l_waiters $c1 1
        assert_equal [mc_exchange $c1 "rpush wk4 1\r\nx\r\n"] "1\r\n"
        assert_equal [mc_exchange $c2 ""] [l_vals wk4 x]
        wake_delta $before [wake_counts $c1]
    } {1 1 1}

    test {a list pop answered directly comes before what the waiter pipelined after it} {
        set before [wake_counts $c1]
        mc_send $c1 "version\r\n"
        set version "[mc_readline $c1]\r\n"
        mc_send $c2 "lpop wk8 3 wait=100\r\nversion\r\n"
        l_waiters $c1 1
        assert_equal [mc_exchange $c1 "rpush wk8 2 2\r\nab\r\ncd\r\n"] "2\r\n"
        set want "[l_vals wk8 {ab cd}]$version"
        list [string equal [mc_read_bytes $c2 [string length $want]] $want] \
            [wake_delta $before [wake_counts $c1]]
    } {1 {1 1 1}}

    test {a list pop answered directly, then the client hangs up: nothing goes back} {
        # c5 lands on c2's worker; c6 only keeps the turns as the later
        # tests expect them.
        set c5 [mc_connect]
        set c6 [mc_connect]
        close $c6
        set before [wake_counts $c1]
        mc_send $c5 "lpop wk9 wait=100\r\n"
        l_waiters $c1 1
        assert_equal [mc_exchange $c1 "rpush wk9 4\r\nonly\r\n"] "1\r\n"
        assert_equal [mc_exchange $c5 ""] [l_vals wk9 only]
        set open [mc_stat $c1 curr_connections]
        close $c5
        wait_for {[mc_stat $c1 curr_connections] < $open} 100 20
        list [wake_delta $before [wake_counts $c1]] [mc_exchange $c1 "llen wk9\r\n"]
    } [list {1 1 1} "0\r\n"]

    test {an answer written directly comes before the replies of what the waiter pipelined after it} {
        set before [wake_counts $c1]
        mc_send $c1 "version\r\n"
        set version "[mc_readline $c1]\r\n"
        mc_send $c2 "qpop wk5 wait=100\r\nversion\r\n"
        q_wait_waiters $c1 wk5 1
        set a [q_push $c1 wk5 first]
        set want "[q_item $a 0 first 1]END\r\n$version"
        list [string equal [mc_read_bytes $c2 [string length $want]] $want] \
            [wake_delta $before [wake_counts $c1]]
    } {1 {1 1 1}}

    test {a qpop served directly and then the client hangs up: the message stays leased} {
        set c4 [mc_connect]
        assert_equal [mc_exchange $c4 "qcreate wk6 lease=5\r\n"] "CREATED\r\n"
        set before [wake_counts $c1]
        mc_send $c4 "qpop wk6 wait=100\r\n"
        q_wait_waiters $c1 wk6 1
        set a [q_push $c1 wk6 kept]
        assert_equal [mc_exchange $c4 ""] "[q_item $a 0 kept 1]END\r\n"
        set open [mc_stat $c1 curr_connections]
        close $c4
        wait_for {[mc_stat $c1 curr_connections] < $open} 100 20
        set counts [q_counts $c1 wk6]
        assert_equal [mc_exchange $c1 "debugtime 6\r\n"] "OK\r\n"
        list [wake_delta $before [wake_counts $c1]] $counts \
            [string equal [mc_exchange $c1 "qpop wk6\r\n"] "[q_item $a 0 kept 2]END\r\n"]
    } {{1 1 1} {0 0 1} 1} {debugtime}
}

# A waiter whose client has not read a large earlier reply is answered
# after it, whichever thread writes the answer: the worker (while the reply
# is still queued in the connection, or in the kernel unacknowledged) or
# the pusher's thread (once the kernel holds it all, acknowledged).
# 900,000 bytes stay under the 1 MB a connection queues before it stops
# reading, so the qpop behind the get waits while the reply is unread.
start_server {tags {queue mcds-only} args {-t 2 -I 2m}} {
    set c1 [mc_connect]
    set c2 [mc_connect]

    test {a waiter with a large reply still unread gets its answer after it} {
        set big [string repeat x 900000]
        assert_equal [mc_exchange $c1 "set big 0 0 [string length $big]\r\n$big\r\n"] "STORED\r\n"
        mc_send $c2 "get big\r\nqpop wk7 wait=100\r\n"
        q_wait_waiters $c1 wk7 1
        set a [q_push $c1 wk7 after]
        set want "VALUE big 0 [string length $big]\r\n$big\r\nEND\r\n[q_item $a 0 after 1]END\r\n"
        string equal [mc_read_bytes $c2 [string length $want]] $want
    } 1
}
