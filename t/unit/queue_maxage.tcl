# Message retention (doc/protocol.md, "3. Queues", qcreate maxage=): a
# message not acked within maxage of its push goes to the dead-letter
# queue as one past maxdeliver does (buried when the dead-letter queue
# cannot take it, never dropped), on the queue's timer. Time moves with
# debugtime only. A restart under --data-dir is in t/integration/persist.tcl.
# Helpers are in t/support/queue.tcl.

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qcreate maxage=: shown in qstats as max_age_ms (fractions allowed); 0 without it} {
        assert_equal [mc_exchange $fd "qcreate a1 maxage=2\r\nqcreate a2 maxage=1.5\r\nqcreate a3\r\n"] \
            "CREATED\r\nCREATED\r\nCREATED\r\n"
        list [q_stat $fd a1 max_age_ms] [q_stat $fd a2 max_age_ms] [q_stat $fd a3 max_age_ms] \
            [q_stat $fd a1 expired_age] [q_stat $fd a1 dlq]
    } {2000 1500 0 0 a1:dead}

    test {qcreate maxage=: bad values are CLIENT_ERROR and create nothing} {
        set r {}
        foreach v {maxage=0 maxage= maxage=-1 maxage=abc maxage=1x maxage=100000001 maxage=0.0001 MAXAGE=5} {
            append r [mc_exchange $fd "qcreate a4 $v\r\n"]
        }
        assert_equal $r [string cat [string repeat "CLIENT_ERROR bad value for maxage\r\n" 7] \
            "CLIENT_ERROR unknown option MAXAGE\r\n"]
        mc_exchange $fd "qstats a4\r\n"
    } "NOT_FOUND\r\n"

    test {qcreate maxage=: the dead-letter queue rules of maxdeliver apply} {
        assert_equal [mc_set $fd a5plain v] STORED
        mc_exchange $fd [string cat "qcreate a5 maxage=1 dlq=a5\r\n" "qcreate a5 maxage=1 dlq=a5plain\r\n" \
                             "qcreate [string repeat q 246] maxage=1\r\n"]
    } [string cat "CLIENT_ERROR dlq must name another queue\r\n" \
           "CLIENT_ERROR dlq key holds another type of value\r\n" \
           "CLIENT_ERROR queue name too long for the default dead-letter queue, give dlq=\r\n"]

    test {a ready message older than maxage moves to the dead-letter queue, id and flags kept} {
        mc_exchange $fd "qcreate r1 maxage=10\r\n"
        set a [q_push $fd r1 old 7]
        assert_equal [mc_exchange $fd "debugtime 5\r\n"] "OK\r\n"
        set b [q_push $fd r1 young 8]
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpeek r1 5\r\n"] \
            "OK\r\n[q_item $a 7 old 0][q_item $b 8 young 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r1 5\r\nqpeek r1:dead 5\r\n"] \
            "OK\r\n[q_item $b 8 young 0]END\r\n[q_item $a 7 old 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpeek r1\r\nqpeek r1:dead 5\r\n"] \
            "OK\r\nEND\r\n[q_item $a 7 old 0][q_item $b 8 young 0]END\r\n"
        list [q_stat $fd r1 expired_age] [q_stat $fd r1 dead] [q_stat $fd r1 ready] [q_stat $fd r1:dead ready]
    } {2 2 0 2} {debugtime}

    test {age counts from the push, whatever the priority: the oldest goes first} {
        mc_exchange $fd "qcreate r2 maxage=3\r\n"
        set a [q_push $fd r2 low 0 0 9000]
        mc_exchange $fd "debugtime 2\r\n"
        set b [q_push $fd r2 high 0 0 1]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r2 5\r\n"] "OK\r\n[q_item $b 0 high 0]END\r\n"
        q_stat $fd r2 expired_age
    } 1 {debugtime}

    test {the timer moves aged messages: a consumer waiting on the dead-letter queue gets one} {
        mc_exchange $fd "qcreate r3 maxage=5\r\n"
        set a [q_push $fd r3 late]
        set w [mc_connect]
        mc_send $w "qpop r3:dead wait=100\r\n"
        q_wait_waiters $fd r3:dead 1
        mc_send $fd "debugtime 6\r\n"
        assert_equal [mc_readline $fd] "OK"
        assert_equal [mc_exchange $w ""] "[q_item $a 0 late 1]END\r\n"
        mc_exchange $w "qack r3:dead $a:1\r\n"
    } "ACKED\r\n" {debugtime}

    test {a delayed message is checked when its delay ends: past maxage it is dead-lettered, never delivered} {
        mc_exchange $fd "qcreate r4 maxage=3\r\n"
        set a [q_push $fd r4 delayed 0 5]
        set b [q_push $fd r4 soon 0 1]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r4\r\n"] "OK\r\n[q_item $b 0 soon 0]END\r\n"
        assert_equal [list [q_stat $fd r4 delayed] [q_stat $fd r4 expired_age]] {1 0}
        assert_equal [mc_exchange $fd "debugtime 2\r\nqstats r4\r\n"] \
            [string cat "OK\r\n" [q_stats_reply 0 1 0 0 0 2 0 0 0 0 1 0 0 30000 0 0 r4:dead 3000 1]]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpop r4 5\r\n"] "OK\r\nEND\r\n"
        list [q_stat $fd r4 expired_age] [expr {[lmap m [q_pop $fd r4:dead 5] { lindex $m 0 }] eq [list $b $a]}]
    } {2 1} {debugtime}

    test {an in-flight message is not expired while leased: ack works past maxage} {
        mc_exchange $fd "qcreate r5 maxage=2\r\n"
        set a [q_push $fd r5 work]
        q_pop $fd r5 1 lease=100
        assert_equal [mc_exchange $fd "debugtime 50\r\nqstats r5\r\n"] \
            [string cat "OK\r\n" [q_stats_reply 0 0 1 0 0 1 1 0 0 0 0 0 0 30000 0 0 r5:dead 2000 0]]
        mc_exchange $fd "qack r5 $a:1\r\n"
    } "ACKED\r\n" {debugtime}

    test {a message back from a run-out lease or a release past maxage is dead-lettered} {
        mc_exchange $fd "qcreate r6 maxage=2\r\n"
        set a [q_push $fd r6 lease-ran-out]
        set b [q_push $fd r6 released]
        q_pop $fd r6 2 lease=5
        assert_equal [mc_exchange $fd "debugtime 3\r\nqrelease r6 $b:1\r\nqpeek r6\r\n"] "OK\r\nRELEASED\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 3\r\nqpop r6\r\n"] "OK\r\nEND\r\n"
        list [q_stat $fd r6 expired_age] [q_stat $fd r6 lease_expired] \
            [expr {[lsort [lmap m [q_pop $fd r6:dead 5] { lindex $m 0 }]] eq [lsort [list $a $b]]}]
    } {2 1 1} {debugtime}

    test {a dead-letter queue that cannot take it: buried, never dropped, placed once there is room} {
        mc_exchange $fd "qcreate r7full maxlen=1\r\nqcreate r7 maxage=1 dlq=r7full\r\n"
        set f [q_push $fd r7full filler]
        set a [q_push $fd r7 waiting]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r7\r\n"] "OK\r\nEND\r\n"
        assert_equal [list [q_stat $fd r7 buried] [q_stat $fd r7 expired_age] [q_stat $fd r7 dead]] {1 1 0}
        q_pop $fd r7full
        assert_equal [mc_exchange $fd "qack r7full $f\r\ndebugtime 2\r\n"] "ACKED\r\nOK\r\n"
        list [q_stat $fd r7 buried] [q_stat $fd r7 dead] [expr {[lmap m [q_pop $fd r7full] { lindex $m 0 }] == $a}]
    } {0 1 1} {debugtime}

    test {a dead letter's age starts again in its dead-letter queue} {
        mc_exchange $fd "qcreate r8dead maxage=5\r\nqcreate r8 maxage=1 dlq=r8dead\r\n"
        set a [q_push $fd r8 twice]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r8dead\r\n"] "OK\r\n[q_item $a 0 twice 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpeek r8dead\r\n"] "OK\r\n[q_item $a 0 twice 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r8dead\r\n"] "OK\r\nEND\r\n"
        q_stat $fd r8dead:dead ready
    } 1 {debugtime}

    test {maxage with maxdeliver: whichever comes first} {
        mc_exchange $fd "qcreate r9 maxage=100 maxdeliver=1 lease=1\r\n"
        set a [q_push $fd r9 x]
        q_pop $fd r9
        mc_exchange $fd "debugtime 2\r\n"
        list [q_stat $fd r9 dead] [q_stat $fd r9 expired_age] [expr {[lmap m [q_pop $fd r9:dead] { lindex $m 0 }] == $a}]
    } {1 0 1} {debugtime}

    test {many aged messages at once: all moved, none lost} {
        mc_exchange $fd "qcreate r10 maxage=1\r\n"
        for {set i 0} {$i < 1000} {incr i} { q_push $fd r10 m$i }
        mc_exchange $fd "debugtime 2\r\n"
        list [q_stat $fd r10 ready] [q_stat $fd r10 expired_age] [q_stat $fd r10:dead ready]
    } {0 1000 1000} {debugtime}
}
