# Queues (doc/protocol.md, "3. Queues"): qcreate qpush qpop qack qrelease
# qtouch qpeek qpending qstats qpurge, delays and leases on the debugtime
# clock (no test sleeps for them), dead letters, memory limits, the `stats`
# totals, and malformed or hostile input for every verb. Blocking pops are
# in queue_blocking.tcl, Kestrel reads in kestrel.tcl.
# Helpers (q_push, q_pop, q_stats …) are in t/support/queue.tcl. Every
# test uses queues of its own.

set K250 [string repeat q 250]
set K251 [string repeat q 251]

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    # ---- qcreate ----

    test {qcreate: CREATED, then EXISTS; the defaults show in qstats} {
        assert_equal [mc_exchange $fd "qcreate c1\r\nqcreate c1\r\nqcreate c1 lease=5 maxlen=1\r\n"] \
            "CREATED\r\nEXISTS\r\nEXISTS\r\n"
        mc_exchange $fd "qstats c1\r\n"
    } [q_stats_reply 0 0 0 0 0 0 0 0 0 0 0 0 0 30000 0 0 c1:dead]

    test {qcreate with every option: lease (with a fraction), maxdeliver, maxlen, dlq} {
        assert_equal [mc_exchange $fd "qcreate c2 lease=1.5 maxdeliver=3 maxlen=10 dlq=c2graves\r\n"] "CREATED\r\n"
        mc_exchange $fd "qstats c2\r\n"
    } [q_stats_reply 0 0 0 0 0 0 0 0 0 0 0 0 0 1500 3 10 c2graves]

    test {qcreate: options in any order; the last of a repeated option wins} {
        assert_equal [mc_exchange $fd "qcreate c3 dlq=x maxlen=7 lease=2\r\n"] "CREATED\r\n"
        mc_exchange $fd "qstats c3\r\n"
    } [q_stats_reply 0 0 0 0 0 0 0 0 0 0 0 0 0 2000 0 7 x]

    test {qcreate: bad or unknown options are CLIENT_ERROR and create nothing} {
        set r {}
        set want {}
        foreach {opt why} [list lease=0 "bad value for lease" lease= "bad value for lease" \
                               lease=abc "bad value for lease" lease=-1 "bad value for lease" \
                               lease=1x "bad value for lease" maxdeliver=x "bad value for maxdeliver" \
                               maxdeliver=-1 "bad value for maxdeliver" maxdeliver= "bad value for maxdeliver" \
                               maxlen=abc "bad value for maxlen" maxlen=-5 "bad value for maxlen" \
                               dlq= "bad value for dlq" dlq=$::K251 "bad value for dlq" \
                               foo=1 "unknown option foo" lease "unknown option lease" \
                               LEASE=5 "unknown option LEASE" noreply "unknown option noreply"] {
            append r [mc_exchange $fd "qcreate c4 $opt\r\n"]
            append want "CLIENT_ERROR $why\r\n"
        }
        assert_equal $r $want
        mc_exchange $fd "qstats c4\r\nqpeek c4\r\n"
    } "NOT_FOUND\r\nEND\r\n"

    test {qcreate: a 250-byte name works, a 251-byte name is CLIENT_ERROR} {
        mc_exchange $fd "qcreate $K250\r\nqcreate $K251\r\nqcreate $K250\r\n"
    } "CREATED\r\nCLIENT_ERROR key too long\r\nEXISTS\r\n"

    test {qcreate: wrong token counts are ERROR} {
        mc_exchange $fd "qcreate\r\nqcreate c5 lease=1 maxdeliver=1 maxlen=1 dlq=a maxage=1 dedup=1 expired=dead lease=2\r\nqstats c5\r\n"
    } "ERROR\r\nERROR\r\nNOT_FOUND\r\n"

    test {qcreate on a key holding a cache value: wrong type, the value is kept} {
        assert_equal [mc_set $fd c6 plain] STORED
        mc_exchange $fd "qcreate c6\r\nget c6\r\n"
    } "CLIENT_ERROR key holds another type of value\r\nVALUE c6 0 5\r\nplain\r\nEND\r\n"

    # ---- qpush and ordering ----

    test {qpush: ids increase, flags are kept, equal priorities are FIFO} {
        set a [q_push $fd p1 one 0]
        set b [q_push $fd p1 two 7]
        set c [q_push $fd p1 three 4294967295]
        assert_true {$a < $b && $b < $c} "ids $a $b $c"
        assert_equal [mc_exchange $fd "qpop p1 3\r\n"] \
            "[q_item $a 0 one 1][q_item $b 7 two 1][q_item $c 4294967295 three 1]END\r\n"
    }

    test {qpush then qpop: exact ITEM bytes with id, flags, length and deliveries} {
        set a [q_push $fd p1c hello 5]
        set b [q_push $fd p1c world 6]
        assert_equal [mc_exchange $fd "qpop p1c\r\nqpop p1c 1\r\nqpop p1c\r\n"] \
            "[q_item $a 5 hello 1]END\r\n[q_item $b 6 world 1]END\r\nEND\r\n"
    }

    test {qpush: lower priority first, FIFO among equal priorities, default 1024} {
        set a [q_push $fd p3 a 0 0 5]
        set b [q_push $fd p3 b 0 0 1]
        set c [q_push $fd p3 c 0 0]
        set d [q_push $fd p3 d 0 0 1]
        set e [q_push $fd p3 e 0 0 0]
        set f [q_push $fd p3 f 0 0 4294967295]
        set g [q_push $fd p3 g 0 0 5]
        set h [q_push $fd p3 h 0 0 1024]
        set i [q_push $fd p3 i 0 0 1023]
        set want "[q_item $e 0 e 0][q_item $b 0 b 0][q_item $d 0 d 0][q_item $a 0 a 0][q_item $g 0 g 0]"
        append want "[q_item $i 0 i 0][q_item $c 0 c 0][q_item $h 0 h 0][q_item $f 0 f 0]END\r\n"
        assert_equal [mc_exchange $fd "qpeek p3 100\r\n"] $want
        assert_equal [mc_exchange $fd "qpop p3 100\r\n"] [string map {" 0\r\n" " 1\r\n"} $want]
    }

    test {qpush: binary-safe payloads and an empty payload} {
        set bin "a\r\nEND\r\n\0\x01\xff b"
        set a [q_push $fd p4 $bin 3]
        set b [q_push $fd p4 {} 4]
        assert_equal [mc_exchange $fd "qpop p4 2\r\n"] "[q_item $a 3 $bin 1][q_item $b 4 {} 1]END\r\n"
    }

    test {qpush: a delayed message is not ready until the clock reaches it} {
        set a [q_push $fd d1 later 0 10]
        set b [q_push $fd d1 now 0 0]
        assert_equal [mc_exchange $fd "qpop d1 5\r\n"] "[q_item $b 0 now 1]END\r\n"
        assert_equal [q_counts $fd d1] {0 1 1}
        assert_equal [mc_exchange $fd "debugtime 9\r\nqpop d1\r\nqpeek d1\r\n"] "OK\r\nEND\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpop d1\r\n"] "OK\r\n[q_item $a 0 later 1]END\r\n"
        q_counts $fd d1
    } {0 0 2} {debugtime}

    test {qpush: a message coming due takes its place by priority among ready ones} {
        set a [q_push $fd d2 a 0 0 5]
        set b [q_push $fd d2 b 0 5 1]
        set c [q_push $fd d2 c 0 0 5]
        assert_equal [mc_exchange $fd "qpeek d2 3\r\n"] "[q_item $a 0 a 0][q_item $c 0 c 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek d2 3\r\n"] \
            "OK\r\n[q_item $b 0 b 0][q_item $a 0 a 0][q_item $c 0 c 0]END\r\n"
    } {} {debugtime}

    test {qpush: delays over 30 days are absolute Unix times} {
        set now [mc_stat $fd time]
        set a [q_push $fd d3 abs 0 [expr {$now + 100}]]
        set b [q_push $fd d3 past 0 [expr {$now - 100}]]
        # 2592001 s after the epoch is long past: ready at once.
        set c [q_push $fd d3 epoch 0 2592001]
        assert_equal [mc_exchange $fd "qpop d3 5 lease=1000\r\n"] "[q_item $b 0 past 1][q_item $c 0 epoch 1]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 95\r\nqpop d3\r\n"] "OK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 10\r\nqpop d3\r\n"] "OK\r\n[q_item $a 0 abs 1]END\r\n"
    } {} {debugtime}

    test {qpush: a delay of exactly 30 days is relative} {
        set a [q_push $fd d4 month 0 2592000]
        assert_equal [mc_exchange $fd "qpop d4\r\ndebugtime 2591990\r\nqpop d4\r\n"] "END\r\nOK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 20\r\nqpop d4\r\n"] "OK\r\n[q_item $a 0 month 1]END\r\n"
    } {} {debugtime}

    test {qpush noreply: silent, with and without a priority; the messages are queued} {
        set r [mc_exchange $fd "qpush nr1 0 0 1 noreply\r\na\r\nqpush nr1 3 0 1 5 noreply\r\nb\r\nqpeek nr1 5\r\n"]
        regsub -all {ITEM \d+ } $r {ITEM N } r
        set r
    } "ITEM N 3 1 0\r\nb\r\nITEM N 0 1 0\r\na\r\nEND\r\n"

    test {qpush: a message over -I is SERVER_ERROR, its data is swallowed} {
        set big [string repeat x 1100000]
        mc_exchange $fd "qpush big1 0 0 1100000\r\n$big\r\nqpeek big1\r\n"
    } "SERVER_ERROR object too large for cache\r\nEND\r\n"

    test {qpush noreply over -I: silent, data swallowed} {
        set big [string repeat x 1100000]
        mc_exchange $fd "qpush big2 0 0 1100000 noreply\r\n$big\r\nqpeek big2\r\n"
    } "END\r\n"

    test {qpush: a bad data chunk is CLIENT_ERROR and queues nothing} {
        mc_exchange $fd "qpush bc1 0 0 2\r\nxyzw\r\nqpeek bc1\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nEND\r\n"

    test {qpush noreply with a bad data chunk: the error is silent} {
        mc_exchange $fd "qpush bc2 0 0 2 noreply\r\nxyzw\r\nqpeek bc2\r\n"
    } "ERROR\r\nEND\r\n"

    test {qpush: a bad line with a valid length swallows the data} {
        set r {}
        set want {}
        foreach {line why} [list "qpush sw1 abc 0 1" flags "qpush sw1 -1 0 1" flags "qpush sw1 0 abc 1" delay \
                                "qpush sw1 0 0 1 abc" priority "qpush sw1 0 0 1 -5" priority \
                                "qpush sw1 0 0 1 99999999999999999999" priority \
                                "qpush sw1 0 0 1 1x" priority "qpush $K251 0 0 1" key] {
            append r [mc_exchange $fd "$line\r\nx\r\n"]
            append want [expr {$why eq "key" ? "CLIENT_ERROR key too long\r\n" : "CLIENT_ERROR bad $why\r\n"}]
        }
        assert_equal $r $want
        mc_exchange $fd "qpeek sw1\r\n"
    } "END\r\n"

    test {qpush: a bad length is CLIENT_ERROR and closes the connection: the data is never read as a command} {
        list [mc_last_reply "qpush sw2 0 0 abc\r\nflush_all\r\n"] [mc_last_reply "qpush sw2 0 0 -1\r\nx\r\n"] \
            [mc_exchange $fd "qpeek sw2\r\n"]
    } [list "CLIENT_ERROR bad length\r\n" "CLIENT_ERROR bad length\r\n" "END\r\n"]

    test {qpush: too few tokens are ERROR (and the data line too)} {
        mc_exchange $fd "qpush\r\nqpush sw3\r\nqpush sw3 0\r\nqpush sw3 0 0\r\nx\r\nqpeek sw3\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\nEND\r\n"

    # However many tokens follow, a valid length skips the data: a message
    # body is never run as a command.
    test {qpush: too many tokens are named and the data skipped, however many} {
        mc_exchange $fd [string cat "qpush sw3 0 0 9 5 noreply extra\r\nflush_all\r\n" \
                             "qpush sw3 0 0 9 1 2 3 4 5 6 7 8 9\r\nflush_all\r\nqpeek sw3\r\n"]
    } "CLIENT_ERROR noreply must be the last token\r\nCLIENT_ERROR too many tokens\r\nEND\r\n"

    test {qpush on a key holding a cache value: wrong type, data swallowed, value kept} {
        assert_equal [mc_set $fd wt1 cached 9] STORED
        mc_exchange $fd "qpush wt1 0 0 1\r\nx\r\nget wt1\r\n"
    } "CLIENT_ERROR key holds another type of value\r\nVALUE wt1 9 6\r\ncached\r\nEND\r\n"

    test {every queue verb on a key holding a cache value is wrong type} {
        assert_equal [mc_set $fd wt2 v] STORED
        mc_exchange $fd [string cat "qpop wt2\r\nqpop wt2 wait=1\r\nqack wt2 1\r\nqrelease wt2 1\r\n" \
                             "qtouch wt2 1\r\nqpeek wt2\r\nqpending wt2\r\nqstats wt2\r\nqpurge wt2\r\n" \
                             "qcreate wt2 lease=1\r\nget wt2\r\n"]
    } "[string repeat "CLIENT_ERROR key holds another type of value\r\n" 10]VALUE wt2 0 1\r\nv\r\nEND\r\n"

    # ---- qpop ----

    test {qpop: count limits the batch; END alone when nothing is ready} {
        foreach v {a b c d e} { q_push $fd o1 $v }
        set r [mc_exchange $fd "qpop o1 3\r\nqpop o1 3\r\nqpop o1 3\r\nqpop o1\r\n"]
        regsub -all {ITEM \d+ } $r {ITEM N } r
        set r
    } [string cat "ITEM N 0 1 1\r\na\r\nITEM N 0 1 1\r\nb\r\nITEM N 0 1 1\r\nc\r\nEND\r\n" \
           "ITEM N 0 1 1\r\nd\r\nITEM N 0 1 1\r\ne\r\nEND\r\nEND\r\nEND\r\n"]

    test {qpop: at most 100 messages at a time} {
        for {set i 0} {$i < 120} {incr i} { append cmds "qpush o2 0 0 [string length $i] noreply\r\n$i\r\n" }
        mc_exchange $fd $cmds
        set items [q_pop $fd o2 100]
        assert_equal [llength $items] 100
        assert_equal [lindex $items 99 2] 99
        assert_equal [q_counts $fd o2] {20 0 100}
        llength [q_pop $fd o2 100]
    } 20

    test {qpop on a missing queue is END and does not create it} {
        mc_exchange $fd "qpop nosuch1\r\nqpop nosuch1 5 lease=3\r\nqstats nosuch1\r\n"
    } "END\r\nEND\r\nNOT_FOUND\r\n"

    test {qpop lease=: the lease shows in qpending and runs out on the clock} {
        set a [q_push $fd o3 job 2]
        assert_equal [mc_exchange $fd "qpop o3 lease=5\r\n"] "[q_item $a 2 job 1]END\r\n"
        lassign [lindex [q_pending $fd o3] 0] id fl len n left
        assert_equal [list $id $fl $len $n] [list $a 2 3 1]
        assert_range $left [expr {5000 - 2000 * [time_factor]}] 5000
        assert_match "OK\r\nPENDING $a 2 3 1 *\r\nEND\r\nEND\r\n" \
            [mc_exchange $fd "debugtime 4\r\nqpending o3\r\nqpop o3\r\n"]
    } {} {debugtime}

    test {qpop lease=: exact replies around the lease end} {
        set a [q_push $fd o4 job 2]
        mc_exchange $fd "qpop o4 lease=5\r\n"
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpop o4\r\ndebugtime 2\r\nqpending o4\r\nqpop o4\r\n"] \
            "OK\r\nEND\r\nOK\r\nEND\r\n[q_item $a 2 job 2]END\r\n"
    } {} {debugtime}

    test {qpop: a fractional lease (lease=1.5) is honoured to the millisecond} {
        set a [q_push $fd o5 x]
        mc_exchange $fd "qpop o5 lease=1.5\r\n"
        set left [lindex [q_pending $fd o5] 0 4]
        assert_range $left [expr {1500 - 1000 * [time_factor]}] 1500
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpop o5\r\n"] "OK\r\n[q_item $a 0 x 2]END\r\n"
    } {} {debugtime}

    test {qpop: without lease= the queue's lease applies} {
        mc_exchange $fd "qcreate o6 lease=7\r\n"
        set a [q_push $fd o6 x]
        mc_exchange $fd "qpop o6\r\n"
        set left [lindex [q_pending $fd o6] 0 4]
        assert_range $left [expr {7000 - 2000 * [time_factor]}] 7000
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpop o6\r\ndebugtime 2\r\nqpop o6\r\n"] \
            "OK\r\nEND\r\nOK\r\n[q_item $a 0 x 2]END\r\n"
    } {} {debugtime}

    test {qpop wait= with messages ready answers at once, with what there is} {
        set a [q_push $fd o7 x]
        assert_equal [mc_exchange $fd "qpop o7 wait=100\r\n"] "[q_item $a 0 x 1]END\r\n"
        set b [q_push $fd o7 y]
        assert_equal [mc_exchange $fd "qpop o7 5 lease=10 wait=100\r\n"] "[q_item $b 0 y 1]END\r\n"
    }

    # ---- qack, qrelease, qtouch ----

    test {qack: ACKED once, then NOT_FOUND; unknown ids and missing queues are NOT_FOUND} {
        set a [q_push $fd a1 x]
        set b [q_push $fd a1 y]
        mc_exchange $fd "qpop a1\r\n"
        mc_exchange $fd [string cat "qack a1 $a\r\nqack a1 $a\r\nqack a1 $b\r\nqack a1 999999999\r\n" \
                             "qack a1 18446744073709551615\r\nqack a1 0\r\nqack nosuch2 $a\r\nqstats a1\r\n"]
    } "ACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\n[q_stats_reply 1 0 0 0 0 2 1 1 0 0 0 0 0 30000 0 0 a1:dead]"

    test {qack: an id of another queue is NOT_FOUND here and still ackable there} {
        set a [q_push $fd a2 x]
        mc_exchange $fd "qpop a2\r\nqcreate a3\r\n"
        mc_exchange $fd "qack a3 $a\r\nqack a2 $a\r\n"
    } "NOT_FOUND\r\nACKED\r\n"

    test {qack after the lease ran out is NOT_FOUND; the message is back, count kept} {
        set a [q_push $fd a4 x]
        mc_exchange $fd "qpop a4 lease=5\r\n"
        assert_equal [mc_exchange $fd "debugtime 6\r\nqack a4 $a\r\nqpeek a4\r\nqpop a4\r\nqack a4 $a\r\n"] \
            "OK\r\nNOT_FOUND\r\n[q_item $a 0 x 1]END\r\n[q_item $a 0 x 2]END\r\nACKED\r\n"
    } {} {debugtime}

    test {qrelease: ready again at its original place, delivery count kept} {
        set a [q_push $fd r1 a]
        set b [q_push $fd r1 b]
        set c [q_push $fd r1 c]
        mc_exchange $fd "qpop r1\r\n"
        assert_equal [mc_exchange $fd "qrelease r1 $a\r\nqrelease r1 $a\r\nqpeek r1 3\r\n"] \
            "RELEASED\r\nNOT_FOUND\r\n[q_item $a 0 a 1][q_item $b 0 b 0][q_item $c 0 c 0]END\r\n"
        assert_equal [mc_exchange $fd "qpop r1\r\n"] "[q_item $a 0 a 2]END\r\n"
        q_stat $fd r1 released
    } 1

    test {qrelease: unknown, acked, never popped and lease-expired ids are NOT_FOUND} {
        set a [q_push $fd r2 a]
        set b [q_push $fd r2 b]
        set c [q_push $fd r2 c]
        mc_exchange $fd "qpop r2 lease=5\r\nqpop r2 lease=100\r\n"
        mc_exchange $fd [string cat "qack r2 $b\r\nqrelease r2 $b\r\nqrelease r2 $c\r\nqrelease r2 12345678901\r\n" \
                             "qrelease nosuch3 $a\r\ndebugtime 6\r\nqrelease r2 $a\r\n"]
    } "ACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nOK\r\nNOT_FOUND\r\n" {debugtime}

    test {qrelease with a delay: delayed until the clock reaches it} {
        set a [q_push $fd r3 a 4]
        mc_exchange $fd "qpop r3\r\n"
        assert_equal [mc_exchange $fd "qrelease r3 $a 10\r\nqpop r3\r\n"] "RELEASED\r\nEND\r\n"
        assert_equal [q_counts $fd r3] {0 1 0}
        assert_equal [mc_exchange $fd "debugtime 9\r\nqpop r3\r\n"] "OK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpop r3\r\n"] "OK\r\n[q_item $a 4 a 2]END\r\n"
    } {} {debugtime}

    test {qrelease with delay 0 is ready at once} {
        set a [q_push $fd r4 a]
        mc_exchange $fd "qpop r4\r\n"
        assert_equal [mc_exchange $fd "qrelease r4 $a 0\r\nqpeek r4\r\n"] "RELEASED\r\n[q_item $a 0 a 1]END\r\n"
    }

    test {qtouch: extends a lease; it then outlives its first end} {
        set a [q_push $fd t1 a]
        mc_exchange $fd "qpop t1 lease=10\r\n"
        assert_equal [mc_exchange $fd "debugtime 8\r\nqtouch t1 $a 20\r\n"] "OK\r\nTOUCHED\r\n"
        set left [lindex [q_pending $fd t1] 0 4]
        assert_range $left [expr {20000 - 2000 * [time_factor]}] 20000
        # 23 s after the pop: the first lease (10 s) would have run out.
        assert_match "OK\r\nPENDING $a 0 1 1 *\r\nEND\r\n" [mc_exchange $fd "debugtime 15\r\nqpending t1\r\n"]
        set left [lindex [q_pending $fd t1] 0 4]
        assert_range $left [expr {5000 - 2000 * [time_factor]}] 5000
        mc_exchange $fd "qack t1 $a\r\nqpeek t1\r\n"
    } "ACKED\r\nEND\r\n" {debugtime}

    test {qtouch: can shorten a lease too, and runs out then} {
        set a [q_push $fd t2 a]
        mc_exchange $fd "qpop t2 lease=100\r\n"
        assert_equal [mc_exchange $fd "qtouch t2 $a 2\r\ndebugtime 3\r\nqack t2 $a\r\nqpop t2\r\n"] \
            "TOUCHED\r\nOK\r\nNOT_FOUND\r\n[q_item $a 0 a 2]END\r\n"
    } {} {debugtime}

    test {qtouch without a lease uses the queue's lease} {
        mc_exchange $fd "qcreate t3 lease=40\r\n"
        set a [q_push $fd t3 a]
        mc_exchange $fd "qpop t3 lease=2\r\n"
        assert_equal [mc_exchange $fd "qtouch t3 $a\r\n"] "TOUCHED\r\n"
        set left [lindex [q_pending $fd t3] 0 4]
        assert_range $left [expr {40000 - 2000 * [time_factor]}] 40000
    }

    test {qtouch: unknown, acked, never popped and lease-expired ids are NOT_FOUND} {
        set a [q_push $fd t4 a]
        set b [q_push $fd t4 b]
        set c [q_push $fd t4 c]
        mc_exchange $fd "qpop t4 lease=5\r\nqpop t4 lease=100\r\n"
        mc_exchange $fd [string cat "qack t4 $b\r\nqtouch t4 $b\r\nqtouch t4 $c 10\r\nqtouch t4 7777777777\r\n" \
                             "qtouch nosuch4 $a\r\ndebugtime 6\r\nqtouch t4 $a 50\r\n"]
    } "ACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nOK\r\nNOT_FOUND\r\n" {debugtime}

    test {ack, release, touch and purge noreply: successes and misses are silent} {
        set a [q_push $fd n1 a]
        set b [q_push $fd n1 b]
        set c [q_push $fd n1 c]
        mc_exchange $fd "qpop n1 3\r\n"
        set r [mc_exchange $fd [string cat "qack n1 $a noreply\r\nqack n1 $a noreply\r\n" \
                                    "qrelease n1 $b noreply\r\nqrelease n1 $b noreply\r\n" \
                                    "qtouch n1 $c 50 noreply\r\nqtouch n1 $c noreply\r\nqtouch n1 1 noreply\r\n" \
                                    "qack nosuch5 1 noreply\r\nqpurge nosuch5 noreply\r\n" \
                                    "qpurge n1 noreply\r\nqack n1 abc noreply\r\nqrelease n1 $c abc noreply\r\n" \
                                    "qtouch n1 $c 0 noreply\r\nqpending n1\r\n"]]
        assert_match "PENDING $c 0 1 1 *\r\nEND\r\n" $r
    }

    test {qrelease with a delay and noreply} {
        set a [q_push $fd n2 a]
        mc_exchange $fd "qpop n2\r\n"
        mc_exchange $fd "qrelease n2 $a 100 noreply\r\nqstats n2\r\n"
    } [q_stats_reply 0 1 0 0 0 1 1 0 1 0 0 0 0 30000 0 0 n2:dead]

    test {noreply on a key holding a cache value: the error is silent} {
        assert_equal [mc_set $fd n3 v] STORED
        mc_exchange $fd [string cat "qack n3 1 noreply\r\nqrelease n3 1 noreply\r\nqtouch n3 1 noreply\r\n" \
                             "qpurge n3 noreply\r\nqpush n3 0 0 1 noreply\r\nx\r\nget n3\r\n"]
    } "VALUE n3 0 1\r\nv\r\nEND\r\n"

    test {noreply with a 251-byte key: the error is silent} {
        mc_exchange $fd [string cat "qack $K251 1 noreply\r\nqrelease $K251 1 noreply\r\n" \
                             "qtouch $K251 1 noreply\r\nqpurge $K251 noreply\r\n" \
                             "qpush $K251 0 0 1 noreply\r\nx\r\nqpeek nosuch6\r\n"]
    } "END\r\n"

    # ---- leases running out, dead letters ----

    test {a lease running out: redelivered at its place with its count raised} {
        set a [q_push $fd l1 a]
        set b [q_push $fd l1 b]
        assert_equal [mc_exchange $fd "qpop l1 lease=5\r\n"] "[q_item $a 0 a 1]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek l1 2\r\n"] \
            "OK\r\n[q_item $a 0 a 1][q_item $b 0 b 0]END\r\n"
        assert_equal [mc_exchange $fd "qpop l1 lease=5\r\ndebugtime 6\r\nqpop l1 lease=5\r\n"] \
            "[q_item $a 0 a 2]END\r\nOK\r\n[q_item $a 0 a 3]END\r\n"
        set s [q_stats $fd l1]
        list [dict get $s lease_expired] [dict get $s popped] [dict get $s ready] [dict get $s in_flight]
    } {2 3 1 1} {debugtime}

    test {maxdeliver: after the last delivery's lease runs out, to <queue>:dead with its id kept} {
        mc_exchange $fd "qcreate dl1 maxdeliver=2 lease=5\r\n"
        set a [q_push $fd dl1 doomed 42]
        assert_equal [mc_exchange $fd "qpop dl1\r\ndebugtime 6\r\nqpop dl1\r\n"] \
            "[q_item $a 42 doomed 1]END\r\nOK\r\n[q_item $a 42 doomed 2]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpop dl1\r\nqack dl1 $a\r\n"] "OK\r\nEND\r\nNOT_FOUND\r\n"
        assert_equal [mc_exchange $fd "qstats dl1\r\n"] \
            [q_stats_reply 0 0 0 0 0 1 2 0 0 2 1 0 0 5000 2 0 dl1:dead]
        set items [q_pop $fd dl1:dead]
        assert_equal [llength $items] 1
        lassign [lindex $items 0] id flags data n
        assert_equal $id $a "the dead letter's id"
        list $flags $data $n [q_stat $fd dl1:dead in_flight]
    } {42 doomed 1 1} {debugtime}

    test {maxdeliver with dlq=: the dead letter goes to the named queue} {
        mc_exchange $fd "qcreate dl2 maxdeliver=1 lease=5 dlq=graveyard\r\n"
        set a [q_push $fd dl2 gone 7]
        set b [q_push $fd dl2 stays 8]
        mc_exchange $fd "qpop dl2\r\n"
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek dl2 5\r\n"] "OK\r\n[q_item $b 8 stays 0]END\r\n"
        assert_equal [mc_exchange $fd "qstats dl2:dead\r\n"] "NOT_FOUND\r\n"
        assert_equal [q_stat $fd dl2 dead] 1
        mc_exchange $fd "qpeek graveyard 5\r\n"
    } "ITEM * 7 4 0\r\ngone\r\nEND\r\n" {debugtime}

    test {maxdeliver: a message acked or released in time never goes dead} {
        mc_exchange $fd "qcreate dl3 maxdeliver=1 lease=5\r\n"
        set a [q_push $fd dl3 a]
        mc_exchange $fd "qpop dl3\r\n"
        assert_equal [mc_exchange $fd "qack dl3 $a\r\ndebugtime 6\r\nqpop dl3\r\n"] "ACKED\r\nOK\r\nEND\r\n"
        list [q_stat $fd dl3 dead] [mc_exchange $fd "qpeek dl3:dead\r\nqstats dl3:dead\r\n"]
    } [list 0 "END\r\nNOT_FOUND\r\n"] {debugtime}

    # ---- qpeek, qpending ----

    test {qpeek: ready messages in delivery order, without leasing them} {
        set a [q_push $fd k1 a 0 0 9]
        set b [q_push $fd k1 b 0 0 3]
        set c [q_push $fd k1 c 0 100 1]
        set d [q_push $fd k1 d 0 0 9]
        assert_equal [mc_exchange $fd "qpeek k1\r\nqpeek k1 2\r\nqpeek k1 100\r\nqpending k1\r\n"] \
            [string cat "[q_item $b 0 b 0]END\r\n[q_item $b 0 b 0][q_item $a 0 a 0]END\r\n" \
                 "[q_item $b 0 b 0][q_item $a 0 a 0][q_item $d 0 d 0]END\r\nEND\r\n"]
        # In-flight messages are not ready: peek skips them.
        mc_exchange $fd "qpop k1\r\n"
        assert_equal [mc_exchange $fd "qpeek k1 100\r\n"] "[q_item $a 0 a 0][q_item $d 0 d 0]END\r\n"
        q_counts $fd k1
    } {2 1 1}

    test {qpeek and qpending on a missing queue are END, and create nothing} {
        mc_exchange $fd "qpeek nosuch7\r\nqpeek nosuch7 5\r\nqpending nosuch7\r\nqpending nosuch7 values\r\nqstats nosuch7\r\n"
    } "END\r\nEND\r\nEND\r\nEND\r\nNOT_FOUND\r\n"

    test {qpending: earliest lease end first, with values or not} {
        set a [q_push $fd e1 alpha 1]
        set b [q_push $fd e1 beta 2]
        set c [q_push $fd e1 gamma 3]
        mc_exchange $fd "qpop e1 lease=50\r\nqpop e1 lease=20\r\nqpop e1 lease=35\r\n"
        set p [q_pending $fd e1]
        assert_equal [llength $p] 3
        assert_equal [lmap x $p {lrange $x 0 3}] [list [list $b 2 4 1] [list $c 3 5 1] [list $a 1 5 1]]
        set slack [expr {2000 * [time_factor]}]
        assert_range [lindex $p 0 4] [expr {20000 - $slack}] 20000
        assert_range [lindex $p 1 4] [expr {35000 - $slack}] 35000
        assert_range [lindex $p 2 4] [expr {50000 - $slack}] 50000
        set r [mc_exchange $fd "qpending e1 values\r\n"]
        regsub -all {(PENDING \d+ \d+ \d+ \d+) \d+\r\n} $r "\\1 L\r\n" r
        assert_equal $r [string cat "PENDING $b 2 4 1 L\r\nbeta\r\nPENDING $c 3 5 1 L\r\ngamma\r\n" \
                             "PENDING $a 1 5 1 L\r\nalpha\r\nEND\r\n"]
    }

    test {qpending after debugtime: the remaining lease shrinks by the shift} {
        set a [q_push $fd e2 x]
        mc_exchange $fd "qpop e2 lease=100\r\ndebugtime 60\r\n"
        set left [lindex [q_pending $fd e2] 0 4]
        assert_range $left [expr {40000 - 2000 * [time_factor]}] 40000
    } {} {debugtime}

    # ---- qstats, qpurge ----

    test {qstats: every field after pushes, pops, acks, releases and a lease running out} {
        mc_exchange $fd "qcreate s1 lease=10 maxdeliver=5 maxlen=100 dlq=s1graves\r\n"
        set a [q_push $fd s1 a]
        set b [q_push $fd s1 b]
        set c [q_push $fd s1 c]
        set d [q_push $fd s1 d 0 100]
        mc_exchange $fd "qpop s1 2\r\nqack s1 $a\r\nqrelease s1 $b\r\nqpop s1 lease=5\r\ndebugtime 6\r\n"
        set r [mc_exchange $fd "qstats s1\r\n"]
        # The oldest ready message (b, pushed before the 6 s shift) is 6 s
        # old, or 7 if a real second went by meanwhile.
        if {![regsub {STAT age_oldest_ready ([67])\r\n} $r "STAT age_oldest_ready A\r\n" r]} {
            fail "age_oldest_ready: '[visible $r]'"
        }
        set r
    } [q_stats_reply 2 1 0 0 0 4 3 1 1 1 0 0 A 10000 5 100 s1graves] {debugtime}

    test {qpurge: drops ready and delayed messages; in-flight ones can still be acked} {
        set a [q_push $fd u1 a]
        set b [q_push $fd u1 b]
        set c [q_push $fd u1 c 0 100]
        mc_exchange $fd "qpop u1\r\n"
        assert_equal [mc_exchange $fd "qpurge u1\r\nqpeek u1\r\nqpurge u1\r\n"] "PURGED 2\r\nEND\r\nPURGED 0\r\n"
        assert_equal [q_counts $fd u1] {0 0 1}
        assert_equal [q_stat $fd u1 purged] 2
        mc_exchange $fd "qack u1 $a\r\nqpurge nosuch8\r\nqstats nosuch8\r\n"
    } "ACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\n"

    test {qpurge: the queue stays usable afterwards} {
        q_push $fd u2 a
        mc_exchange $fd "qpurge u2\r\n"
        set b [q_push $fd u2 b]
        assert_equal [mc_exchange $fd "qpop u2\r\n"] "[q_item $b 0 b 1]END\r\n"
    }

    # ---- the queue as a key ----

    test {delete removes a queue with its messages; a new one starts empty} {
        set a [q_push $fd x1 a]
        q_push $fd x1 b
        mc_exchange $fd "qpop x1\r\n"
        assert_equal [mc_exchange $fd "delete x1\r\nqstats x1\r\nqack x1 $a\r\nqpeek x1\r\ndelete x1\r\n"] \
            "DELETED\r\nNOT_FOUND\r\nNOT_FOUND\r\nEND\r\nNOT_FOUND\r\n"
        set c [q_push $fd x1 c]
        assert_equal [mc_exchange $fd "qack x1 $a\r\nqpeek x1 5\r\n"] "NOT_FOUND\r\n[q_item $c 0 c 0]END\r\n"
        mc_exchange $fd "qstats x1\r\n"
    } [q_stats_reply 1 0 0 0 0 1 0 0 0 0 0 0 0 30000 0 0 x1:dead]

    test {delete of a queue wakes its waiters with END} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_exchange $fd "qcreate x2\r\n"
        mc_send $w1 "qpop x2 wait=100\r\n"
        wait_for {[q_stat $fd x2 waiters] == 1}
        mc_send $w2 "qpop x2 3 wait=100\r\n"
        wait_for {[q_stat $fd x2 waiters] == 2}
        assert_equal [mc_exchange $fd "delete x2\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $w1 ""] "END\r\n"
        assert_equal [mc_exchange $w2 ""] "END\r\n"
        mc_close $w1
        mc_close $w2
        mc_exchange $fd "qstats x2\r\n"
    } "NOT_FOUND\r\n"

    test {touch gives a queue a TTL; it is gone when the clock passes it} {
        set a [q_push $fd x3 a]
        assert_equal [mc_exchange $fd "touch x3 10\r\ndebugtime 5\r\nqpeek x3\r\ndebugtime 6\r\nqpeek x3\r\nqstats x3\r\n"] \
            "TOUCHED\r\nOK\r\n[q_item $a 0 a 0]END\r\nOK\r\nEND\r\nNOT_FOUND\r\n"
    } {} {debugtime}

    test {flush_all removes queues too} {
        q_push $fd x4 a
        mc_exchange $fd "flush_all\r\nqstats x4\r\nqpeek x4\r\n"
    } "OK\r\nNOT_FOUND\r\nEND\r\n"

    # ---- maxlen ----

    test {maxlen: a full queue answers NOT_STORED; in-flight messages count} {
        mc_exchange $fd "qcreate m1 maxlen=2\r\n"
        set a [q_push $fd m1 a]
        set b [q_push $fd m1 b 0 100]
        assert_equal [mc_exchange $fd "qpush m1 0 0 1\r\nc\r\nqpop m1\r\nqpush m1 0 0 1\r\nc\r\n"] \
            "NOT_STORED\r\n[q_item $a 0 a 1]END\r\nNOT_STORED\r\n"
        assert_equal [mc_exchange $fd "qack m1 $a\r\n"] "ACKED\r\n"
        set c [q_push $fd m1 c]
        set r [mc_exchange $fd "qpush m1 0 0 1 noreply\r\nd\r\nqpush m1 0 0 1 3\r\nd\r\nqpeek m1 5\r\n"]
        assert_equal $r "NOT_STORED\r\n[q_item $c 0 c 0]END\r\n"
        q_stats $fd m1
    } {ready 1 delayed 1 in_flight 0 buried 0 waiters 0 pushed 3 popped 1 acked 1 released 0 lease_expired 0 dead 0 purged 0 age_oldest_ready 0 lease_ms 30000 max_deliveries 0 max_length 2 dlq m1:dead max_age_ms 0 expired_age 0 redriven 0 kicked 0 dedup_window_ms 300000 dedup_entries 0 deduplicated 0 paused_ms_left 0 grouped 0 groups 0 expired dead expired_ttl 0 dropped 0}

    # ---- malformed and hostile input ----

    test {wrong token counts are ERROR for every verb} {
        # qack, qrelease and qtouch take up to 100 receipts (queue_batch.tcl).
        set lines {qpop "qpop q 1 lease=1 wait=1 ack=1 x" qack "qack q"
            qrelease "qrelease q" qtouch "qtouch q"
            qpeek "qpeek q 1 x" qpending "qpending q values 1 x" qstats "qstats q x"
            qpurge "qpurge q noreply x"}
        set r {}
        foreach l $lines { append r [mc_exchange $fd "$l\r\n"] }
        assert_equal $r [string repeat "ERROR\r\n" [llength $lines]]
        mc_exchange $fd "qstats q\r\n"
    } "NOT_FOUND\r\n"

    test {commands are case-sensitive and whole words} {
        mc_exchange $fd "QPOP h1\r\nQpush h1 0 0 1\r\nqpopx h1\r\nqpop\th1\r\nqpush2 h1 0 0 1\r\nqpeek h1\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\nEND\r\n"

    test {a 251-byte key is CLIENT_ERROR for every verb; 250 bytes work} {
        set r [mc_exchange $fd [string cat "qpop $K251\r\nqpop $K251 wait=1\r\nqack $K251 1\r\n" \
                                    "qrelease $K251 1\r\nqtouch $K251 1\r\nqpeek $K251\r\n" \
                                    "qpending $K251\r\nqstats $K251\r\nqpurge $K251\r\n"]]
        assert_equal $r [string repeat "CLIENT_ERROR key too long\r\n" 9]
        set a [q_push $fd $K250 long]
        assert_equal [mc_exchange $fd "qpop $K250\r\nqack $K250 $a\r\n"] "[q_item $a 0 long 1]END\r\nACKED\r\n"
    }

    test {qpop: bad counts, leases and waits, unknown options and misplaced counts} {
        q_push $fd h2 x
        set r {}
        set want {}
        set cnt "count must be 1..100"
        set lease "bad value for lease"
        set wait "bad value for wait"
        set bad [list 0 $cnt 101 $cnt -1 $cnt abc $cnt 1x $cnt 1000000 $cnt \
                     99999999999999999999999 $cnt lease=0 $lease lease=-1 $lease lease=abc $lease \
                     lease= $lease lease=1e3 $lease lease=100000001 $lease wait=-1 $wait wait=abc $wait \
                     wait= $wait wait=1x $wait wait=100000001 $wait foo=1 "unknown option foo" \
                     LEASE=5 "unknown option LEASE" values $cnt {lease=5 3} "unknown option 3" \
                     {1 2} "unknown option 2" {1 lease=5 x=1} "unknown option x"]
        foreach {args why} $bad {
            append r [mc_exchange $fd "qpop h2 $args\r\n"]
            append want "CLIENT_ERROR $why\r\n"
        }
        assert_equal $r $want
        # Nothing was leased by the refused commands.
        q_counts $fd h2
    } {1 0 0}

    test {qack, qrelease, qtouch: bad ids, delays and leases} {
        set a [q_push $fd h3 x]
        mc_exchange $fd "qpop h3\r\n"
        set lines [list "qack h3 abc" id "qack h3 -1" id "qack h3 18446744073709551616" id "qack h3 1x" id \
                       "qack h3 $a 5x" id "qrelease h3 abc" id "qrelease h3 -$a" id \
                       "qrelease h3 $a abc" delay "qrelease h3 $a 1x" delay "qtouch h3 xyz" id \
                       "qtouch h3 $a 0" lease "qtouch h3 $a -5" lease "qtouch h3 $a abc" lease \
                       "qtouch h3 $a 100000001" lease]
        set r {}
        set want {}
        foreach {l why} $lines {
            append r [mc_exchange $fd "$l\r\n"]
            append want [expr {$why eq "many" ? "CLIENT_ERROR too many tokens\r\n" : "CLIENT_ERROR bad $why\r\n"}]
        }
        assert_equal $r $want
        # The message is still in flight, untouched.
        mc_exchange $fd "qack h3 $a\r\n"
    } "ACKED\r\n"

    test {qpeek, qpending, qpurge: bad counts and unknown words} {
        set a [q_push $fd h4 x]
        assert_equal [mc_exchange $fd [string cat "qpeek h4 0\r\nqpeek h4 101\r\nqpeek h4 -1\r\nqpeek h4 abc\r\n" \
                             "qpeek h4 99999999999999999999\r\nqpending h4 value\r\nqpending h4 VALUES\r\n" \
                             "qpurge h4 now\r\nqpeek h4 100\r\n"]] \
            [string cat [string repeat "CLIENT_ERROR count must be 1..100\r\n" 5] \
                 [string repeat "CLIENT_ERROR count must be 1..10000\r\n" 2] \
                 "CLIENT_ERROR too many tokens\r\n" [q_item $a 0 x 0] "END\r\n"]
    }

    test {hostile input: a pipeline of 2000 malformed queue commands, then a good one} {
        set cmds {}
        for {set i 0} {$i < 1000} {incr i} { append cmds "qpop h6 $i$i$i lease=x\r\nqack h6 x$i\r\n" }
        mc_exchange $fd "${cmds}qpeek h6\r\n"
    } "[string repeat "CLIENT_ERROR count must be 1..100\r\nCLIENT_ERROR bad id\r\n" 1000]END\r\n"

    test {hostile input: a qpush of 2^31 bytes is refused without waiting for the data} {
        # The length is valid but far beyond -I: too large; what follows is
        # swallowed, so the connection is closed here rather than fed 2 GB.
        set c [mc_connect]
        mc_send $c "qpush h5 0 0 2147483645\r\n"
        set r [mc_readline $c]
        mc_close $c
        set r
    } "SERVER_ERROR object too large for cache"

    test {tokens separated by several spaces are accepted} {
        set r [mc_exchange $fd "qpush   h7  5  0  1   7  \r\nx\r\nqpop  h7   1  lease=5  \r\n"]
        regsub -all {(PUSHED|ITEM) \d+} $r {\1 N} r
        set r
    } "PUSHED N\r\nITEM N 5 1 1\r\nx\r\nEND\r\n"
}

