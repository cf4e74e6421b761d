# Blocking pops (doc/protocol.md, "3. Queues", qpop wait=): a waiting
# connection is woken by a push from another connection, by a delayed
# message coming due and by a lease running out (both through debugtime
# from another connection), or answers END when its wait ends. Waiters are
# served first come first served; a waiter that disconnects is forgotten;
# commands pipelined behind a waiting qpop are answered after it, in
# order; idle waiters cost no CPU. Waits are short (wait=0.3) where a test
# needs them to end, and nothing here measures time: the tests wait for the
# server to report its waiters (qstats) and then assert replies.

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {a waiting qpop is woken by a push from another connection} {
        set w [mc_connect]
        mc_send $w "qpop b1 wait=100\r\n"
        q_wait_waiters $fd b1 1
        mc_no_reply $w 100
        set a [q_push $fd b1 hello 5]
        assert_equal [mc_exchange $w ""] "[q_item $a 5 hello 1]END\r\n"
        assert_equal [q_stat $fd b1 waiters] 0
        assert_equal [q_stat $fd b1 in_flight] 1
        mc_exchange $w "qack b1 $a\r\n"
    } "ACKED\r\n"

    test {a waiting qpop gets the waiter's lease} {
        set w [mc_connect]
        mc_send $w "qpop b2 lease=5 wait=100\r\n"
        q_wait_waiters $fd b2 1
        set a [q_push $fd b2 x]
        assert_equal [mc_exchange $w ""] "[q_item $a 0 x 1]END\r\n"
        set r [mc_exchange $fd "qpending b2\r\n"]
        if {![regexp "^PENDING $a 0 1 1 (\\d+)\r\nEND\r\n$" $r -> left]} { fail "qpending: '[visible $r]'" }
        assert_range $left [expr {5000 - 2000 * [time_factor]}] 5000
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek b2\r\n"] "OK\r\n[q_item $a 0 x 1]END\r\n"
    } {} {debugtime}

    test {a waiting qpop for 3 is woken by the first push with what is there} {
        set w [mc_connect]
        mc_send $w "qpop b3 3 wait=100\r\n"
        q_wait_waiters $fd b3 1
        set a [q_push $fd b3 one]
        assert_equal [mc_exchange $w ""] "[q_item $a 0 one 1]END\r\n"
        set b [q_push $fd b3 two]
        mc_exchange $fd "qpeek b3 5\r\n"
    } "ITEM * 0 3 0\r\ntwo\r\nEND\r\n"

    test {a waiting qpop is woken by a delayed message coming due (debugtime elsewhere)} {
        set w [mc_connect]
        set a [q_push $fd b4 later 3 10]
        mc_send $w "qpop b4 wait=100\r\n"
        q_wait_waiters $fd b4 1
        assert_equal [mc_exchange $fd "debugtime 5\r\n"] "OK\r\n"
        mc_no_reply $w 100
        assert_equal [q_stat $fd b4 waiters] 1
        assert_equal [mc_exchange $fd "debugtime 6\r\n"] "OK\r\n"
        mc_exchange $w ""
    } "ITEM * 3 5 1\r\nlater\r\nEND\r\n" {debugtime}

    test {a waiting qpop is woken by a lease running out (debugtime elsewhere)} {
        set w [mc_connect]
        set a [q_push $fd b5 job]
        assert_equal [mc_exchange $fd "qpop b5 lease=10\r\n"] "[q_item $a 0 job 1]END\r\n"
        mc_send $w "qpop b5 wait=100\r\n"
        q_wait_waiters $fd b5 1
        assert_equal [mc_exchange $fd "debugtime 11\r\n"] "OK\r\n"
        assert_equal [mc_exchange $w ""] "[q_item $a 0 job 2]END\r\n"
        list [q_stat $fd b5 lease_expired] [mc_exchange $w "qack b5 $a\r\n"] [mc_exchange $fd "qack b5 $a\r\n"]
    } [list 1 "ACKED\r\n" "NOT_FOUND\r\n"] {debugtime}

    test {a waiting qpop is woken by a release from another connection} {
        set w [mc_connect]
        set a [q_push $fd b6 job]
        mc_exchange $fd "qpop b6\r\n"
        mc_send $w "qpop b6 wait=100\r\n"
        q_wait_waiters $fd b6 1
        assert_equal [mc_exchange $fd "qrelease b6 $a\r\n"] "RELEASED\r\n"
        assert_equal [mc_exchange $w ""] "[q_item $a 0 job 2]END\r\n"
    }

    test {a wait that ends answers END, and leaves no waiter behind} {
        set w [mc_connect]
        assert_equal [mc_exchange $w "qpop b7 wait=0.3\r\nqpop b7 5 lease=5 wait=0.2\r\n"] "END\r\nEND\r\n"
        assert_equal [q_stat $fd b7 waiters] 0
        # A push now stays ready: no forgotten waiter takes it.
        set a [q_push $fd b7 x]
        mc_exchange $fd "qpeek b7\r\nqpending b7\r\n"
    } "ITEM * 0 1 0\r\nx\r\nEND\r\nEND\r\n"

    test {a wait on a missing queue creates it} {
        set w [mc_connect]
        assert_equal [mc_exchange $w "qstats b8\r\nqpop b8 wait=0.2\r\n"] "NOT_FOUND\r\nEND\r\n"
        q_stat $fd b8 ready
    } 0

    test {waiters are served first come first served} {
        set ws {}
        foreach i {1 2 3} {
            set w [mc_connect]
            lappend ws $w
            mc_send $w "qpop b9 wait=100\r\n"
            q_wait_waiters $fd b9 $i
        }
        lassign $ws w1 w2 w3
        set a [q_push $fd b9 first]
        assert_equal [mc_exchange $w1 ""] "[q_item $a 0 first 1]END\r\n"
        assert_equal [q_stat $fd b9 waiters] 2
        set b [q_push $fd b9 second]
        assert_equal [mc_exchange $w2 ""] "[q_item $b 0 second 1]END\r\n"
        assert_equal [q_stat $fd b9 waiters] 1
        set c [q_push $fd b9 third]
        assert_equal [mc_exchange $w3 ""] "[q_item $c 0 third 1]END\r\n"
        q_stat $fd b9 waiters
    } 0

    test {a served waiter queues again at the back} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "qpop b10 wait=100\r\n"
        q_wait_waiters $fd b10 1
        mc_send $w2 "qpop b10 wait=100\r\n"
        q_wait_waiters $fd b10 2
        set a [q_push $fd b10 a]
        # w1 is served, and queues again behind w2.
        mc_expect $w1 "[q_item $a 0 a 1]END\r\n"
        mc_send $w1 "qpop b10 wait=100\r\n"
        q_wait_waiters $fd b10 2
        set b [q_push $fd b10 b]
        assert_equal [mc_exchange $w2 ""] "[q_item $b 0 b 1]END\r\n"
        set c [q_push $fd b10 c]
        assert_equal [mc_exchange $w1 ""] "[q_item $c 0 c 1]END\r\n"
    }

    test {200 waiters and 200 pushes: each waiter gets exactly one message} {
        set ws {}
        for {set i 0} {$i < 200} {incr i} {
            set w [mc_connect]
            lappend ws $w
            mc_send $w "qpop many wait=100\r\n"
        }
        q_wait_waiters $fd many 200
        set cmds {}
        set pushed {}
        for {set i 0} {$i < 200} {incr i} {
            append cmds "qpush many 0 0 [string length m$i]\r\nm$i\r\n"
            lappend pushed m$i
        }
        set r [mc_exchange $fd $cmds]
        assert_equal [regexp -all {PUSHED \d+\r\n} $r] 200
        set got {}
        foreach w $ws {
            set r [mc_exchange $w ""]
            if {![regexp {^ITEM \d+ 0 \d+ 1\r\n(m\d+)\r\nEND\r\n$} $r -> payload]} {
                fail "a waiter got '[visible $r]'"
            }
            lappend got $payload
            mc_close $w
        }
        assert_equal [lsort $got] [lsort $pushed]
        list [q_stat $fd many ready] [q_stat $fd many in_flight] [q_stat $fd many waiters]
    } {0 200 0}

    test {a waiter that disconnects is forgotten: the next push stays ready} {
        set w [mc_connect]
        mc_send $w "qpop b11 wait=100\r\n"
        q_wait_waiters $fd b11 1
        mc_close $w
        q_wait_waiters $fd b11 0
        set a [q_push $fd b11 kept]
        mc_exchange $fd "qpeek b11\r\nqpending b11\r\n"
    } "ITEM * 0 4 0\r\nkept\r\nEND\r\nEND\r\n"

    test {a waiter that disconnects is skipped: the next live waiter gets the push} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "qpop b12 wait=100\r\n"
        q_wait_waiters $fd b12 1
        mc_send $w2 "qpop b12 wait=100\r\n"
        q_wait_waiters $fd b12 2
        mc_close $w1
        q_wait_waiters $fd b12 1
        set a [q_push $fd b12 live]
        mc_exchange $w2 ""
    } "ITEM * 0 4 1\r\nlive\r\nEND\r\n"

    test {a message served to a waiter that just disconnected goes back to the queue} {
        # The push may reach the waiter before the server sees the close:
        # either way the message must end up ready, not in flight or lost.
        foreach i {1 2 3 4 5} {
            set w [mc_connect]
            mc_send $w "qpop b13_$i wait=100\r\n"
            q_wait_waiters $fd b13_$i 1
            mc_close $w
            set a [q_push $fd b13_$i m$i]
            wait_for {[q_stat $fd b13_$i in_flight] == 0 && [q_stat $fd b13_$i waiters] == 0} 100 50
            # Delivered or not, it is ready again (a delivery that reached
            # the closed connection keeps its count).
            assert_match "ITEM $a 0 2 \[01\]\r\nm$i\r\nEND\r\n" [mc_exchange $fd "qpeek b13_$i 5\r\n"]
        }
    }

    test {commands pipelined after a waiting qpop are answered after it, in order} {
        set w [mc_connect]
        mc_send $w [string cat "qpop b14 wait=100\r\nqpush b14 0 0 1\r\nz\r\nqpeek b14 5\r\n" \
                        "qpop b14x wait=0.2\r\nget nokey\r\nset k 0 0 1\r\nv\r\nget k\r\n"]
        q_wait_waiters $fd b14 1
        # Nothing behind the wait ran yet: z is not queued, k not set.
        assert_equal [mc_exchange $fd "qpeek b14\r\nget k\r\n"] "END\r\nEND\r\n"
        set a [q_push $fd b14 a]
        set r [mc_exchange $w ""]
        if {![regexp {PUSHED (\d+)} $r -> z]} { fail "no PUSHED in '[visible $r]'" }
        assert_equal $r [string cat "[q_item $a 0 a 1]END\r\nPUSHED $z\r\n[q_item $z 0 z 0]END\r\n" \
                             "END\r\nEND\r\nSTORED\r\nVALUE k 0 1\r\nv\r\nEND\r\n"]
    }

    test {a wait ending just as a push arrives loses nothing} {
        # Each round the push lands around the end of a 50 ms wait: the
        # waiter gets the message or END, and an undelivered message stays
        # ready (the next round's pop may take it at once).
        set w [mc_connect]
        set delivered 0
        for {set i 0} {$i < 20} {incr i} {
            mc_send $w "qpop race wait=0.05\r\n"
            sleep_ms [expr {30 + 2 * $i}]
            q_push $fd race r$i
            set r [mc_exchange $w ""]
            if {[regexp {^ITEM \d+ 0 \d+ 1\r\nr\d+\r\nEND\r\n$} $r]} {
                incr delivered
            } elseif {$r ne "END\r\n"} {
                fail "the waiter got '[visible $r]'"
            }
        }
        wait_for {[q_stat $fd race waiters] == 0}
        verbose "$delivered of 20 delivered to the waiter"
        assert_equal [list [q_stat $fd race in_flight] [q_stat $fd race ready]] \
            [list $delivered [expr {20 - $delivered}]]
        q_stat $fd race pushed
    } 20

    test {flush_all with a waiter parked: it gets END, and the next push is not lost} {
        set w [mc_connect]
        mc_send $w "qpop fl wait=100\r\n"
        q_wait_waiters $fd fl 1
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        set a [q_push $fd fl after]
        # The waiter was parked on the flushed queue: END (or the message,
        # were it moved to the new queue); either way nothing is lost.
        set r [mc_exchange $w ""]
        if {$r eq "END\r\n"} {
            assert_equal [mc_exchange $fd "qpeek fl\r\n"] "[q_item $a 0 after 0]END\r\n"
        } else {
            assert_equal $r "[q_item $a 0 after 1]END\r\n"
        }
        q_stat $fd fl waiters
    } 0

    test {idle waiters cost no CPU: 500 parked connections, a far delay and a long lease, 1 s} {
        set ws {}
        for {set i 0} {$i < 500} {incr i} {
            set w [mc_connect]
            lappend ws $w
            mc_send $w "qpop idle[expr {$i % 5}] wait=1000\r\n"
        }
        foreach q {idle0 idle1 idle2 idle3 idle4} { q_wait_waiters $fd $q 100 }
        # A far delay and a long lease pending on another queue: the
        # timer waits for them, it does not poll.
        q_push $fd idlet far 0 10000
        q_push $fd idlet leased
        assert_match "ITEM * 0 6 1\r\nleased\r\nEND\r\n" [mc_exchange $fd "qpop idlet lease=10000\r\n"]
        set pid [srv pid]
        set before [proc_cpu_ticks $pid]
        sleep_ms 1000
        set used [expr {[proc_cpu_ticks $pid] - $before}]
        # 100 ticks a second: 20 ticks is 0.2 s of CPU in 1 s.
        verbose "$used ticks of CPU in 1 s"
        assert_true {$used < 20} "the server used $used ticks of CPU in 1 s with 500 idle waiters"
        # Deleting the queues answers every waiter.
        mc_exchange $fd "delete idle0\r\ndelete idle1\r\ndelete idle2\r\ndelete idle3\r\ndelete idle4\r\n"
        foreach w $ws {
            assert_equal [mc_exchange $w ""] "END\r\n"
            mc_close $w
        }
        mc_stat $fd queue_waiters
    } 0
}
