# Black-box tests of doc/protocol.md, "3. Queues", written from the doc
# alone, aimed at the paths where a message could be lost, duplicated or
# miscounted: "A message leaves the server only by an ack (qack, qpop ack=,
# a Kestrel get or /close), a qpurge, a delete or flush_all of its queue,
# or its queue's TTL. Everything else that could drop one answers an error
# or keeps the message where it is." After each scenario the messages are
# counted: ready + delayed + in_flight + buried (qstats) plus what went to
# the dead-letter queue, was acked or purged must equal what was pushed,
# and a drain must return what qstats says.

# dql_st fd q -> dict of qstats q ({} for NOT_FOUND).
proc dql_st {fd q} {
    set r [mc_exchange $fd "qstats $q\r\n"]
    if {$r eq "NOT_FOUND\r\n"} { return {} }
    set d [dict create]
    foreach line [split [string trimright $r \n] \n] {
        if {[regexp {^STAT (\S+) (.*)\r$} $line -> k v]} { dict set d $k $v }
    }
    return $d
}

# dql_held fd q -> ready + delayed + in_flight + buried of q (0 when missing).
proc dql_held {fd q} {
    set d [dql_st $fd $q]
    if {![dict size $d]} { return 0 }
    expr {[dict get $d ready] + [dict get $d delayed] + [dict get $d in_flight] + [dict get $d buried]}
}

# dql_pick fd q names -> list of those qstats values.
proc dql_pick {fd q names} {
    set d [dql_st $fd $q]
    lmap n $names { dict get $d $n }
}

# dql_ids reply -> the ids of a PUSHED reply (fails on anything else).
proc dql_ids {r} {
    if {![regexp {^PUSHED ([\d ]+)\r\n$} $r -> ids]} { fail "expected PUSHED, got '[visible $r]'" }
    return $ids
}

# dql_push fd q n ?prefix? -> ids of n pushes "<prefix>0".."<prefix>n-1".
proc dql_push {fd q n {prefix m}} {
    set req ""
    for {set i 0} {$i < $n} {incr i} {
        set d $prefix$i
        append req "qpush $q 0 0 [string length $d]\r\n$d\r\n"
    }
    set ids {}
    foreach line [split [string trimright [mc_exchange $fd $req] \n] \n] {
        lappend ids {*}[dql_ids "$line\n"]
    }
    return $ids
}

# dql_drain fd q -> data of every ready message of q, popped and acked
# (100 at a time), in delivery order.
proc dql_drain {fd q} {
    set out {}
    while 1 {
        set items [q_pop $fd $q 100]
        if {![llength $items]} break
        set acks {}
        foreach it $items {
            lappend out [lindex $it 2]
            append acks "qack $q [lindex $it 0]:[lindex $it 3]\r\n"
        }
        assert_equal [mc_exchange $fd $acks] [string repeat "ACKED\r\n" [llength $items]]
    }
    return $out
}

# dql_try_line fd ms -> the next reply line, or "no answer" after ms.
proc dql_try_line {fd ms} {
    fconfigure $fd -blocking 0
    set deadline [expr {[clock milliseconds] + $ms}]
    set line ""
    while {[clock milliseconds] < $deadline} {
        if {[gets $fd l] >= 0} { set line $l; break }
        if {[eof $fd]} { set line "closed"; break }
        after 20
    }
    fconfigure $fd -blocking 1
    if {$line eq ""} { return "no answer" }
    return [string trimright $line \r]
}

# dql_read_items fd -> parsed ITEM ... END of a reply still to come.
proc dql_read_items {fd} {
    set bytes ""
    while 1 {
        set line [mc_readline $fd]
        append bytes "$line\r\n"
        if {$line eq "END"} break
        if {![regexp {^ITEM \S+ \S+ (\d+)} $line -> n]} { fail "unexpected line '[visible $line]'" }
        append bytes [mc_read_bytes $fd [expr {$n + 2}]]
    }
    return [q_parse $bytes]
}

# dql_gstats fd -> dict of the server-wide queue totals of stats.
proc dql_gstats {fd} {
    set d [dict create]
    dict for {k v} [mc_stats $fd] {
        if {$k eq "queues" || [string match queue_* $k]} { dict set d $k $v }
    }
    return $d
}

# dql_two_queues fd q wq -> a connection waiting on wq, once the server
# holds only q (2 messages) and the empty wq.
proc dql_two_queues {fd q wq} {
    assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
    dql_push $fd $q 2
    assert_equal [mc_exchange $fd "qcreate $wq\r\n"] "CREATED\r\n"
    set w [mc_connect]
    mc_send $w "qpop $wq wait=15\r\n"
    q_wait_waiters $fd $wq 1
    return $w
}