# ---- stats totals ----

# qpurge and delete hand the messages to a background thread (the
# reaper): the reply comes at once, whatever the queue holds, and the
# memory comes back shortly after (queue_reclaiming counts what waits).
start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpurge of 60,000 messages (ready, packed, delayed): leases kept, ids go on, memory given back} {
        set b ""
        for {set i 0} {$i < 200} {incr i} {
            append b "qpushn big 0 0 0 [join [lrepeat 100 2] { }] noreply\r\n" [string repeat "ab\r\n" 100]
            append b "qpushn big 0 600 5 [join [lrepeat 100 2] { }] noreply\r\n" [string repeat "cd\r\n" 100]
            append b "qpushn big 0 0 7 [join [lrepeat 100 2] { }] noreply\r\n" [string repeat "ef\r\n" 100]
        }
        mc_exchange $fd $b
        set held [q_pop $fd big 3 lease=600]
        set before [mc_malloced $fd]
        assert_equal [mc_exchange $fd "qpurge big\r\n"] "PURGED 59997\r\n"
        wait_for {[mc_stat $fd queue_reclaiming] == 0}
        set after [mc_malloced $fd]
        assert_true {$before - $after > 59997 * 2} "total_malloced $after, before the purge $before"
        set acks [lmap it $held { mc_exchange $fd "qack big [lindex $it 0]:[lindex $it 3]\r\n" }]
        set id [q_push $fd big again]
        set it [lindex [q_pop $fd big 1] 0]
        list [lsort -unique $acks] [expr {$id > [lindex $held end 0]}] [lindex $it 2] [q_counts $fd big]
    } [list [list "ACKED\r\n"] 1 again {0 0 1}]

    test {delete of a queue of 60,000 messages: DELETED at once, memory given back} {
        set b ""
        for {set i 0} {$i < 600} {incr i} {
            append b "qpushn big2 0 0 3 [join [lrepeat 100 2] { }] noreply\r\n" [string repeat "gh\r\n" 100]
        }
        mc_exchange $fd $b
        set before [mc_malloced $fd]
        assert_equal [mc_exchange $fd "delete big2\r\n"] "DELETED\r\n"
        wait_for {[mc_stat $fd queue_reclaiming] == 0}
        list [expr {$before - [mc_malloced $fd] > 60000 * 2}] [mc_exchange $fd "qstats big2\r\n"]
    } [list 1 "NOT_FOUND\r\n"]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {stats: queue totals start at zero} {
        set s [mc_stats $fd]
        lmap n {queues queue_ready queue_delayed queue_in_flight queue_waiters queue_pushed
            queue_popped queue_acked queue_released queue_lease_expired queue_dead} {dict get $s $n}
    } {0 0 0 0 0 0 0 0 0 0 0}

    test {stats: queue totals add up over every queue} {
        set a1 [q_push $fd sa a1]
        set a2 [q_push $fd sa a2]
        q_push $fd sa a3 0 100
        q_push $fd sb b1
        q_push $fd sb b2
        mc_exchange $fd "qpop sa\r\nqack sa $a1\r\nqpop sa\r\nqrelease sa $a2\r\nqpop sa lease=5\r\nqpop sb 2\r\n"
        set w [mc_connect]
        mc_send $w "qpop sw wait=100\r\n"
        wait_for {[mc_stat $fd queue_waiters] == 1}
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek sa\r\n"] "OK\r\n[q_item $a2 0 a2 2]END\r\n"
        set s [mc_stats $fd]
        set got [lmap n {queues queue_ready queue_delayed queue_in_flight queue_waiters queue_pushed
            queue_popped queue_acked queue_released queue_lease_expired queue_dead} {dict get $s $n}]
        assert_equal $got {3 1 1 2 1 5 5 1 1 1 0}
        assert_equal [mc_exchange $fd "delete sw\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $w ""] "END\r\n"
        mc_close $w
        list [mc_stat $fd queues] [mc_stat $fd queue_waiters]
    } {2 0} {debugtime}

    test {stats: queue_dead counts dead letters} {
        mc_exchange $fd "qcreate sd maxdeliver=1 lease=2\r\n"
        q_push $fd sd x
        mc_exchange $fd "qpop sd\r\ndebugtime 3\r\nqpeek sd\r\n"
        list [mc_stat $fd queue_dead] [q_stat $fd sd dead] [q_stat $fd sd:dead ready]
    } {1 1 1} {debugtime}
}

