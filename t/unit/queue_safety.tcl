# Queued messages leave only by the front door (doc/protocol.md, "3. Queues",
# "Where a message can go"): an ack, a purge or delete of its queue, or its
# queue's TTL. Every other path that could drop one answers an error or
# keeps the message where it is. Each test here counts the messages on
# every path that moves them: failed stores on a queue key (too large, out
# of memory; text, meta and binary), strict numbers on qpush, dead letters
# that cannot reach their dead-letter queue, receipts (a delivery that is no
# longer yours), Kestrel open reads, and waiters that vanish.

# Pushes n messages "m0".."m(n-1)" to q.
proc qs_push_n {fd q n} {
    set ids {}
    for {set i 0} {$i < $n} {incr i} { lappend ids [q_push $fd $q m$i] }
    return $ids
}

# The data of every ready message of q, in order (peeked, not taken).
proc qs_ready {fd q} {
    lmap it [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $it 2 }
}

start_server {tags {queue mcds-only} args {-I 2k -m 8}} {
    set fd [mc_connect]
    set big [string repeat x 4000]

    test {a too-large set on a queue key: SERVER_ERROR, the queue keeps its messages} {
        qs_push_n $fd tl1 2
        assert_equal [mc_exchange $fd "set tl1 0 0 4000\r\n$big\r\n"] \
            "SERVER_ERROR object too large for cache\r\n"
        list [q_counts $fd tl1] [qs_ready $fd tl1]
    } {{2 0 0} {m0 m1}}

    test {too-large add, replace, append, prepend, cas on a queue key: the size is checked first} {
        qs_push_n $fd tl2 2
        set r {}
        foreach line {"add tl2 0 0 4000" "replace tl2 0 0 4000" "append tl2 0 0 4000"
                      "prepend tl2 0 0 4000" "cas tl2 0 0 4000 1"} {
            append r [mc_exchange $fd "$line\r\n$big\r\n"]
        }
        assert_equal $r [string repeat "SERVER_ERROR object too large for cache\r\n" 5]
        qs_ready $fd tl2
    } {m0 m1}

    test {a too-large ms on a queue key: SERVER_ERROR, the queue keeps its messages} {
        qs_push_n $fd tl3 2
        assert_equal [mc_exchange $fd "ms tl3 4000 T0\r\n$big\r\n"] "SERVER_ERROR object too large for cache\r\n"
        assert_equal [mc_exchange $fd "ms tl3 4000 MS\r\n$big\r\n"] "SERVER_ERROR object too large for cache\r\n"
        qs_ready $fd tl3
    } {m0 m1}

    test {a too-large binary SET on a queue key: E2BIG, the queue keeps its messages} {
        qs_push_n $fd tl4 2
        set b [mc_connect]
        set r [bin_exchange $b [bin_pkt SET -key tl4 -ext [bin_store_ext 0 0] -value $big]]
        lappend r {*}[bin_exchange $b [bin_pkt SETQ -key tl4 -ext [bin_store_ext 0 0] -value $big]]
        mc_close $b
        list [lmap x $r { lrange $x 0 1 }] [qs_ready $fd tl4]
    } {{{SET E2BIG} {SETQ E2BIG}} {m0 m1}}

    test {qpush: a message of exactly -I bytes of data fits, whatever the queue's name} {
        set name [string repeat L 250]
        set data [string repeat d 2048]
        set r [mc_exchange $fd "qpush $name 0 0 2048\r\n$data\r\nqpush $name 0 0 2049\r\n${data}d\r\n"]
        regsub {^PUSHED \d+} $r {PUSHED N} r
        list $r [lindex [q_pop $fd $name] 0 2]
    } [list "PUSHED N\r\nSERVER_ERROR object too large for cache\r\n" [string repeat d 2048]]

    test {a too-large set on a cache value still removes the old value (memcached's rule)} {
        assert_equal [mc_set $fd tl5 old] STORED
        assert_equal [mc_exchange $fd "set tl5 0 0 4000\r\n$big\r\nget tl5\r\n"] \
            "SERVER_ERROR object too large for cache\r\nEND\r\n"
    } {}
}

# Out of memory, with and without -M: a store on the queue's key must not
# delete the queue.
foreach mflag {-M {}} {
    start_server [list tags {queue mcds-only} args [concat -m 2 $mflag]] {
        set fd [mc_connect]
        set v [string repeat y 1000]

        test "out of memory ($mflag): set, ms and binary SET on a full queue keep every message" {
            set n [q_fill $fd om1 40000 200]
            assert_equal [mc_exchange $fd "set om1 0 0 40000\r\n[string repeat s 40000]\r\n"] \
                "SERVER_ERROR out of memory storing object\r\n"
            assert_equal [mc_exchange $fd "ms om1 40000 T0\r\n[string repeat s 40000]\r\n"] \
                "SERVER_ERROR out of memory storing object\r\n"
            set b [mc_connect]
            set r [bin_exchange $b [bin_pkt SET -key om1 -ext [bin_store_ext 0 0] -value [string repeat s 40000]]]
            mc_close $b
            assert_equal [lrange [lindex $r 0] 0 1] {SET ENOMEM}
            assert_equal [q_counts $fd om1] [list $n 0 0]
            q_drain_check $fd om1 $n 40000
            q_counts $fd om1
        } {0 0 0}
    }
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    # ---- qpush numbers are never truncated ----

    test {qpush: flags over 32 bits are CLIENT_ERROR, the data is swallowed} {
        mc_exchange $fd "qpush nt1 4294967296 0 5\r\nhello\r\nqpush nt1 18446744073709551616 0 1\r\nx\r\nqpeek nt1\r\n"
    } "CLIENT_ERROR bad flags\r\nCLIENT_ERROR bad flags\r\nEND\r\n"

    test {qpush: a delay over 32 bits is CLIENT_ERROR, not "now"} {
        mc_exchange $fd "qpush nt2 0 4294967296 5\r\nhello\r\nqpush nt2 0 -4294967297 5\r\nhello\r\nqpeek nt2\r\n"
    } "CLIENT_ERROR bad delay\r\nCLIENT_ERROR bad delay\r\nEND\r\n"

    test {qpush: a length over 32 bits is CLIENT_ERROR and nothing is read as data} {
        # Neither 2 nor 0 bytes are taken as the data, nor is the data line
        # read as a command: the connection closes after the error.
        list [mc_last_reply "qpush nt3 0 0 4294967298\r\nhi\r\n"] [mc_last_reply "qpush nt3 0 0 4294967296\r\n\r\n"] \
            [mc_exchange $fd "qpeek nt3\r\n"]
    } [list "CLIENT_ERROR bad length\r\n" "CLIENT_ERROR bad length\r\n" "END\r\n"]

    test {qpush: the largest values that fit are accepted} {
        set r [mc_exchange $fd "qpush nt4 4294967295 0 1 4294967295\r\na\r\nqpeek nt4\r\n"]
        regsub {^PUSHED (\d+)\r\nITEM \1 } $r {ITEM N } r
        set r
    } "ITEM N 4294967295 1 0\r\na\r\nEND\r\n"

    # ---- dead letters that cannot reach their dead-letter queue ----

    test {qcreate: a dlq= key holding a cache value is refused} {
        assert_equal [mc_set $fd dv1 cached] STORED
        mc_exchange $fd "qcreate dq1 maxdeliver=1 dlq=dv1\r\nqstats dq1\r\nget dv1\r\n"
    } "CLIENT_ERROR dlq key holds another type of value\r\nNOT_FOUND\r\nVALUE dv1 0 6\r\ncached\r\nEND\r\n"

    test {qcreate: a queue cannot be its own dead-letter queue} {
        mc_exchange $fd "qcreate dq2 maxdeliver=1 dlq=dq2\r\nqstats dq2\r\n"
    } "CLIENT_ERROR dlq must name another queue\r\nNOT_FOUND\r\n"

    test {a dead letter whose dlq became a cache value stays in its queue, buried, and moves later} {
        mc_exchange $fd "qcreate dq3 maxdeliver=1 lease=5 dlq=dv3\r\n"
        set a [q_push $fd dq3 doomed 4]
        assert_equal [mc_set $fd dv3 now-a-string] STORED
        mc_exchange $fd "qpop dq3\r\ndebugtime 6\r\n"
        set s [q_stats $fd dq3]
        assert_equal [list [dict get $s ready] [dict get $s in_flight] [dict get $s buried] [dict get $s dead]] {0 0 1 0}
        # Not delivered while buried.
        assert_equal [mc_exchange $fd "qpop dq3\r\n"] "END\r\n"
        # Once the key can take a queue, the next retry moves it.
        mc_exchange $fd "delete dv3\r\ndebugtime 2\r\n"
        set s [q_stats $fd dq3]
        assert_equal [list [dict get $s buried] [dict get $s dead]] {0 1}
        set items [q_pop $fd dv3]
        lassign [lindex $items 0] id flags data
        list [llength $items] [expr {$id == $a}] $flags $data
    } {1 1 4 doomed} {debugtime}

    test {a dead letter for a dlq at its maxlen stays buried in its queue until there is room} {
        mc_exchange $fd "qcreate dv4 maxlen=1\r\nqcreate dq4 maxdeliver=1 lease=5 dlq=dv4\r\n"
        q_push $fd dv4 filler
        q_push $fd dq4 one
        q_push $fd dq4 two
        mc_exchange $fd "qpop dq4 2\r\ndebugtime 6\r\n"
        set s [q_stats $fd dq4]
        assert_equal [list [dict get $s buried] [dict get $s dead]] {2 0}
        assert_equal [q_stat $fd dv4 ready] 1
        # Room for one: one moves, one stays buried.
        set f [lindex [q_pop $fd dv4] 0 0]
        mc_exchange $fd "qack dv4 $f\r\ndebugtime 2\r\n"
        set s [q_stats $fd dq4]
        list [dict get $s buried] [dict get $s dead] [qs_ready $fd dv4]
    } {1 1 one} {debugtime}

    test {qpurge drops buried messages too, and counts them} {
        mc_exchange $fd "qpurge dq4\r\n"
    } "PURGED 1\r\n" {debugtime}

    test {stats: queue_buried sums buried messages over the server} {
        mc_exchange $fd "qcreate dv5 maxlen=0\r\nset dv5x 0 0 1\r\nx\r\nqcreate dq5 maxdeliver=1 lease=1 dlq=dv5y\r\n"
        q_push $fd dq5 z
        mc_exchange $fd "set dv5y 0 0 1\r\ny\r\nqpop dq5\r\ndebugtime 2\r\n"
        mc_stat $fd queue_buried
    } 1 {debugtime}

    test {qcreate: maxdeliver on a name too long for the default dead-letter queue needs dlq=} {
        set name [string repeat n 246]
        list [mc_exchange $fd "qcreate $name maxdeliver=2\r\n"] \
            [mc_exchange $fd "qcreate $name maxdeliver=2 dlq=long:dead\r\n"]
    } [list "CLIENT_ERROR queue name too long for the default dead-letter queue, give dlq=\r\n" "CREATED\r\n"]

    # ---- receipts ----

    test {receipt: an ack for a delivery whose lease ran out is NOT_FOUND and changes nothing} {
        set c1 [mc_connect]
        set c2 [mc_connect]
        set a [q_push $fd rc1 job]
        assert_equal [mc_exchange $c1 "qpop rc1 lease=10\r\n"] [q_item $a 0 job 1]END\r\n
        mc_exchange $fd "debugtime 11\r\n"
        assert_equal [mc_exchange $c2 "qpop rc1 lease=10\r\n"] [q_item $a 0 job 2]END\r\n
        # Consumer 1 acts on its own (first) delivery: not its message any more.
        assert_equal [mc_exchange $c1 "qack rc1 $a:1\r\nqrelease rc1 $a:1\r\nqtouch rc1 $a:1 100\r\n"] \
            "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\n"
        assert_equal [q_counts $fd rc1] {0 0 1}
        # Consumer 2 holds the second delivery.
        set r [mc_exchange $c2 "qtouch rc1 $a:2 100\r\nqack rc1 $a:2\r\n"]
        mc_close $c1
        mc_close $c2
        list $r [q_counts $fd rc1]
    } [list "TOUCHED\r\nACKED\r\n" {0 0 0}] {debugtime}

    test {receipt: release with a receipt, then the old receipt is refused} {
        set a [q_push $fd rc2 job]
        mc_exchange $fd "qpop rc2\r\n"
        assert_equal [mc_exchange $fd "qrelease rc2 $a:1 0\r\n"] "RELEASED\r\n"
        mc_exchange $fd "qpop rc2\r\n"
        mc_exchange $fd "qack rc2 $a:1\r\nqack rc2 $a:2\r\n"
    } "NOT_FOUND\r\nACKED\r\n"

    test {receipt: qpop ack=<id>:<n> acks only that delivery} {
        set a [q_push $fd rc3 job]
        mc_exchange $fd "qpop rc3 lease=1\r\ndebugtime 2\r\n"
        # The first delivery's lease ran out: its ack is refused, and the
        # pop leases the message again (second delivery).
        assert_equal [mc_exchange $fd "qpop rc3 ack=$a:1\r\n"] "NOT_FOUND\r\n[q_item $a 0 job 2]END\r\n"
        mc_exchange $fd "qpop rc3 ack=$a:2\r\n"
    } "ACKED\r\nEND\r\n" {debugtime}

    test {receipt: malformed receipts are CLIENT_ERROR} {
        set a [q_push $fd rc4 job]
        mc_exchange $fd "qpop rc4\r\n"
        mc_exchange $fd "qack rc4 $a:\r\nqack rc4 $a:x\r\nqack rc4 :1\r\nqack rc4 $a:1:1\r\nqack rc4 $a:4294967296\r\nqpop rc4 ack=$a:\r\nqack rc4 $a:1\r\n"
    } "[string repeat "CLIENT_ERROR bad id\r\n" 5]CLIENT_ERROR bad value for ack\r\nACKED\r\n"

    test {without a receipt, ack/release/touch act on the current delivery (the old form)} {
        set a [q_push $fd rc5 job]
        mc_exchange $fd "qpop rc5 lease=1\r\ndebugtime 2\r\nqpop rc5\r\n"
        mc_exchange $fd "qtouch rc5 $a\r\nqack rc5 $a\r\n"
    } "TOUCHED\r\nACKED\r\n" {debugtime}

    # ---- Kestrel open reads belong to their connection ----

    test {an open read cannot be released, touched or acked from another connection} {
        set c [mc_connect]
        mc_exchange $fd "qcreate ko1\r\nset ko1 0 0 3\r\njob\r\n"
        assert_equal [mc_exchange $c "get ko1/open\r\n"] "VALUE ko1/open 0 3\r\njob\r\nEND\r\n"
        set id [lindex [q_pending $fd ko1] 0 0]
        assert_equal [mc_exchange $fd "qrelease ko1 $id\r\nqtouch ko1 $id 5\r\nqack ko1 $id\r\nqack ko1 $id:1\r\nqpop ko1 ack=$id\r\n"] \
            "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nEND\r\n"
        assert_equal [lindex [q_pending $fd ko1] 0 4] -1
        # Its own /close acks it.
        assert_equal [mc_exchange $c "get ko1/close\r\n"] "END\r\n"
        mc_close $c
        q_counts $fd ko1
    } {0 0 0}
}

# A message handed to a waiter whose client had just hung up never reached
# anyone: it comes back without a delivery counted. The race is provoked
# many times; every round must see a first delivery.
start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {a delivery that never reached a vanished waiter does not count} {
        set bad {}
        for {set i 0} {$i < 30} {incr i} {
            set w [mc_connect]
            mc_send $w "qpop vw$i wait=100\r\n"
            q_wait_waiters $fd vw$i 1
            close $w
            q_push $fd vw$i job
            wait_for {[q_stat $fd vw$i waiters] == 0 && [q_stat $fd vw$i in_flight] == 0} 100 20
            set it [lindex [q_pop $fd vw$i] 0]
            if {[lindex $it 3] != 1} { lappend bad "round $i: delivery [lindex $it 3]" }
            mc_exchange $fd "qack vw$i [lindex $it 0]\r\n"
        }
        set bad
    } {}
}