# dql_wait_no_queues fd -> {1 stats} once the server holds no queue,
# {0 stats} after 4 s: nothing touches the queues meanwhile.
proc dql_wait_no_queues {fd} {
    for {set i 0} {$i < 40} {incr i} {
        set g [dql_gstats $fd]
        if {[dict get $g queues] == 0} { return [list 1 $g] }
        after 100
    }
    return [list 0 $g]
}

start_server {tags {queue mcds-only debugtime}} {
    set fd [mc_connect]

    test {doc-loss: qpush error table: every refused line queues nothing, every PUSHED one is there} {
        # A length that cannot be read: the error closes the connection.
        set r [mc_last_reply "qpush e1 0 0 -1\r\nx\r\n"]
        append r [mc_last_reply "qpush e1 0 0 2147483646\r\nx\r\n"]
        foreach {line data} {
            "qpush e1 4294967296 0 1" "x\r\n"
            "qpush e1 0 2147483648 1" "x\r\n"
            "qpush e1 0 -2147483649 1" "x\r\n"
            "qpush e1 0 0 1 4294967296" "x\r\n"
            "qpush e1 0 0 1 -1" "x\r\n"
            "qpush e1 0 0 1 0x10" "x\r\n"
            "qpush e1 0 0 1 1 x" "x\r\n"
            "qpush e1 0 0 1 noreply 5" "x\r\n"
        } {
            append r [mc_exchange $fd "$line\r\n$data"]
        }
        assert_equal $r [join {
            "CLIENT_ERROR bad length" "CLIENT_ERROR bad length" "CLIENT_ERROR bad flags"
            "CLIENT_ERROR bad delay" "CLIENT_ERROR bad delay" "CLIENT_ERROR bad priority"
            "CLIENT_ERROR bad priority" "CLIENT_ERROR bad priority" "CLIENT_ERROR too many tokens"
            "CLIENT_ERROR noreply must be the last token" ""} "\r\n"]
        # The ones that pushed: the largest flags and priority, a silent one.
        append r [mc_exchange $fd "qpush e1 4294967295 0 1 4294967295\r\nz\r\nqpush e1 0 0 1 5 noreply\r\na\r\n"]
        list [q_counts $fd e1] [lmap it [q_parse [mc_exchange $fd "qpeek e1 100\r\n"]] { lrange $it 1 2 }]
    } {{2 0 0} {{0 a} {4294967295 z}}}

    test {doc-loss: a lease that runs out puts the message back, delivery count raised; the old receipt is NOT_FOUND} {
        assert_equal [mc_exchange $fd "qcreate le lease=1\r\n"] "CREATED\r\n"
        set ids [dql_push $fd le 3]
        set items [q_pop $fd le 3]
        assert_equal [lmap it $items { lindex $it 3 }] {1 1 1}
        assert_equal [mc_exchange $fd "qack le [lindex $ids 0]:1\r\ndebugtime 2\r\n"] "ACKED\r\nOK\r\n"
        wait_for {[dql_pick $fd le {ready in_flight}] eq {2 0}}
        set again [q_pop $fd le 3 lease=30]
        set r [mc_exchange $fd "qack le [lindex $ids 1]:1\r\nqrelease le [lindex $ids 1]:1\r\nqtouch le [lindex $ids 1]:1\r\n"]
        append r [mc_exchange $fd "qack le [lindex $ids 1]:2\r\nqack le [lindex $ids 2]\r\n"]
        list [lmap it $again { lrange $it 2 3 }] $r \
            [dql_pick $fd le {ready delayed in_flight pushed popped acked lease_expired}]
    } [list {{m1 2} {m2 2}} "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nACKED\r\nACKED\r\n" {0 0 0 3 5 3 2}]

    test {doc-loss: priorities lower first, then push order; release keeps the place and the delivery count} {
        set a [q_push $fd pr a 0 0 7]
        set b [q_push $fd pr b 0 0 3]
        set c [q_push $fd pr c 0 0 3]
        set d [q_push $fd pr d 0 0]
        set first [q_pop $fd pr 2]
        assert_equal [lmap it $first { lindex $it 2 }] {b c}
        assert_equal [mc_exchange $fd "qrelease pr $b:1\r\n"] "RELEASED\r\n"
        set all [q_pop $fd pr 10]
        list [lmap it $all { list [lindex $it 2] [lindex $it 3] }] [dql_held $fd pr]
    } {{{b 2} {a 1} {d 1}} 4}

    test {doc-loss: receipts and ids of another queue answer NOT_FOUND and leave both queues alone} {
        set ia [q_push $fd xa a]
        set ib [q_push $fd xb b]
        q_pop $fd xa
        q_pop $fd xb
        set r [mc_exchange $fd [join [list "qack xa $ib" "qack xa $ib:1" "qrelease xa $ib" \
            "qtouch xa $ib 100" "qpop xa ack=$ib" "qack xa $ib $ib:1 $ia:1" "qinfo xa $ib" \
            "qpeek xa id=$ib" "qrelease xa $ib:1 $ib delay=0" ""] "\r\n"]]
        list $r [dql_pick $fd xa {ready in_flight acked}] [dql_pick $fd xb {ready in_flight acked released}]
    } [list "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nEND\r\nNOT_FOUND\r\nNOT_FOUND\r\nACKED\r\nNOT_FOUND\r\nEND\r\nNOT_FOUND\r\nNOT_FOUND\r\n" {0 0 1} {0 1 0 0}]

    test {doc-loss: a receipt is good once: released, acked, repeated in a batch} {
        set id [q_push $fd rc c]
        q_pop $fd rc
        set r [mc_exchange $fd "qrelease rc $id:1\r\nqrelease rc $id:1\r\n"]
        q_pop $fd rc
        append r [mc_exchange $fd "qack rc $id:1 $id:2 $id:2 $id\r\n"]
        list $r [dql_pick $fd rc {ready in_flight popped acked released}]
    } [list "RELEASED\r\nNOT_FOUND\r\nNOT_FOUND\r\nACKED\r\nNOT_FOUND\r\nNOT_FOUND\r\n" {0 0 2 1 1}]

    test {doc-loss: bad receipts are CLIENT_ERROR bad id and change nothing} {
        set id [q_push $fd br c]
        q_pop $fd br
        set r ""
        foreach t [list $id:0 $id: :1 $id:1:1 -1 18446744073709551616 0x10 $id:4294967296 $id:-1] {
            append r [mc_exchange $fd "qack br $t\r\n"]
        }
        append r [mc_exchange $fd "qack br 18446744073709551615\r\nqack br $id:1 x\r\n"]
        list $r [dql_pick $fd br {in_flight acked}]
    } [list "[string repeat "CLIENT_ERROR bad id\r\n" 9]NOT_FOUND\r\nCLIENT_ERROR bad id\r\n" {1 0}]
}