# ---- memory ----

start_server {tags {queue mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {-M: a push that does not fit is SERVER_ERROR out of memory; nothing queued is lost} {
        set n [q_fill $fd mq 40000 200]
        assert_range $n 10 60
        # The refused data was swallowed; more pushes and a cache set fail too.
        set big [string repeat y 40000]
        assert_equal [mc_exchange $fd "qpush mq 0 0 40000\r\n$big\r\nset mc 0 0 40000\r\n$big\r\nqpeek nosuch\r\n"] \
            "SERVER_ERROR out of memory storing object\r\nSERVER_ERROR out of memory storing object\r\nEND\r\n"
        assert_equal [q_counts $fd mq] [list $n 0 0]
        assert_equal [mc_stat $fd evictions] 0
        q_drain_check $fd mq $n 40000
        # With the queue drained there is room again.
        q_push $fd mq [string repeat z 40000]
        q_counts $fd mq
    } {1 0 0}

    test {-M: memory is given back by acks, qpurge and delete: as many messages fit again} {
        mc_exchange $fd "delete mq\r\n"
        set n [q_fill $fd mg 40000 200]
        q_drain_check $fd mg $n 40000
        assert_equal [q_fill $fd mg 40000 200] $n "after acking everything"
        assert_equal [mc_exchange $fd "qpurge mg\r\n"] "PURGED $n\r\n"
        # The purged messages' memory comes back on the reaper thread; a
        # push that needs it at once waits for it rather than fail.
        assert_equal [q_fill $fd mg 40000 200] $n "after qpurge"
        # Leases that run out and messages released keep their memory.
        set items [q_pop $fd mg 100 lease=1]
        set rel {}
        foreach it [lrange $items 0 9] { append rel "qrelease mg [lindex $it 0]\r\n" }
        mc_exchange $fd "${rel}debugtime 2\r\n"
        assert_equal [mc_exchange $fd "qpush mg 0 0 40000\r\n[string repeat y 40000]\r\n"] \
            "SERVER_ERROR out of memory storing object\r\n"
        q_drain_check $fd mg $n 40000
        assert_match "PUSHED *\r\nDELETED\r\n" [mc_exchange $fd "qpush mg 0 0 1\r\nz\r\ndelete mg\r\n"]
        assert_equal [q_fill $fd mg2 40000 200] $n "after deleting the queue"
        mc_exchange $fd "delete mg2\r\n"
    } "DELETED\r\n" {debugtime}

    test {-M: noreply hides the out of memory error} {
        mc_exchange $fd "qpurge mq\r\n"
        set n [q_fill $fd mq2 40000 200]
        set big [string repeat y 40000]
        assert_equal [mc_exchange $fd "qpush mq2 0 0 40000 noreply\r\n$big\r\nqpeek nosuch\r\n"] "END\r\n"
        assert_equal [q_stat $fd mq2 ready] $n
        mc_exchange $fd "delete mq2\r\n"
    } "DELETED\r\n"
}

start_server {tags {queue mcds-only} args {-m 2}} {
    set fd [mc_connect]

    test {without -M: cache items are evicted to make room, queue messages never are} {
        set v [string repeat c 40000]
        for {set i 0} {$i < 30} {incr i} { assert_equal [mc_set $fd cache$i $v] STORED }
        set n [q_fill $fd eq 40000 200]
        assert_true {$n > 30} "only $n messages fitted beside the cache"
        assert_true {[mc_stat $fd evictions] >= 1}
        # The oldest cache items made room.
        assert_equal [mc_get $fd cache0] {}
        # Now only queue messages are left to evict: a cache set cannot
        # push them out.
        assert_equal [mc_set $fd late $v] "SERVER_ERROR out of memory storing object"
        assert_equal [q_counts $fd eq] [list $n 0 0]
        q_drain_check $fd eq $n 40000
        mc_set $fd late $v
    } STORED

    test {without -M: messages in flight and delayed are not evicted either} {
        set n [q_fill $fd eq2 40000 200 d]
        # Lease half of them, delay none; a burst of cache sets must fail
        # rather than evict them.
        set half [expr {$n / 2}]
        set items [q_pop $fd eq2 $half lease=1000]
        assert_equal [llength $items] $half
        set v [string repeat c 40000]
        for {set i 0} {$i < 20} {incr i} {
            assert_equal [mc_set $fd more$i $v] "SERVER_ERROR out of memory storing object"
        }
        set acks {}
        foreach it $items { append acks "qrelease eq2 [lindex $it 0]\r\n" }
        assert_equal [mc_exchange $fd $acks] [string repeat "RELEASED\r\n" $half]
        assert_equal [q_counts $fd eq2] [list $n 0 0]
        q_drain_check $fd eq2 $n 40000 d
        mc_set $fd more $v
    } STORED
}

# qpop ... ack=<id>: confirm one message and lease the next in one request.
start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpop ack=<id> acks that message, then leases the next} {
        set r [mc_exchange $fd "qpush ak 0 0 1\r\nx\r\nqpush ak 0 0 1\r\ny\r\nqpop ak\r\n"]
        regexp {ITEM (\d+) } $r -> id1
        set r [mc_exchange $fd "qpop ak ack=$id1\r\n"]
        regexp {ITEM (\d+) } $r -> id2
        regsub -all {ITEM \d+} $r {ITEM N} r
        list $r [mc_exchange $fd "qack ak $id1\r\nqpop ak ack=$id2\r\nqstats ak\r\n"]
    } [list "ACKED\r\nITEM N 0 1 1\r\ny\r\nEND\r\n" \
        "NOT_FOUND\r\nACKED\r\nEND\r\n[q_stats_reply 0 0 0 0 0 2 2 2 0 0 0 0 0 30000 0 0 ak:dead]"]

    test {qpop ack= of an unknown id answers NOT_FOUND and still pops} {
        regsub -all {ITEM \d+} [mc_exchange $fd "qpush ak2 7 0 2\r\nhi\r\nqpop ak2 ack=999999\r\n"] {ITEM N} r
        set r
    } "PUSHED *\r\nNOT_FOUND\r\nITEM N 7 2 1\r\nhi\r\nEND\r\n"

    test {qpop ack= on a missing queue: NOT_FOUND then END} {
        mc_exchange $fd "qpop nosuchq ack=5\r\n"
    } "NOT_FOUND\r\nEND\r\n"

    test {qpop ack= with a bad id is CLIENT_ERROR, nothing acked} {
        set r [mc_exchange $fd "qpush ak3 0 0 1\r\nz\r\nqpop ak3\r\n"]
        regexp {ITEM (\d+) } $r -> id
        list [mc_exchange $fd "qpop ak3 ack=x\r\nqpop ak3 ack=\r\nqpop ak3 ack=-$id\r\n"] \
             [mc_exchange $fd "qack ak3 $id\r\n"]
    } [list [string repeat "CLIENT_ERROR bad value for ack\r\n" 3] "ACKED\r\n"]

    test {qpop ack= wait=: the ack answers at once, the items when they come} {
        set r [mc_exchange $fd "qpush ak4 0 0 1\r\na\r\nqpop ak4\r\n"]
        regexp {ITEM (\d+) } $r -> id
        set other [mc_connect]
        mc_send $fd "qpop ak4 ack=$id wait=5\r\n"
        set first [mc_readline $fd]
        mc_exchange $other "qpush ak4 0 0 1\r\nb\r\n"
        list $first [mc_readline $fd] [mc_readline $fd] [mc_readline $fd]
    } {ACKED {ITEM * 0 1 1} b END}
}
