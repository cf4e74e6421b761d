# A message's own time to live (doc/protocol.md, "3. Queues", qpush and
# qpushn ttl=, qcreate expired=): a message not acked within its ttl of
# its push expires as one past the queue's maxage does, on the queue's
# timer, to the dead-letter queue (expired=dead, the default; buried when
# that queue cannot take it) or away (expired=drop, counted in dropped).
# Every test counts the messages: what goes in comes out, once. Time moves
# with debugtime only. Restarts are in t/integration/persist_queue_ttl.tcl.
# Helpers are in t/support/queue.tcl.

# tt_push fd queue data opts ?flags? ?delay? -> the id of
# "qpush <q> <flags> <delay> <bytes> <opts>".
proc tt_push {fd q data opts {flags 0} {delay 0}} {
    set line "qpush $q $flags $delay [string length $data] $opts"
    set r [mc_exchange $fd "$line\r\n$data\r\n"]
    if {![regexp {^PUSHED (\d+)\r\n$} $r -> id]} { fail "$line answered '[visible $r]'" }
    return $id
}

# tt_info fd queue id name -> one line of qinfo.
proc tt_info {fd q id name} {
    dict get [q_stat_lines $fd "qinfo $q $id"] $name
}

# tt_left fd queue id -> qinfo's ttl_ms_left in whole seconds, rounded up
# (the server clock runs on in milliseconds between two requests): -1
# and 0 as they are.
proc tt_left {fd q id} {
    set ms [tt_info $fd $q $id ttl_ms_left]
    expr {$ms <= 0 ? $ms : ($ms + 999) / 1000}
}

# tt_ids items -> the ids of parsed ITEMs.
proc tt_ids {items} {
    lmap m $items { lindex $m 0 }
}