start_server {tags {queue mcds-only debugtime}} {
    set fd [mc_connect]

    test {doc-loss: maxdeliver: a dead letter keeps id and flags, delivery count from 0, counted in dead} {
        assert_equal [mc_exchange $fd "qcreate md lease=1 maxdeliver=2\r\n"] "CREATED\r\n"
        set id [q_push $fd md x 77]
        q_pop $fd md
        mc_exchange $fd "debugtime 2\r\n"
        set second [q_pop $fd md]
        mc_exchange $fd "debugtime 2\r\n"
        wait_for {[dql_held $fd md] == 0}
        list [lindex $second 0 3] [dql_pick $fd md {ready in_flight buried dead lease_expired}] \
            [mc_exchange $fd "qpeek md:dead\r\n"] [dql_pick $fd md:dead {ready pushed}]
    } [list 2 {0 0 0 1 2} "ITEM * 77 1 0\r\nx\r\nEND\r\n" {1 1}]

    test {doc-loss: a dead-letter queue at maxlen buries; buried move on once a second; kick and redrive; nothing lost} {
        assert_equal [mc_exchange $fd "qcreate bq maxlen=1\r\nqcreate bs lease=1 maxdeliver=1 dlq=bq\r\n"] "CREATED\r\nCREATED\r\n"
        set ids {}
        foreach i {0 1 2 3} { lappend ids [q_push $fd bs m$i 0 0 [expr {10 + $i}]] }
        q_pop $fd bs 4
        mc_exchange $fd "debugtime 2\r\n"
        wait_for {[dql_pick $fd bs {in_flight buried}] eq {0 3}}
        # Buried: counted, never delivered, not peeked.
        assert_equal [mc_exchange $fd "qpop bs\r\nqpeek bs\r\n"] "END\r\nEND\r\n"
        assert_equal [dql_pick $fd bq {ready}] 1
        assert_equal [dict get [dql_gstats $fd] queue_buried] 3
        # Every buried message has a qinfo in state buried.
        set states {}
        foreach id $ids {
            set r [mc_exchange $fd "qinfo bs $id\r\n"]
            if {[regexp {STAT state (\S+)} $r -> st]} { lappend states $st }
        }
        assert_equal [lsort $states] {buried buried buried}
        # Room in the dead-letter queue: the next one (priority order) moves on.
        set dl [q_pop $fd bq]
        assert_equal [mc_exchange $fd "qack bq [lindex $dl 0 0]\r\n"] "ACKED\r\n"
        wait_for {[dql_pick $fd bs {buried dead}] eq {2 2}} 40 100
        assert_equal [mc_exchange $fd "qkick bs 1\r\n"] "KICKED 1\r\n"
        set kicked [q_pop $fd bs]
        assert_equal [lindex $kicked 0 3] 1
        assert_equal [mc_exchange $fd "qredrive bq\r\n"] "REDRIVEN 1 0\r\n"
        # pushed 4 = 1 acked in bq + in bs: 1 in flight (kicked), 1 ready (redriven), 1 buried
        list [dql_pick $fd bs {ready in_flight buried kicked}] [dql_pick $fd bq {ready redriven acked}] \
            [mc_exchange $fd "qpurge bs\r\n"] [dql_held $fd bs]
    } [list {1 1 1 1} {0 1 1} "PURGED 2\r\n" 1]

    test {doc-loss: a dead-letter key turned into a cache value buries; qpurge and qkick count buried ones} {
        assert_equal [mc_exchange $fd "qcreate cv lease=1 maxdeliver=1 dlq=cvd\r\n"] "CREATED\r\n"
        dql_push $fd cv 3
        assert_equal [mc_set $fd cvd cache] STORED
        q_pop $fd cv 3
        mc_exchange $fd "debugtime 2\r\n"
        wait_for {[dql_pick $fd cv {in_flight buried}] eq {0 3}}
        assert_equal [mc_get $fd cvd] cache
        list [mc_exchange $fd "qkick cv 2\r\n"] [dql_pick $fd cv {ready buried dead}] \
            [mc_exchange $fd "qpurge cv\r\n"] [dql_pick $fd cv {ready buried purged}]
    } [list "KICKED 2\r\n" {2 1 0} "PURGED 3\r\n" {0 0 3}]

    test {doc-loss: maxage: ready and due-delayed messages go to the dead-letter queue, in-flight ones wait for their lease} {
        assert_equal [mc_exchange $fd "qcreate ma maxage=5 lease=10\r\n"] "CREATED\r\n"
        set a [q_push $fd ma a]
        q_push $fd ma b 0 3
        q_push $fd ma c 0 8
        q_push $fd ma d
        assert_equal [lindex [q_pop $fd ma] 0 2] a
        mc_exchange $fd "debugtime 6\r\n"
        wait_for {[dql_pick $fd ma {ready delayed in_flight}] eq {0 1 1}}
        assert_equal [dql_pick $fd ma {dead expired_age}] {2 2}
        # a is still leased: it can be touched; once its lease runs out it goes too.
        assert_equal [mc_exchange $fd "qtouch ma $a:1 2\r\n"] "TOUCHED\r\n"
        mc_exchange $fd "debugtime 5\r\n"
        wait_for {[dql_held $fd ma] == 0}
        list [dql_pick $fd ma {dead expired_age}] [lsort [dql_drain $fd ma:dead]]
    } {{4 4} {a b c d}}

    test {doc-loss: qpurge drops ready, delayed, buried; the in-flight one comes back when its lease runs out} {
        assert_equal [mc_exchange $fd "qcreate pu lease=1\r\n"] "CREATED\r\n"
        dql_push $fd pu 2
        q_push $fd pu late 0 100
        q_pop $fd pu
        assert_equal [mc_exchange $fd "qpurge pu\r\n"] "PURGED 2\r\n"
        mc_exchange $fd "debugtime 2\r\n"
        wait_for {[dql_pick $fd pu ready] == 1}
        list [dql_drain $fd pu] [dql_pick $fd pu {pushed purged acked lease_expired}]
    } {m0 {3 2 1 1}}

    test {doc-loss: qrelease with a delay: delayed, then ready at its place, delivery count kept} {
        set ids [dql_push $fd rd 2]
        q_pop $fd rd
        assert_equal [mc_exchange $fd "qrelease rd [lindex $ids 0]:1 30\r\n"] "RELEASED\r\n"
        assert_equal [dql_pick $fd rd {ready delayed in_flight}] {1 1 0}
        mc_exchange $fd "debugtime 31\r\n"
        wait_for {[dql_pick $fd rd delayed] == 0}
        lmap it [q_pop $fd rd 5] { lrange $it 2 3 }
    } {{m0 2} {m1 1}}
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {doc-loss: waiters that hang up before a push: qpop, qpopany, Kestrel /t=; the push stays ready, undelivered} {
        assert_equal [mc_exchange $fd "qcreate hk\r\n"] "CREATED\r\n"
        set out {}
        foreach {q line} {hq "qpop hq wait=10" ha "qpopany ha hb wait=10" hk "get hk/t=10000"} {
            set w [mc_connect]
            mc_send $w "$line\r\n"
            q_wait_waiters $fd $q 1
            mc_close $w
            wait_for {[q_stat $fd $q waiters] == 0}
            q_push $fd $q x
            lappend out [lmap it [q_parse [mc_exchange $fd "qpeek $q\r\n"]] { lindex $it 3 }] \
                [dql_pick $fd $q {ready in_flight popped}]
        }
        set out
    } {0 {1 0 0} 0 {1 0 0} 0 {1 0 0}}

    test {doc-loss: a waiter that shuts down its sending side gets END at once, then its pipelined answers} {
        set w [mc_connect]
        mc_send $w "qpop hs wait=10\r\nqpush hs 0 0 1\r\nz\r\n"
        q_wait_waiters $fd hs 1
        close $w write
        set r [mc_read_until_close $w 3000]
        regsub {PUSHED \d+} $r {PUSHED N} r
        list $r [dql_pick $fd hs {ready in_flight waiters}]
    } [list "END\r\nPUSHED N\r\n" {1 0 0}]

    test {doc-loss: a push racing a waiter's hang-up: the message is ready or leased or (Kestrel) taken, exactly once} {
        set bad {}
        foreach {q0 line0} {rq "qpop rq wait=10" ra "qpopany ra rb wait=10" rk "get rk/t=10000"} {
            for {set i 0} {$i < 15} {incr i} {
                # A fresh queue each round: its counters start at 0.
                set q $q0$i
                set line [string map [list $q0 $q] $line0]
                assert_equal [mc_exchange $fd "qcreate $q\r\n"] "CREATED\r\n"
                set w [mc_connect]
                set p [mc_connect]
                mc_send $w "$line\r\n"
                q_wait_waiters $fd $q 1
                mc_send $p "qpush $q 0 0 1\r\nx\r\n"
                if {$i % 3} { after [expr {$i % 3}] }
                mc_close $w
                assert_match "PUSHED *" [mc_readline $p]
                mc_close $p
                wait_for {[q_stat $fd $q waiters] == 0}
                set d [dql_st $fd $q]
                set n [expr {[dict get $d ready] + [dict get $d in_flight] + [dict get $d acked]}]
                if {$n != 1} { lappend bad "$q#$i: $d" }
                # A ready one was never counted as delivered.
                foreach it [q_parse [mc_exchange $fd "qpeek $q 10\r\n"]] {
                    if {[lindex $it 3] != 0} { lappend bad "$q#$i: ready with deliveries [lindex $it 3]" }
                }
                mc_exchange $fd "delete $q\r\n"
            }
        }
        set bad
    } {}

    test {doc-loss: a consumer that hangs up holding leases: they stay leased to "gone", acked from elsewhere} {
        set ids [dql_push $fd gn 3]
        set c [mc_connect]
        assert_equal [llength [q_pop $c gn 3]] 3
        mc_close $c
        after 100
        set pend [mc_exchange $fd "qpending gn holders\r\n"]
        set r [mc_exchange $fd "qack gn [lindex $ids 0]:1 [lindex $ids 1]\r\nqrelease gn [lindex $ids 2]:1\r\n"]
        list [regexp -all {gone\r\n} $pend] $r [dql_pick $fd gn {ready in_flight acked}]
    } [list 3 "ACKED\r\nACKED\r\nRELEASED\r\n" {1 0 2}]

    test {doc-loss: a Kestrel open read is its connection's alone; on hang-up the message goes back} {
        assert_equal [mc_exchange $fd "qcreate ko\r\n"] "CREATED\r\n"
        set id [q_push $fd ko x]
        set k [mc_connect]
        assert_equal [mc_exchange $k "get ko/open\r\n"] "VALUE ko/open 0 1\r\nx\r\nEND\r\n"
        set r [mc_exchange $fd "qack ko $id\r\nqack ko $id:1\r\nqrelease ko $id\r\nqtouch ko $id\r\nqpop ko ack=$id\r\n"]
        mc_close $k
        wait_for {[dql_pick $fd ko ready] == 1}
        list $r [dql_pick $fd ko {ready in_flight acked}] [mc_exchange $fd "qpeek ko\r\n"]
    } [list "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nEND\r\n" {1 0 0} "ITEM * 0 1 1\r\nx\r\nEND\r\n"]

    test {doc-loss: Kestrel reads count: get takes for good, /peek takes nothing, /close acks, /abort gives back} {
        assert_equal [mc_exchange $fd "qcreate kc\r\n"] "CREATED\r\n"
        for {set i 0} {$i < 6} {incr i} { assert_equal [mc_set $fd kc k$i $i] STORED }
        set k [mc_connect]
        set r [mc_exchange $k "get kc kc/peek kc\r\ngets kc\r\nget kc/open\r\nget kc/abort\r\nget kc/open\r\nget kc/close/open\r\nget kc/close\r\n"]
        list $r [dql_pick $fd kc {ready in_flight pushed acked released}]
    } [list [join {"VALUE kc 0 2" k0 "VALUE kc/peek 1 2" k1 "VALUE kc 1 2" k1 END
        "VALUE kc 2 2 0" k2 END "VALUE kc/open 3 2" k3 END END "VALUE kc/open 3 2" k3 END
        "VALUE kc/close/open 4 2" k4 END END ""} "\r\n"] {1 0 6 5 1}]

    test {doc-loss: a queue deleted under a Kestrel open read: its /abort puts nothing into the new queue} {
        q_push $fd kd old
        set k [mc_connect]
        assert_equal [mc_exchange $k "get kd/open\r\n"] "VALUE kd/open 0 3\r\nold\r\nEND\r\n"
        assert_equal [mc_exchange $fd "delete kd\r\n"] "DELETED\r\n"
        q_push $fd kd new
        mc_exchange $k "get kd/abort\r\n"
        set g [dql_gstats $fd]
        list [dql_pick $fd kd {ready in_flight pushed}] [dict get $g queue_in_flight] [dql_drain $fd kd]
    } {{1 0 1} 0 new}

    test {doc-loss: requests cut mid-way by a hang-up queue nothing} {
        foreach bytes [list "qpush cut 0 0 5\r\nhel" "qpushn cut 0 0 1024 1 1 1\r\na\r\nb\r\n" \
                "qpushn cut 0 0 1024 1 1 1\r\na\r\nb\r\nc"] {
            set c [mc_connect]
            mc_send $c $bytes
            after 50
            mc_close $c
        }
        after 100
        set c [mc_connect]
        mc_send $c "qpush cut 0 0 1\r\na\r\nqpush cut 0 0 1\r\nb\r\nqpush cut 0 0 1\r\n"
        assert_match "PUSHED *" [mc_readline $c]
        assert_match "PUSHED *" [mc_readline $c]
        mc_close $c
        after 100
        dql_drain $fd cut
    } {a b}

    test {doc-loss: qpushn is all or nothing: maxlen, a bad data chunk, too many messages} {
        assert_equal [mc_exchange $fd "qcreate pn maxlen=3\r\n"] "CREATED\r\n"
        set r [mc_exchange $fd "qpushn pn 0 0 1024 1 1\r\na\r\nb\r\nqpushn pn 0 0 1024 1 1\r\nc\r\nd\r\n"]
        set bad [mc_exchange $fd "qpushn pn 0 0 1024 1 1\r\nc\r\ndX\r\n"]
        assert_match "CLIENT_ERROR bad data chunk\r\n*" $bad
        append r "CLIENT_ERROR bad data chunk\r\n"
        append r [mc_exchange $fd "qpushn pn 0 0 1024 [join [lrepeat 101 1]]\r\n[string repeat "e\r\n" 101]"]
        regsub {^PUSHED \d+ \d+} $r {PUSHED N N} r
        list $r [dql_drain $fd pn]
    } [list "PUSHED N N\r\nNOT_STORED\r\nCLIENT_ERROR bad data chunk\r\nCLIENT_ERROR too many messages\r\n" {a b}]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {doc-loss: an immediate flush_all takes queues out before OK: totals 0, waiters answered, old receipts NOT_FOUND} {
        set ids [dql_push $fd fl 2]
        q_push $fd fl late 0 100
        q_pop $fd fl
        set w [mc_connect]
        mc_send $w "qpop flw wait=10\r\n"
        q_wait_waiters $fd flw 1
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        set g [dql_gstats $fd]
        list [dict get $g queues] [dict get $g queue_ready] [dict get $g queue_delayed] \
            [dict get $g queue_in_flight] [dict get $g queue_waiters] [mc_readline $w] \
            [mc_exchange $fd "qack fl [lindex $ids 0]\r\nqstats fl\r\n"]
    } [list 0 0 0 0 0 END "NOT_FOUND\r\nNOT_FOUND\r\n"]

    test {doc-loss: a delayed flush_all: a queue it covers leaves the totals by the once-a-second crawl, its waiter answered} {
        set w [dql_two_queues $fd df dfw]
        assert_equal [mc_exchange $fd "flush_all 2\r\n"] "OK\r\n"
        # "Items a delayed flush covers are reclaimed when met and by the
        # once-a-second crawl"; a queue is one item; "A queue ... that a
        # delayed flush_all covers, answers its waiters when it is next
        # touched or reclaimed". Nothing touches them here: wait 4 s.
        lassign [dql_wait_no_queues $fd] ok g
        list $ok [dict get $g queues] [dict get $g queue_ready] [dict get $g queue_waiters] [dql_try_line $w 200]
    } {1 0 0 0 END}

    test {doc-loss: a queue whose TTL ran out leaves the totals within seconds; its waiter is answered} {
        set w [dql_two_queues $fd tt ttw]
        assert_equal [mc_exchange $fd "touch tt 1\r\ntouch ttw 1\r\n"] "TOUCHED\r\nTOUCHED\r\n"
        # "touch and TTLs work on it as on any key": an expired key is
        # reclaimed by the once-a-second tick; "A queue whose TTL runs out
        # ... answers its waiters when it is next touched or reclaimed".
        # Nothing touches them here: wait 4 s.
        lassign [dql_wait_no_queues $fd] ok g
        set r [list $ok [dict get $g queues] [dict get $g queue_ready] [dict get $g queue_waiters] [dql_try_line $w 200]]
        # Whatever the totals say, the queues are gone for every verb.
        lappend r [mc_exchange $fd "qstats tt\r\nqstats ttw\r\n"]
    } [list 1 0 0 0 END "NOT_FOUND\r\nNOT_FOUND\r\n"]

    test {doc-loss: queue names of 250 bytes and odd bytes work; 251 bytes is key too long everywhere, nothing made} {
        set long [string repeat q 250]
        set odd "o\x01\x7f\xff\xc3\xa9"
        set out {}
        foreach q [list $long $odd] {
            set id [q_push $fd $q v]
            set it [q_pop $fd $q]
            lappend out [mc_exchange $fd "qack $q $id:1\r\n"] [dql_pick $fd $q {pushed acked}]
        }
        set bad [string repeat q 251]
        set before [dict get [dql_gstats $fd] queues]
        set r ""
        foreach line [list "qpush $bad 0 0 1\r\nv\r\n" "qpop $bad\r\n" "qack $bad 1\r\n" \
                "qstats $bad\r\n" "qcreate $bad\r\n" "qpurge $bad\r\n" "qpeek $bad\r\n" \
                "qpushn $bad 0 0 1 1\r\nv\r\n" "qinfo $bad 1\r\n" "qkick $bad\r\n"] {
            append r [mc_exchange $fd $line]
        }
        lappend out $r [expr {[dict get [dql_gstats $fd] queues] - $before}]
        # A name over 245 bytes has no default dead-letter queue.
        lappend out [mc_exchange $fd "qcreate [string repeat d 246] maxdeliver=1\r\nqcreate [string repeat d 246] maxdeliver=1 dlq=dd\r\n"]
    } [list "ACKED\r\n" {1 1} "ACKED\r\n" {1 1} [string repeat "CLIENT_ERROR key too long\r\n" 10] 0 \
        "CLIENT_ERROR queue name too long for the default dead-letter queue, give dlq=\r\nCREATED\r\n"]

    test {doc-loss: batch limits: 100 receipts answer 100 lines, 101 is too many ids and touches nothing} {
        set ids [dql_push $fd bt 101]
        q_pop $fd bt 100
        q_pop $fd bt 1
        set r [mc_exchange $fd "qack bt $ids\r\n"]
        assert_equal $r "CLIENT_ERROR too many ids\r\n"
        assert_equal [dql_pick $fd bt {in_flight acked}] {101 0}
        set r [mc_exchange $fd "qrelease bt [lrange $ids 0 99] delay=0\r\nqack bt [lindex $ids 100] [lindex $ids 100]\r\n"]
        list [string equal $r "[string repeat "RELEASED\r\n" 100]ACKED\r\nNOT_FOUND\r\n"] \
            [dql_pick $fd bt {ready in_flight acked released}] [llength [dql_drain $fd bt]]
    } {1 {100 0 1 100} 100}
}

