# Batch qack, qrelease and qtouch (doc/protocol.md, "3. Queues"): several
# receipts in one request, one reply line per receipt in order; the
# single-receipt forms answer as before; a bad token anywhere refuses the
# whole line before anything changes; at most 100 receipts. Leases and
# delays move on the debugtime clock. Helpers are in t/support/queue.tcl.

# ids_of items -> the ids of parsed q_pop items.
proc ids_of {items} {
    set ids {}
    foreach m $items { lappend ids [lindex $m 0] }
    return $ids
}

# receipts_of items -> "<id>:<deliveries>" of parsed q_pop items.
proc receipts_of {items} {
    set rs {}
    foreach m $items { lappend rs "[lindex $m 0]:[lindex $m 3]" }
    return $rs
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qack of three receipts: ACKED three times, the queue is empty} {
        foreach d {a b c} { q_push $fd b1 $d }
        set rs [receipts_of [q_pop $fd b1 3]]
        assert_equal [mc_exchange $fd "qack b1 [join $rs]\r\n"] [string repeat "ACKED\r\n" 3]
        list [q_stat $fd b1 acked] [q_stat $fd b1 in_flight] [q_stat $fd b1 ready]
    } {3 0 0}

    test {qack batch: per-entry lines in order, NOT_FOUND for unknown, repeated and stale receipts} {
        foreach d {a b c} { q_push $fd b2 $d }
        lassign [q_pop $fd b2 3] m1 m2 m3
        set id1 [lindex $m1 0]; set id2 [lindex $m2 0]; set id3 [lindex $m3 0]
        mc_exchange $fd "qack b2 $id1:1 999999999 $id2:2 $id1 $id3 $id2:1\r\n"
    } "ACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nACKED\r\nACKED\r\n"

    test {qack on a missing queue: one NOT_FOUND per receipt} {
        mc_exchange $fd "qack b_none 1 2 3:4\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\n"

    test {the single-receipt forms answer one line as before} {
        foreach d {a b c} { q_push $fd b3 $d }
        lassign [receipts_of [q_pop $fd b3 3]] r1 r2 r3
        mc_exchange $fd "qack b3 $r1\r\nqrelease b3 $r2 0\r\nqtouch b3 $r3 5\r\nqack b3 $r1\r\n"
    } "ACKED\r\nRELEASED\r\nTOUCHED\r\nNOT_FOUND\r\n"

    test {qrelease batch without a delay: every message ready again, deliveries kept} {
        foreach d {a b c} { q_push $fd b4 $d }
        set items [q_pop $fd b4 3]
        assert_equal [mc_exchange $fd "qrelease b4 [join [receipts_of $items]]\r\n"] \
            [string repeat "RELEASED\r\n" 3]
        set again [q_pop $fd b4 3]
        list [expr {[ids_of $again] eq [ids_of $items]}] [lsort -unique [lmap m $again {lindex $m 3}]]
    } {1 2}

    test {qrelease of exactly two ids needs delay= (two bare numbers are <id> <delay>)} {
        foreach d {a b} { q_push $fd b5 $d }
        lassign [ids_of [q_pop $fd b5 2]] a b
        assert_equal [mc_exchange $fd "qrelease b5 $a $b delay=0\r\n"] "RELEASED\r\nRELEASED\r\n"
        q_stat $fd b5 ready
    } 2

    test {qrelease batch with delay=: all delayed, due together} {
        foreach d {a b c} { q_push $fd b6 $d }
        set ids [ids_of [q_pop $fd b6 3]]
        assert_equal [mc_exchange $fd "qrelease b6 [join $ids] delay=10\r\n"] [string repeat "RELEASED\r\n" 3]
        assert_equal [list [q_stat $fd b6 delayed] [q_stat $fd b6 ready]] {3 0}
        assert_equal [mc_exchange $fd "debugtime 9\r\nqpop b6\r\n"] "OK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        expr {[ids_of [q_pop $fd b6 3]] eq $ids}
    } 1 {debugtime}

    test {qtouch batch with lease=: every lease extended; the default is the queue's lease} {
        mc_exchange $fd "qcreate b7 lease=5\r\n"
        foreach d {a b c} { q_push $fd b7 $d }
        set rs [receipts_of [q_pop $fd b7 3]]
        assert_equal [mc_exchange $fd "debugtime 4\r\nqtouch b7 [join $rs] lease=20\r\n"] \
            "OK\r\n[string repeat "TOUCHED\r\n" 3]"
        assert_equal [mc_exchange $fd "debugtime 10\r\nqpop b7\r\n"] "OK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "qtouch b7 [join $rs]\r\n"] [string repeat "TOUCHED\r\n" 3]
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpop b7\r\n"] "OK\r\nEND\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        llength [q_pop $fd b7 3]
    } 3 {debugtime}

    test {noreply silences a batch (and its errors); the batch is done} {
        foreach d {a b c} { q_push $fd b8 $d }
        set ids [ids_of [q_pop $fd b8 3]]
        mc_exchange $fd "qack b8 [join $ids] noreply\r\nqack b8 1 x noreply\r\nqstats b8\r\n"
        list [q_stat $fd b8 acked] [q_stat $fd b8 in_flight]
    } {3 0}

    test {100 receipts are taken, 101 are CLIENT_ERROR too many ids and nothing is acked} {
        for {set i 0} {$i < 101} {incr i} { q_push $fd b9 m$i }
        set ids [ids_of [q_pop $fd b9 100]]
        lappend ids {*}[ids_of [q_pop $fd b9 1]]
        assert_equal [mc_exchange $fd "qack b9 [join $ids]\r\n"] "CLIENT_ERROR too many ids\r\n"
        assert_equal [mc_exchange $fd "qrelease b9 [join $ids] delay=0\r\n"] "CLIENT_ERROR too many ids\r\n"
        assert_equal [q_stat $fd b9 in_flight] 101
        assert_equal [mc_exchange $fd "qack b9 [join [lrange $ids 0 99]]\r\n"] [string repeat "ACKED\r\n" 100]
        assert_equal [mc_exchange $fd "qack b9 [join [lrange $ids 100 end]] [join [lrange $ids 0 99]] 1 2\r\n"] \
            "CLIENT_ERROR too many ids\r\n"
        list [q_stat $fd b9 acked] [q_stat $fd b9 in_flight]
    } {100 1}

    test {thousands of tokens: CLIENT_ERROR too many ids, the connection goes on} {
        set line "qack b10[string repeat " 1" 3000]"
        assert_equal [mc_exchange $fd "$line\r\n"] "CLIENT_ERROR too many ids\r\n"
        mc_exchange $fd "$line noreply\r\n"
    } {}

    test {a bad receipt anywhere refuses the whole line and acks nothing} {
        foreach d {a b c} { q_push $fd b11 $d }
        set ids [ids_of [q_pop $fd b11 3]]
        lassign $ids a b c
        set r {}
        foreach bad [list x -1 1:0 1: :1 18446744073709551616 1:4294967296 1:x 1.5 noreply delay=1 lease=1] {
            append r [mc_exchange $fd "qack b11 $a $b $bad $c\r\n"]
        }
        assert_equal $r [string cat [string repeat "CLIENT_ERROR bad id\r\n" 9] \
            "CLIENT_ERROR noreply must be the last token\r\n" \
            "CLIENT_ERROR unknown option delay\r\nCLIENT_ERROR unknown option lease\r\n"]
        list [q_stat $fd b11 acked] [q_stat $fd b11 in_flight]
    } {0 3}

    test {bad options of a batch: refused whole} {
        foreach d {a b c} { q_push $fd b12 $d }
        lassign [ids_of [q_pop $fd b12 3]] a b c
        set r {}
        foreach line [list "qrelease b12 $a $b $c delay=x" "qrelease b12 $a $b $c delay=1 delay=2" \
                          "qrelease b12 $a $b $c delay=2147483648" "qrelease b12 $a $b $c lease=5" \
                          "qtouch b12 $a $b $c lease=0" "qtouch b12 $a $b $c lease=-1" \
                          "qtouch b12 $a $b $c delay=5" "qtouch b12 $a $b $c lease=1 lease=2" \
                          "qrelease b12 delay=1" "qtouch b12 lease=1" "qack b12 $a delay=1"] {
            append r [mc_exchange $fd "$line\r\n"]
        }
        assert_equal $r [string cat [string repeat "CLIENT_ERROR bad value for delay\r\n" 3] \
            "CLIENT_ERROR unknown option lease\r\n" [string repeat "CLIENT_ERROR bad value for lease\r\n" 2] \
            "CLIENT_ERROR unknown option delay\r\nCLIENT_ERROR bad value for lease\r\n" \
            [string repeat "CLIENT_ERROR bad id\r\n" 2] "CLIENT_ERROR unknown option delay\r\n"]
        list [q_stat $fd b12 released] [q_stat $fd b12 in_flight]
    } {0 3}

    test {batch on a key holding a cache value or a too long key: one error line} {
        assert_equal [mc_set $fd b13 plain] STORED
        mc_exchange $fd "qack b13 1 2\r\nqack [string repeat k 251] 1 2\r\nqack\r\nqack b13\r\n"
    } "CLIENT_ERROR key holds another type of value\r\nCLIENT_ERROR key too long\r\nERROR\r\nERROR\r\n"

}