# tt_pick fd queue names -> those qstats values, in order.
proc tt_pick {fd q names} {
    set s [q_stats $fd $q]
    lmap n $names { dict get $s $n }
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    # ---- replies and errors ----

    test {qpush ttl=: PUSHED; qinfo shows ttl_ms_left (-1 without a ttl); fractions allowed} {
        set a [tt_push $fd t1 one ttl=5]
        set b [tt_push $fd t1 two ttl=1.5]
        set c [q_push $fd t1 three]
        set bms [tt_info $fd t1 $b ttl_ms_left]
        list [tt_left $fd t1 $a] [expr {$bms > 500 && $bms <= 1500}] [tt_left $fd t1 $c] \
            [tt_pick $fd t1 {ready expired expired_ttl dropped}]
    } {5 1 -1 {3 dead 0 0}}

    test {qpush ttl= with a priority, dedup= in either order, flags, a delay and noreply} {
        set a [tt_push $fd t2 a "7 dedup=k1 ttl=10" 3]
        set b [tt_push $fd t2 b "ttl=10 dedup=k2"]
        assert_equal [mc_exchange $fd "qpush t2 0 0 1 dedup=k1 ttl=99\r\nz\r\n"] "PUSHED $a\r\n"
        assert_equal [mc_exchange $fd "qpush t2 0 0 1 5 ttl=10 noreply\r\nc\r\nqpush t2 0 100 1 ttl=200\r\nd\r\n"] \
            "PUSHED [expr {$b + 2}]\r\n"
        list [tt_left $fd t2 $a] [tt_info $fd t2 $a priority] [tt_info $fd t2 $a flags] \
            [tt_left $fd t2 $b] [tt_left $fd t2 [expr {$b + 2}]] \
            [tt_info $fd t2 [expr {$b + 2}] state] [tt_pick $fd t2 {ready delayed pushed deduplicated}]
    } {10 7 3 10 200 delayed {3 1 4 1}}

    test {qpush ttl=: bad values and a second ttl= are CLIENT_ERROR, the data discarded} {
        set r {}
        foreach v {ttl=0 ttl= ttl=-1 ttl=abc ttl=1x ttl=100000001 ttl=0.0001 "ttl=1 ttl=1" "ttl=2 dedup=x ttl=3"} {
            append r [mc_exchange $fd "qpush t3 0 0 9 $v\r\nflush_all\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad value for ttl\r\n" 9]
        assert_equal [mc_exchange $fd "qpush t3 0 0 9 ttl=0 noreply\r\nflush_all\r\nqpush t3 0 0 3 TTL=5\r\nabc\r\n"] \
            "CLIENT_ERROR unknown option TTL\r\n"
        set a [tt_push $fd t3 x ttl=100000000]
        set b [tt_push $fd t3 y ttl=0.001]
        list [q_stat $fd t3 pushed] [tt_left $fd t3 $a]
    } {2 100000000}

    test {qpush ttl=: a bad ttl comes after the line's other errors, as dedup='s does} {
        mc_exchange $fd "qpush t4 x 0 3 ttl=0\r\nabc\r\nqpush t4 0 0 3 a ttl=1\r\nabc\r\nqpush t4 0 0 3 5 noreply ttl=0\r\nabc\r\n"
    } "CLIENT_ERROR bad flags\r\nCLIENT_ERROR bad priority\r\nCLIENT_ERROR noreply must be the last token\r\n"

    test {qpushn ttl=: every message of the batch gets it, anywhere after the priority, with dedup=} {
        assert_match {PUSHED * *} [set r [mc_exchange $fd "qpushn t5 0 0 1024 1 ttl=4 2 dedup=n1\r\na\r\nbb\r\n"]]
        regexp {PUSHED (\d+) (\d+)} $r -> a b
        assert_equal [mc_exchange $fd "qpushn t5 0 0 1024 1 2 dedup=n1 ttl=9\r\na\r\nbb\r\n"] $r
        set r2 [mc_exchange $fd "qpushn t5 0 0 1024 ttl=2 1 noreply\r\nc\r\nqpushn t5 0 0 1024 1\r\nd\r\n"]
        regexp {PUSHED (\d+)} $r2 -> d
        list [tt_left $fd t5 $a] [tt_left $fd t5 $b] [tt_left $fd t5 [expr {$d - 1}]] \
            [tt_left $fd t5 $d] [tt_pick $fd t5 {ready pushed deduplicated}]
    } {4 4 2 -1 {4 4 2}}

    test {qpushn ttl=: bad and repeated values are CLIENT_ERROR, every block discarded} {
        set r {}
        foreach v {ttl=0 ttl=x "ttl=1 ttl=2" "ttl=100000001"} {
            append r [mc_exchange $fd "qpushn t6 0 0 1024 9 $v 5\r\nflush_all\r\nflush\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad value for ttl\r\n" 4]
        mc_exchange $fd "qpushn t6 0 0 1024 9 ttl=0 noreply\r\nflush_all\r\nqstats t6\r\n"
    } "NOT_FOUND\r\n"

    test {qcreate expired=dead|drop: shown in qstats; a bad value is CLIENT_ERROR and creates nothing} {
        assert_equal [mc_exchange $fd "qcreate e1 expired=drop\r\nqcreate e2 expired=dead\r\nqcreate e3\r\n"] \
            "CREATED\r\nCREATED\r\nCREATED\r\n"
        set r {}
        foreach v {expired= expired=Drop expired=dropped expired=1} {
            append r [mc_exchange $fd "qcreate e4 $v\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad value for expired\r\n" 4]
        list [q_stat $fd e1 expired] [q_stat $fd e2 expired] [q_stat $fd e3 expired] [mc_exchange $fd "qstats e4\r\n"]
    } [list drop dead dead "NOT_FOUND\r\n"]

    test {qcreate with every option: nine tokens} {
        mc_exchange $fd "qcreate e5 lease=1 maxdeliver=2 maxlen=3 dlq=e5d maxage=4 dedup=5 expired=drop\r\n"
        tt_pick $fd e5 {lease_ms max_deliveries max_length dlq max_age_ms dedup_window_ms expired}
    } {1000 2 3 e5d 4000 5000 drop}

    # ---- expiry ----

    test {a ready message past its ttl goes to the dead-letter queue, id and flags kept; its ttl gone there} {
        set a [tt_push $fd r1 old ttl=10 7]
        set b [q_push $fd r1 plain]
        set c [tt_push $fd r1 young ttl=20]
        assert_equal [mc_exchange $fd "debugtime 9\r\nqpeek r1 5\r\n"] \
            "OK\r\n[q_item $a 7 old 0][q_item $b 0 plain 0][q_item $c 0 young 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 1\r\nqpeek r1 5\r\nqpeek r1:dead 5\r\n"] \
            "OK\r\n[q_item $b 0 plain 0][q_item $c 0 young 0]END\r\n[q_item $a 7 old 0]END\r\n"
        assert_equal [tt_info $fd r1:dead $a ttl_ms_left] -1
        assert_equal [mc_exchange $fd "debugtime 10\r\nqpeek r1 5\r\n"] "OK\r\n[q_item $b 0 plain 0]END\r\n"
        list [tt_pick $fd r1 {ready pushed dead expired_ttl expired_age dropped}] \
            [expr {[tt_ids [q_pop $fd r1:dead 5]] eq [list $a $c]}]
    } {{1 3 2 2 0 0} 1} {debugtime}

    test {expired=drop: a ready message past its ttl is removed and counted, no dead-letter queue made} {
        mc_exchange $fd "qcreate d1 expired=drop\r\n"
        set a [tt_push $fd d1 gone ttl=2]
        set b [tt_push $fd d1 kept ttl=50]
        set c [q_push $fd d1 plain]
        assert_equal [mc_exchange $fd "debugtime 3\r\nqpeek d1 5\r\nqstats d1:dead\r\n"] \
            "OK\r\n[q_item $b 0 kept 0][q_item $c 0 plain 0]END\r\nNOT_FOUND\r\n"
        list [tt_pick $fd d1 {ready pushed dead expired_ttl dropped}] [mc_exchange $fd "qinfo d1 $a\r\n"]
    } [list {2 3 0 1 1} "NOT_FOUND\r\n"] {debugtime}

    test {the timer expires a message on an idle queue: a consumer waiting on the dead-letter queue gets it} {
        set a [tt_push $fd r2 late ttl=5]
        set w [mc_connect]
        mc_send $w "qpop r2:dead wait=100\r\n"
        q_wait_waiters $fd r2:dead 1
        mc_send $fd "debugtime 6\r\n"
        assert_equal [mc_readline $fd] "OK"
        assert_equal [mc_exchange $w ""] "[q_item $a 0 late 1]END\r\n"
        list [mc_exchange $w "qack r2:dead $a:1\r\n"] [tt_pick $fd r2 {ready dead expired_ttl}]
    } [list "ACKED\r\n" {0 1 1}] {debugtime}

    test {ttl counts from the push, priority and order aside: the first to expire goes first} {
        set a [tt_push $fd r3 low "9000 ttl=3"]
        set b [tt_push $fd r3 high "1 ttl=8"]
        set c [tt_push $fd r3 mid "50 ttl=5"]
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpeek r3 5\r\n"] "OK\r\n[q_item $b 0 high 0][q_item $c 0 mid 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek r3 5\r\n"] "OK\r\n[q_item $b 0 high 0]END\r\n"
        expr {[lsort [tt_ids [q_pop $fd r3:dead 5]]] eq [lsort [list $a $c]]}
    } 1 {debugtime}

    test {a delayed message is checked when its delay ends: past its ttl it is never delivered} {
        set a [tt_push $fd r4 delayed ttl=3 0 5]
        set b [tt_push $fd r4 delayed-fresh ttl=10 0 5]
        assert_equal [mc_exchange $fd "debugtime 4\r\nqpeek r4\r\n"] "OK\r\nEND\r\n"
        assert_equal [tt_pick $fd r4 {delayed expired_ttl}] {2 0}
        assert_equal [tt_left $fd r4 $a] 0
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpop r4 5 lease=100\r\n"] "OK\r\n[q_item $b 0 delayed-fresh 1]END\r\n"
        list [tt_pick $fd r4 {delayed in_flight expired_ttl dead}] [expr {[tt_ids [q_pop $fd r4:dead 5]] eq $a}] \
            [mc_exchange $fd "qack r4 $b:1\r\n"]
    } [list {0 1 1 1} 1 "ACKED\r\n"] {debugtime}

    test {an in-flight message is not expired: ack, touch and release work past its ttl} {
        set a [tt_push $fd r5 work ttl=2]
        set b [tt_push $fd r5 touched ttl=2]
        q_pop $fd r5 2 lease=100
        assert_equal [mc_exchange $fd "debugtime 50\r\nqtouch r5 $b:1 100\r\n"] "OK\r\nTOUCHED\r\n"
        assert_equal [tt_pick $fd r5 {in_flight expired_ttl}] {2 0}
        assert_equal [tt_left $fd r5 $a] 0
        list [mc_exchange $fd "qack r5 $a:1\r\nqack r5 $b:1\r\n"] [tt_pick $fd r5 {in_flight acked expired_ttl dead}]
    } [list "ACKED\r\nACKED\r\n" {0 2 0 0}] {debugtime}

    test {back from a run-out lease or a release past its ttl: expired; within it: ready again} {
        set a [tt_push $fd r6 lease-ran-out ttl=2]
        set b [tt_push $fd r6 released ttl=2]
        set c [tt_push $fd r6 still-young ttl=100]
        set d [tt_push $fd r6 delayed-release ttl=2]
        q_pop $fd r6 4 lease=5
        assert_equal [mc_exchange $fd "debugtime 3\r\nqrelease r6 $b:1\r\nqrelease r6 $d:1 1\r\nqpeek r6\r\n"] \
            "OK\r\nRELEASED\r\nRELEASED\r\nEND\r\n"
        assert_equal [tt_info $fd r6 $d state] delayed
        assert_equal [mc_exchange $fd "debugtime 3\r\nqpeek r6 5\r\n"] "OK\r\n[q_item $c 0 still-young 1]END\r\n"
        list [tt_pick $fd r6 {ready expired_ttl lease_expired dead}] \
            [expr {[lsort [tt_ids [q_pop $fd r6:dead 5]]] eq [lsort [list $a $b $d]]}]
    } {{1 3 2 3} 1} {debugtime}

    test {a message released past its ttl (or maxage) never reaches a waiting consumer: it expires first} {
        assert_equal [mc_exchange $fd "qcreate r6w maxage=50\r\n"] "CREATED\r\n"
        set a [tt_push $fd r6w by-ttl ttl=2]
        set b [tt_push $fd r6w by-age {}]
        set got [q_pop $fd r6w 2 lease=100]
        set w [mc_connect]
        mc_send $w "qpop r6w wait=100\r\n"
        q_wait_waiters $fd r6w 1
        assert_equal [mc_exchange $fd "debugtime 60\r\nqrelease r6w $a:1\r\nqrelease r6w $b:1\r\n"] \
            "OK\r\nRELEASED\r\nRELEASED\r\n"
        mc_no_reply $w 200
        mc_close $w
        list [llength $got] [tt_pick $fd r6w {ready expired_ttl expired_age dead}] \
            [expr {[lsort [tt_ids [q_pop $fd r6w:dead 5]]] eq [lsort [list $a $b]]}]
    } {2 {0 1 1 2} 1} {debugtime}

    test {the earlier of maxage and ttl applies, and is counted, even when both passed at once} {
        mc_exchange $fd "qcreate m1 maxage=10\r\n"
        set a [tt_push $fd m1 ttl-first ttl=5]
        set b [tt_push $fd m1 age-first ttl=15]
        set c [tt_push $fd m1 ttl-first-too ttl=6]
        assert_equal [mc_exchange $fd "debugtime 30\r\nqpeek m1\r\n"] "OK\r\nEND\r\n"
        list [tt_pick $fd m1 {dead expired_ttl expired_age}] [expr {[tt_ids [q_pop $fd m1:dead 5]] eq [list $a $c $b]}]
    } {{3 2 1} 1} {debugtime}

    test {earlier of maxage and ttl, step by step} {
        mc_exchange $fd "qcreate m2 maxage=4\r\n"
        set a [tt_push $fd m2 long-ttl ttl=100]
        set b [tt_push $fd m2 short-ttl ttl=2]
        assert_equal [mc_exchange $fd "debugtime 3\r\nqpeek m2 5\r\n"] "OK\r\n[q_item $a 0 long-ttl 0]END\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek m2 5\r\n"] "OK\r\nEND\r\n"
        tt_pick $fd m2 {expired_ttl expired_age dead}
    } {1 1 2} {debugtime}

    test {expired=drop applies to maxage too: dropped, counted in expired_age and dropped} {
        mc_exchange $fd "qcreate m3 maxage=2 expired=drop\r\n"
        set a [q_push $fd m3 old]
        set b [tt_push $fd m3 short ttl=1]
        assert_equal [mc_exchange $fd "debugtime 3\r\nqpeek m3\r\nqstats m3:dead\r\n"] "OK\r\nEND\r\nNOT_FOUND\r\n"
        tt_pick $fd m3 {pushed dead dropped expired_ttl expired_age ready}
    } {2 0 2 1 1 0} {debugtime}

    test {maxdeliver still dead-letters under expired=drop (only expiries are dropped)} {
        mc_exchange $fd "qcreate m4 maxdeliver=1 lease=1 expired=drop\r\n"
        set a [tt_push $fd m4 x ttl=100]
        q_pop $fd m4
        mc_exchange $fd "debugtime 2\r\n"
        list [tt_pick $fd m4 {dead dropped expired_ttl}] [expr {[tt_ids [q_pop $fd m4:dead]] eq $a}]
    } {{1 0 0} 1} {debugtime}

    test {a dead-letter queue that cannot take it: buried, never dropped; placed once there is room} {
        mc_exchange $fd "qcreate b1full maxlen=1\r\nqcreate b1 dlq=b1full\r\n"
        set f [q_push $fd b1full filler]
        set a [tt_push $fd b1 waiting ttl=1]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek b1\r\n"] "OK\r\nEND\r\n"
        assert_equal [tt_pick $fd b1 {buried expired_ttl dead dropped}] {1 1 0 0}
        assert_equal [tt_left $fd b1 $a] -1
        q_pop $fd b1full
        assert_equal [mc_exchange $fd "qack b1full $f\r\ndebugtime 2\r\n"] "ACKED\r\nOK\r\n"
        list [tt_pick $fd b1 {buried dead}] [expr {[tt_ids [q_pop $fd b1full]] eq $a}]
    } {{0 1} 1} {debugtime}

    test {a buried message kicked is ready with no ttl (its age counts from the kick)} {
        assert_equal [mc_exchange $fd "set b2plain 0 0 1\r\nx\r\nqcreate b2 dlq=b2plain\r\n"] "STORED\r\nCREATED\r\n"
        set a [tt_push $fd b2 kick-me ttl=1]
        mc_exchange $fd "debugtime 2\r\n"
        assert_equal [q_stat $fd b2 buried] 1
        assert_equal [mc_exchange $fd "qkick b2\r\n"] "KICKED 1\r\n"
        list [tt_left $fd b2 $a] [expr {[mc_exchange $fd "debugtime 10\r\nqpeek b2\r\n"] eq "OK\r\n[q_item $a 0 kick-me 0]END\r\n"}]
    } {-1 1} {debugtime}

    test {a message pushed with a ttl onto a dead-letter queue stays there through a redrive, and expires} {
        mc_exchange $fd "qcreate rd maxdeliver=1 lease=1 dlq=rd:dlq\r\n"
        set a [q_push $fd rd from-source]
        q_pop $fd rd
        mc_exchange $fd "debugtime 2\r\n"
        set b [tt_push $fd rd:dlq direct ttl=5]
        assert_equal [mc_exchange $fd "qredrive rd:dlq\r\n"] "REDRIVEN 1 1\r\n"
        assert_equal [tt_left $fd rd:dlq $b] 5
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek rd:dlq\r\n"] "OK\r\nEND\r\n"
        list [expr {[tt_ids [q_pop $fd rd]] eq $a}] [tt_pick $fd rd:dlq {expired_ttl dead}] \
            [expr {[tt_ids [q_pop $fd rd:dlq:dead]] eq $b}]
    } {1 {1 1} 1} {debugtime}

    test {messages with and without a ttl keep one delivery order (priority, then push order)} {
        set ids {}
        foreach {d o} {p1 {} t1 ttl=100 p2 {} t2 "5 ttl=100" p3 5 t3 ttl=100} {
            if {$o eq {}} { lappend ids [q_push $fd o1 $d] } else { lappend ids [tt_push $fd o1 $d $o] }
        }
        lmap m [q_parse [mc_exchange $fd "qpeek o1 10\r\n"]] { lindex $m 2 }
    } {t2 p3 p1 t1 p2 t3}

    test {a ttl message pushed to a waiting consumer is delivered at once and not expired in flight} {
        set w [mc_connect]
        mc_send $w "qpop w1 wait=100 lease=100\r\n"
        q_wait_waiters $fd w1 1
        set a [tt_push $fd w1 now ttl=1]
        assert_equal [mc_exchange $w ""] "[q_item $a 0 now 1]END\r\n"
        mc_exchange $fd "debugtime 5\r\n"
        list [mc_exchange $w "qack w1 $a:1\r\n"] [tt_pick $fd w1 {acked expired_ttl}]
    } [list "ACKED\r\n" {1 0}] {debugtime}

    test {Kestrel get takes a ttl message for good; qpurge and delete drop them with the rest} {
        set a [tt_push $fd k1 first ttl=100]
        tt_push $fd k1 second ttl=100
        tt_push $fd k1 third "5 ttl=100"
        assert_equal [mc_exchange $fd "get k1\r\n"] "VALUE k1 0 5\r\nthird\r\nEND\r\n"
        assert_equal [mc_exchange $fd "qpurge k1\r\n"] "PURGED 2\r\n"
        set b [tt_push $fd k1 after ttl=1]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek k1\r\n"] "OK\r\nEND\r\n"
        tt_push $fd k1 deleted ttl=1
        list [tt_pick $fd k1 {expired_ttl dead purged acked}] [mc_exchange $fd "delete k1\r\n"]
    } [list {1 1 2 1} "DELETED\r\n"] {debugtime}

    test {FIFO groups: a head past its ttl expires and its group goes on; a waiting one is checked as the head} {
        mc_exchange $fd "qcreate g1 expired=drop\r\n"
        set a [tt_push $fd g1 a1 "group=A ttl=5"]
        set b [tt_push $fd g1 a2 "group=A ttl=5"]
        set c [tt_push $fd g1 a3 "group=A"]
        set d [tt_push $fd g1 b1 "group=B ttl=100"]
        assert_equal [tt_pick $fd g1 {ready grouped groups}] {2 2 2}
        assert_equal [list [tt_info $fd g1 $b state] [tt_left $fd g1 $b]] {grouped 5}
        assert_equal [tt_ids [q_pop $fd g1 1 lease=100]] $a
        assert_equal [mc_exchange $fd "debugtime 6\r\nqpeek g1 5\r\n"] "OK\r\n[q_item $d 0 b1 0]END\r\n"
        assert_equal [tt_pick $fd g1 {in_flight grouped expired_ttl}] {1 2 0}
        assert_equal [mc_exchange $fd "qack g1 $a:1\r\nqpeek g1 5\r\n"] \
            "ACKED\r\n[q_item $c 0 a3 0][q_item $d 0 b1 0]END\r\n"
        list [tt_pick $fd g1 {dropped expired_ttl grouped groups acked}] [q_balanced $fd g1]
    } {{1 1 0 2 1} 1} {debugtime}

    test {FIFO groups: a head expired to the dead-letter queue lets its group go on} {
        set a [tt_push $fd g2 x1 "group=X ttl=1"]
        set b [tt_push $fd g2 x2 "group=X"]
        assert_equal [mc_exchange $fd "debugtime 2\r\nqpeek g2 5\r\n"] "OK\r\n[q_item $b 0 x2 0]END\r\n"
        list [tt_pick $fd g2 {dead expired_ttl grouped groups}] [expr {[tt_ids [q_pop $fd g2:dead]] eq $a}] \
            [q_balanced $fd g2]
    } {{1 1 0 1} 1 1} {debugtime}

    # ---- counting ----

    test {counts: pushed = acked + dead + dropped + purged + still queued, over every path} {
        mc_exchange $fd "qcreate c1 dlq=c1:dlq\r\nqcreate c2 expired=drop\r\n"
        foreach q {c1 c2} {
            for {set i 0} {$i < 300} {incr i} {
                set delay [expr {$i % 4}]
                if {$i % 3 == 0} {
                    tt_push $fd $q m$i "ttl=[expr {1 + $i % 7}]" 0 $delay
                } elseif {$i % 3 == 1} {
                    tt_push $fd $q m$i "[expr {$i % 5}] ttl=4.5" 0 $delay
                } else {
                    q_push $fd $q m$i 0 $delay
                }
            }
            set got [q_pop $fd $q 100 lease=3]
            foreach m [lrange $got 0 49] { mc_exchange $fd "qack $q [lindex $m 0]:1\r\n" }
            foreach m [lrange $got 50 59] { mc_exchange $fd "qrelease $q [lindex $m 0]:1 2\r\n" }
            mc_exchange $fd "debugtime 2\r\n"
            q_pop $fd $q 20 lease=1
            mc_exchange $fd "qpurge $q\r\n"
        }
        mc_exchange $fd "debugtime 10\r\n"
        set r {}
        foreach q {c1 c2} {
            lappend r [q_balanced $fd $q] [expr {[q_stat $fd $q expired_ttl] > 0}]
        }
        set totals [mc_stats $fd]
        lappend r [expr {[dict get $totals queue_dropped] >= [q_stat $fd c2 dropped]}] \
            [expr {[dict get $totals queue_expired_ttl] >= [q_stat $fd c1 expired_ttl] + [q_stat $fd c2 expired_ttl]}] \
            [expr {[q_stat $fd c1 dead] == [q_stat $fd c1:dlq pushed]}] [q_stat $fd c1 dropped] [q_stat $fd c2 dead]
    } {1 1 1 1 1 1 1 0 0} {debugtime}

    test {many expiring at once: all moved or dropped, none lost} {
        mc_exchange $fd "qcreate n1\r\nqcreate n2 expired=drop\r\n"
        foreach q {n1 n2} {
            set b ""
            for {set i 0} {$i < 20} {incr i} {
                append b "qpushn $q 0 0 1024 [join [lrepeat 50 2] { }] ttl=1 noreply\r\n" [string repeat "ab\r\n" 50]
            }
            mc_exchange $fd $b
        }
        mc_exchange $fd "debugtime 2\r\n"
        list [tt_pick $fd n1 {ready expired_ttl dead}] [q_stat $fd n1:dead ready] [tt_pick $fd n2 {ready expired_ttl dropped}]
    } {{0 1000 1000} 1000 {0 1000 1000}} {debugtime}

    test {memory: a delayed message with a ttl costs 16 bytes more than one without; all given back once dropped} {
        mc_exchange $fd "qcreate mem expired=drop\r\n"
        set base [mc_malloced $fd]
        set b ""
        for {set i 0} {$i < 100} {incr i} {
            append b "qpushn mem 0 100 1024 [join [lrepeat 100 2] { }] noreply\r\n" [string repeat "ab\r\n" 100]
        }
        mc_exchange $fd $b
        set plain [expr {[mc_malloced $fd] - $base}]
        assert_equal [mc_exchange $fd "qpurge mem\r\n"] "PURGED 10000\r\n"
        wait_for {[mc_stat $fd queue_reclaiming] == 0}
        set base2 [mc_malloced $fd]
        mc_exchange $fd [string map {"noreply" "ttl=1 noreply"} $b]
        set ttl [expr {[mc_malloced $fd] - $base2}]
        mc_exchange $fd "debugtime 101\r\n"
        wait_for {abs([mc_malloced $fd] - $base2) < 10000 * 4}
        list [expr {round(($ttl - $plain) / 10000.0)}] [tt_pick $fd mem {dropped expired_ttl delayed ready}]
    } {16 {10000 10000 0 0}} {debugtime}
}