# -m pressure: queued messages are never evicted; a push that finds no
# memory is refused with nothing queued lost.
start_server {tags {queue mcds-only} args {-m 4}} {
    set fd [mc_connect]
    set v [string repeat v 1000]

    test {doc-loss: under -m, cache values are evicted for messages, a refused push loses nothing, a drain returns every PUSHED} {
        mc_fill $fd c 3000 1000
        set pushed {}
        set refused ""
        for {set round 0} {$round < 60 && $refused eq ""} {incr round} {
            set req ""
            for {set i 0} {$i < 100} {incr i} {
                set n [expr {$round * 100 + $i}]
                set d [string range "m$n:$v" 0 999]
                append req "qpush mq 0 0 1000\r\n$d\r\n"
            }
            set n [expr {$round * 100}]
            foreach line [split [string trimright [mc_exchange $fd $req] \n] \n] {
                if {[string match "PUSHED *" $line]} {
                    if {$refused ne ""} { fail "a push after a refusal went through" }
                    lappend pushed m$n
                } else {
                    set refused $line
                }
                incr n
            }
        }
        assert_equal $refused "SERVER_ERROR out of memory storing object\r"
        assert_true {[mc_stat $fd evictions] > 0}
        set r [mc_exchange $fd "qpushn mq 0 0 1024 1000 1000\r\n$v\r\n$v\r\nset mq 0 0 1000\r\n$v\r\n"]
        assert_equal $r "SERVER_ERROR out of memory storing object\r\nSERVER_ERROR out of memory storing object\r\n"
        assert_equal [dql_pick $fd mq {ready pushed}] [list [llength $pushed] [llength $pushed]]
        set got [lmap d [dql_drain $fd mq] { lindex [split $d :] 0 }]
        list [expr {$got eq $pushed}] [llength $got]
    } {1 *}

    test {doc-loss: under -m, a queue whose TTL ran out gives its memory back to pushes ("expired items go first")} {
        set n 0
        while {$n < 6000} {
            set r [mc_exchange $fd [string repeat "qpush ex 0 0 1000\r\n$v\r\n" 100]]
            incr n [regexp -all {PUSHED} $r]
            if {[string match *SERVER_ERROR* $r]} break
        }
        assert_true {$n > 1000}
        assert_equal [mc_exchange $fd "touch ex 1\r\n"] "TOUCHED\r\n"
        after 2500
        # ex is gone by its TTL: its memory is free again for other queues.
        mc_exchange $fd "qpush ey 0 0 1000\r\n$v\r\n"
    } "PUSHED *"
}

# --data-dir and kill -9: every acknowledged change survives.
set dql_dir [tmpdir dqlpersist]
start_server [list tags {queue persist mcds-only} args [list --data-dir $dql_dir --fsync no]] {
    test {doc-loss: kill -9 with messages ready, delayed, leased, dead-lettered, buried and acked} {
        set fd [mc_connect]
        assert_equal [mc_exchange $fd "qcreate ps lease=600 maxdeliver=1 dlq=psd\r\nqcreate pb lease=1 maxdeliver=1 dlq=pbd\r\n"] "CREATED\r\nCREATED\r\n"
        set ::dql_p [dict create]
        dict set ::dql_p ready [dql_push $fd ps 3 r]
        dict set ::dql_p delayed [q_push $fd ps later 0 3600]
        set lease [q_push $fd ps leased]
        set acked [q_push $fd ps acked]
        # Pop in order: r0 r1 r2 leased acked; keep 'leased' and 'acked' only.
        q_push $fd pb buried
        assert_equal [mc_set $fd pbd cache] STORED
        q_pop $fd pb
        set items [q_pop $fd ps 5]
        foreach it $items {
            lassign $it id - data n
            if {$data eq "acked"} { assert_equal [mc_exchange $fd "qack ps $id:1\r\n"] "ACKED\r\n" }
            if {[string match r* $data]} { assert_equal [mc_exchange $fd "qrelease ps $id:1\r\n"] "RELEASED\r\n" }
        }
        mc_exchange $fd "debugtime 2\r\n"
        wait_for {[dql_pick $fd pb buried] == 1}
        set ::dql_before [list [dql_pick $fd ps {ready delayed in_flight buried}] [dql_pick $fd pb {ready in_flight buried}]]
        kill_pid [srv pid] KILL
        wait_server_exit
        set ::dql_before
    } {{3 1 1 0} {0 0 1}}
}
start_server [list tags {queue persist mcds-only} args [list --data-dir $dql_dir --fsync no]] {
    test {doc-loss: after the restart every message is where it was (the buried one may have reached its dead-letter queue)} {
        set fd [mc_connect]
        set ps [dql_pick $fd ps {ready delayed in_flight buried}]
        set pb [expr {[dql_held $fd pb] + [dql_held $fd pbd]}]
        list $ps $pb [lsort [lmap p [q_pending $fd ps] { lindex $p 3 }]] \
            [lmap it [q_parse [mc_exchange $fd "qpeek ps 10\r\n"]] { lindex $it 2 }]
    } {{3 1 1 0} 1 1 {r0 r1 r2}}
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {doc-loss: a qpopany wait is served exactly once; a push to its other queue stays there} {
        set bad {}
        for {set i 0} {$i < 10} {incr i} {
            set w [mc_connect]
            mc_send $w "qpopany o${i}a o${i}b wait=10\r\n"
            q_wait_waiters $fd o${i}a 1
            set p1 [mc_connect]
            set p2 [mc_connect]
            mc_send $p1 "qpush o${i}a 0 0 1\r\nx\r\n"
            mc_send $p2 "qpush o${i}b 0 0 1\r\ny\r\n"
            mc_readline $p1
            mc_readline $p2
            set items [dql_read_items $w]
            set a [dql_pick $fd o${i}a {ready in_flight waiters}]
            set b [dql_pick $fd o${i}b {ready in_flight waiters}]
            set held [expr {[lindex $a 0] + [lindex $a 1] + [lindex $b 0] + [lindex $b 1]}]
            if {[llength $items] != 1 || $held != 2 || [lindex $a 1] + [lindex $b 1] != 1 ||
                [lindex $a 2] + [lindex $b 2] != 0} {
                lappend bad "$i: $items $a $b"
            }
            foreach c [list $w $p1 $p2] { mc_close $c }
        }
        set bad
    } {}

    test {doc-loss: qpop ack= answers its ack line at once even when the pop then waits} {
        set id [q_push $fd aw a]
        q_pop $fd aw
        set w [mc_connect]
        mc_send $w "qpop aw ack=$id:1 wait=10\r\n"
        set first [mc_readline $w]
        q_wait_waiters $fd aw 1
        q_push $fd aw b
        list $first [dql_read_items $w] \
            [dql_pick $fd aw {ready in_flight acked}]
    } {ACKED {{* 0 b 1}} {0 1 1}}
}
