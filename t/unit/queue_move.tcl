# Moving queued messages back where they can be delivered (doc/protocol.md,
# "3. Queues", qredrive and qkick): a dead-letter queue's ready messages go
# back to the queue each came from, a queue's buried messages become ready
# again. Every test counts the messages: none is lost or doubled. Time
# moves with debugtime only. Restarts are in t/integration/persist_queue_move.tcl.
# Helpers are in t/support/queue.tcl.

# qm_dead fd queue n ?opts? -> the ids of n messages "<queue>-<i>" pushed on
# a new queue (maxage=1000 and opts) and moved to its dead-letter queue by
# age. Times here are long and moved by debugtime, so that a slow run
# (valgrind) does not age or expire anything on its own.
proc qm_dead {fd q n {opts {}}} {
    assert_equal [mc_exchange $fd "qcreate $q maxage=1000 $opts\r\n"] "CREATED\r\n"
    set ids {}
    for {set i 0} {$i < $n} {incr i} { lappend ids [q_push $fd $q $q-$i $i] }
    assert_equal [mc_exchange $fd "debugtime 1001\r\n"] "OK\r\n"
    return $ids
}

# qm_dead_many fd queue n: messages "0".."<n-1>" pushed (pipelined) on a
# new queue and moved to its dead-letter queue by age.
proc qm_dead_many {fd q n} {
    assert_equal [mc_exchange $fd "qcreate $q maxage=1000\r\n"] "CREATED\r\n"
    set batch {}
    for {set i 0} {$i < $n} {incr i} { append batch "qpush $q 0 0 [string length $i]\r\n$i\r\n" }
    mc_send $fd $batch
    for {set i 0} {$i < $n} {incr i} { mc_readline $fd }
    assert_equal [mc_exchange $fd "debugtime 1001\r\n"] "OK\r\n"
}

# qm_ids fd queue -> the ids of the ready messages (up to 100), in order.
proc qm_ids {fd q} {
    return [lmap m [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $m 0 }]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qredrive: dead letters go back to their queue, ids, flags and data kept, counts start again} {
        set ids [qm_dead $fd rd1 3 maxdeliver=2]
        assert_equal [qm_ids $fd rd1:dead] $ids
        assert_equal [mc_exchange $fd "qredrive rd1:dead\r\n"] "REDRIVEN 3 0\r\n"
        set want {}
        foreach id $ids i {0 1 2} { append want [q_item $id $i rd1-$i 0] }
        assert_equal [mc_exchange $fd "qpeek rd1 5\r\nqpeek rd1:dead\r\n"] "${want}END\r\nEND\r\n"
        list [q_stat $fd rd1:dead redriven] [q_stat $fd rd1:dead ready] [q_stat $fd rd1 ready] \
            [q_stat $fd rd1 pushed] [q_stat $fd rd1 dead]
    } {3 0 3 6 3} {debugtime}

    test {qredrive: a redriven message's delivery count and age start again} {
        # rd1 has maxdeliver=2 and maxage=1000: each message gets two more deliveries.
        set m [lindex [q_pop $fd rd1 1] 0]
        assert_equal [lindex $m 3] 1
        assert_equal [mc_exchange $fd "qrelease rd1 [lindex $m 0]\r\n"] "RELEASED\r\n"
        set m [lindex [q_pop $fd rd1 1] 0]
        assert_equal [lindex $m 3] 2
        assert_equal [mc_exchange $fd "qack rd1 [lindex $m 0]:2\r\n"] "ACKED\r\n"
        assert_equal [mc_exchange $fd "debugtime 999\r\n"] "OK\r\n"
        assert_equal [q_stat $fd rd1 ready] 2
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        list [q_stat $fd rd1 ready] [q_stat $fd rd1:dead ready]
    } {0 2} {debugtime}

    test {qredrive <count>: at most count messages, in delivery order} {
        set ids [qm_dead $fd rd2 5]
        assert_equal [mc_exchange $fd "qredrive rd2:dead 2\r\n"] "REDRIVEN 2 0\r\n"
        assert_equal [qm_ids $fd rd2] [lrange $ids 0 1]
        assert_equal [qm_ids $fd rd2:dead] [lrange $ids 2 end]
        assert_equal [mc_exchange $fd "qredrive rd2:dead 10000\r\nqredrive rd2:dead\r\n"] \
            "REDRIVEN 3 0\r\nREDRIVEN 0 0\r\n"
        expr {[qm_ids $fd rd2] eq $ids}
    } 1 {debugtime}

    test {qredrive: one dead-letter queue shared by two queues sends each message home} {
        set a [qm_dead $fd rd3a 2 dlq=rd3dlq]
        set b [qm_dead $fd rd3b 2 dlq=rd3dlq]
        assert_equal [q_stat $fd rd3dlq ready] 4
        assert_equal [mc_exchange $fd "qredrive rd3dlq\r\n"] "REDRIVEN 4 0\r\n"
        list [expr {[qm_ids $fd rd3a] eq $a}] [expr {[qm_ids $fd rd3b] eq $b}] [q_stat $fd rd3dlq ready]
    } {1 1 0} {debugtime}

    test {qredrive: a source that is gone, holds a cache value or is full keeps its messages in place} {
        set a [qm_dead $fd rd4a 2 dlq=rd4dlq]
        set b [qm_dead $fd rd4b 2 dlq=rd4dlq]
        set c [qm_dead $fd rd4c 3 "dlq=rd4dlq maxlen=3"]
        set all [qm_ids $fd rd4dlq]
        assert_equal [lsort $all] [lsort [concat $a $b $c]]
        # rd4a deleted, rd4b a cache value now, rd4c takes one more only.
        assert_equal [mc_exchange $fd "delete rd4a\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $fd "delete rd4b\r\nset rd4b 0 0 1\r\nx\r\n"] "DELETED\r\nSTORED\r\n"
        q_push $fd rd4c new1
        q_push $fd rd4c new2
        assert_equal [mc_exchange $fd "qredrive rd4dlq\r\n"] "REDRIVEN 1 6\r\n"
        # What stayed keeps its order; the message that went is the first of rd4c.
        set left [qm_ids $fd rd4dlq]
        assert_equal $left [lsearch -all -inline -not -exact $all [lindex $c 0]]
        assert_equal [lindex [qm_ids $fd rd4c] end] [lindex $c 0]
        # Once the sources can take them, they go.
        assert_equal [mc_exchange $fd "qcreate rd4a\r\ndelete rd4b\r\nqpurge rd4c\r\n"] \
            "CREATED\r\nDELETED\r\nPURGED 3\r\n"
        assert_equal [mc_exchange $fd "qredrive rd4dlq\r\n"] "REDRIVEN 4 2\r\n"
        # rd4b is still missing: a redrive creates no queue.
        list [expr {[qm_ids $fd rd4a] eq $a}] [llength [qm_ids $fd rd4c]] \
            [expr {[qm_ids $fd rd4dlq] eq $b}] [mc_exchange $fd "qstats rd4b\r\n"]
    } [list 1 2 1 "NOT_FOUND\r\n"] {debugtime}

    test {qredrive: messages pushed straight onto a dead-letter queue have no source and stay} {
        set a [q_push $fd rd5 direct1]
        set b [q_push $fd rd5 direct2]
        list [mc_exchange $fd "qredrive rd5\r\n"] [expr {[qm_ids $fd rd5] eq [list $a $b]}]
    } [list "REDRIVEN 0 2\r\n" 1]

    test {qredrive: in-flight and delayed dead letters are not moved} {
        set ids [qm_dead $fd rd6 3]
        set m [lindex [q_pop $fd rd6:dead 1] 0]
        assert_equal [lindex $m 0] [lindex $ids 0]
        set r [q_pop $fd rd6:dead 1]
        assert_equal [mc_exchange $fd "qrelease rd6:dead [lindex $r 0 0] 100\r\n"] "RELEASED\r\n"
        assert_equal [mc_exchange $fd "qredrive rd6:dead\r\n"] "REDRIVEN 1 0\r\n"
        assert_equal [qm_ids $fd rd6] [lindex $ids 2]
        assert_equal [q_counts $fd rd6:dead] {0 1 1}
        # The in-flight one can still be acked where it is.
        mc_exchange $fd "qack rd6:dead [lindex $ids 0]\r\n"
    } "ACKED\r\n" {debugtime}

    test {qredrive: 10050 dead letters take two requests (at most 10000 each), each moved once} {
        qm_dead_many $fd rd7 10050
        assert_equal [q_stat $fd rd7:dead ready] 10050
        assert_equal [mc_exchange $fd "qredrive rd7:dead\r\nqredrive rd7:dead\r\n"] \
            "REDRIVEN 10000 0\r\nREDRIVEN 50 0\r\n"
        # Every message is in rd7 exactly once, in push order.
        set seen {}
        while {[llength [set items [q_pop $fd rd7 100]]]} {
            set acks {}
            foreach it $items {
                lappend seen [lindex $it 2]
                append acks "qack rd7 [lindex $it 0]\r\n"
            }
            mc_exchange $fd $acks
        }
        set want {}
        for {set i 0} {$i < 10050} {incr i} { lappend want $i }
        list [expr {$seen eq $want}] [q_stat $fd rd7:dead ready] [q_stat $fd rd7:dead redriven]
    } {1 0 10050} {debugtime}

    test {qredrive while consumers pop the source: every message is seen exactly once} {
        qm_dead_many $fd rd8 3000
        set c [mc_connect]
        mc_send $fd "qredrive rd8:dead\r\n"
        set seen {}
        for {set k 0} {$k < 20} {incr k} {
            foreach it [q_pop $c rd8 100] {
                lappend seen [lindex $it 2]
                assert_equal [mc_exchange $c "qack rd8 [lindex $it 0]:1\r\n"] "ACKED\r\n"
            }
        }
        assert_equal [mc_readline $fd] "REDRIVEN 3000 0"
        while {[llength [set items [q_pop $c rd8 100]]]} {
            foreach it $items {
                lappend seen [lindex $it 2]
                mc_exchange $c "qack rd8 [lindex $it 0]\r\n"
            }
        }
        mc_close $c
        set want {}
        for {set i 0} {$i < 3000} {incr i} { lappend want $i }
        list [expr {[lsort -integer $seen] eq $want}] [q_stat $fd rd8:dead ready] [q_stat $fd rd8 in_flight]
    } {1 0 0} {debugtime}

    test {qredrive: a consumer waiting on the source gets a redriven message} {
        set ids [qm_dead $fd rd9 1]
        set w [mc_connect]
        mc_send $w "qpop rd9 wait=100\r\n"
        q_wait_waiters $fd rd9 1
        assert_equal [mc_exchange $fd "qredrive rd9:dead\r\n"] "REDRIVEN 1 0\r\n"
        set r [mc_exchange $w ""]
        mc_close $w
        set r
    } {ITEM * 0 5 1*END*} {debugtime}

    test {qredrive: bad lines are CLIENT_ERROR and move nothing} {
        set ids [qm_dead $fd rd10 2]
        set r {}
        foreach args {0 10001 -1 abc 1.5 99999999999999999999 {1 2} {1 x}} {
            append r [mc_exchange $fd "qredrive rd10:dead $args\r\n"]
        }
        append r [mc_exchange $fd "qredrive [string repeat k 251]\r\nqredrive\r\nqredrive a b c d\r\n"]
        append r [mc_exchange $fd "qredrive rd10:dead noreply 5\r\n"]
        assert_equal $r [string cat [string repeat "CLIENT_ERROR count must be 1..10000\r\n" 6] \
            "CLIENT_ERROR too many tokens\r\n" "CLIENT_ERROR too many tokens\r\n" \
            "CLIENT_ERROR key too long\r\n" "ERROR\r\n" "ERROR\r\n" \
            "CLIENT_ERROR noreply must be the last token\r\n"]
        list [q_stat $fd rd10:dead ready] [mc_exchange $fd "qredrive nosuch\r\nqredrive nosuch 5\r\n"]
    } [list 2 "NOT_FOUND\r\nNOT_FOUND\r\n"] {debugtime}

    test {qredrive: a key holding a cache value; noreply answers nothing} {
        mc_set $fd rd11plain v
        assert_equal [mc_exchange $fd "qredrive rd11plain\r\n"] "CLIENT_ERROR key holds another type of value\r\n"
        set ids [qm_dead $fd rd11 2]
        mc_send $fd "qredrive rd11:dead 1 noreply\r\nqredrive rd11:dead noreply\r\n"
        list [mc_exchange $fd "qstats rd11\r\n" ] [q_stat $fd rd11:dead redriven]
    } [list "*STAT ready 2\r\n*" 2] {debugtime}
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    # qm_buried fd queue n -> the ids of n messages buried in a new queue
    # (maxdeliver=1) whose dead-letter queue <queue>.dlq is full.
    proc qm_buried {fd q n} {
        assert_equal [mc_exchange $fd "qcreate $q.dlq maxlen=1\r\n"] "CREATED\r\n"
        q_push $fd $q.dlq filler
        assert_equal [mc_exchange $fd "qcreate $q maxdeliver=1 lease=100 dlq=$q.dlq\r\n"] "CREATED\r\n"
        set ids {}
        for {set i 0} {$i < $n} {incr i} { lappend ids [q_push $fd $q $q-$i] }
        assert_equal [llength [q_pop $fd $q 100]] $n
        assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
        assert_equal [q_stat $fd $q buried] $n
        return $ids
    }

    test {qkick: buried messages are ready again in their order, their delivery count starting again} {
        set ids [qm_buried $fd kk1 3]
        assert_equal [mc_exchange $fd "qkick kk1\r\n"] "KICKED 3\r\n"
        assert_equal [qm_ids $fd kk1] $ids
        set m [lindex [q_pop $fd kk1 1] 0]
        assert_equal [lindex $m 3] 1
        list [q_stat $fd kk1 buried] [q_stat $fd kk1 kicked] [q_stat $fd kk1 ready] [q_stat $fd kk1 in_flight]
    } {0 3 2 1} {debugtime}

    test {qkick: a kicked message that fails again is buried again (the dead-letter queue is still full)} {
        assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
        assert_equal [q_stat $fd kk1 buried] 1
        # Room in the dead-letter queue: the buried one goes there on the next offer.
        assert_equal [mc_exchange $fd "qpurge kk1.dlq\r\ndebugtime 2\r\n"] "PURGED 1\r\nOK\r\n"
        list [q_stat $fd kk1 buried] [q_stat $fd kk1.dlq ready]
    } {0 1} {debugtime}

    test {qkick <count>: at most count; on a queue with none buried, KICKED 0} {
        set ids [qm_buried $fd kk2 4]
        assert_equal [mc_exchange $fd "qkick kk2 1\r\nqkick kk2 2\r\n"] "KICKED 1\r\nKICKED 2\r\n"
        assert_equal [qm_ids $fd kk2] [lrange $ids 0 2]
        assert_equal [mc_exchange $fd "qkick kk2 10000\r\nqkick kk2\r\n"] "KICKED 1\r\nKICKED 0\r\n"
        list [expr {[qm_ids $fd kk2] eq $ids}] [q_stat $fd kk2 kicked]
    } {1 4} {debugtime}

    test {qkick: a message buried for its age ages again from the kick} {
        assert_equal [mc_exchange $fd "qcreate kk3.dlq maxlen=1\r\n"] "CREATED\r\n"
        q_push $fd kk3.dlq filler
        assert_equal [mc_exchange $fd "qcreate kk3 maxage=500 dlq=kk3.dlq\r\n"] "CREATED\r\n"
        set id [q_push $fd kk3 old]
        assert_equal [mc_exchange $fd "debugtime 501\r\n"] "OK\r\n"
        assert_equal [q_stat $fd kk3 buried] 1
        assert_equal [mc_exchange $fd "qkick kk3\r\ndebugtime 300\r\n"] "KICKED 1\r\nOK\r\n"
        assert_equal [qm_ids $fd kk3] $id
        assert_equal [mc_exchange $fd "debugtime 300\r\n"] "OK\r\n"
        list [q_stat $fd kk3 ready] [q_stat $fd kk3 buried]
    } {0 1} {debugtime}

    test {qkick: bad lines are CLIENT_ERROR and kick nothing; missing queue NOT_FOUND} {
        set ids [qm_buried $fd kk4 2]
        set r {}
        foreach args {0 10001 -5 x 1e3 {1 2}} {
            append r [mc_exchange $fd "qkick kk4 $args\r\n"]
        }
        mc_set $fd kk4plain v
        append r [mc_exchange $fd "qkick kk4plain\r\nqkick nosuch\r\nqkick\r\n"]
        assert_equal $r [string cat [string repeat "CLIENT_ERROR count must be 1..10000\r\n" 5] \
            "CLIENT_ERROR too many tokens\r\n" "CLIENT_ERROR key holds another type of value\r\n" \
            "NOT_FOUND\r\n" "ERROR\r\n"]
        mc_send $fd "qkick kk4 noreply\r\n"
        list [q_stat $fd kk4 buried] [q_stat $fd kk4 ready]
    } {0 2} {debugtime}

    test {qredrive after qkick: a dead letter buried in its dead-letter queue still knows its source} {
        # d2 is rd's dead-letter queue and has one of its own (d2.dlq, full):
        # rd's messages die into d2, die again there and are buried in d2.
        assert_equal [mc_exchange $fd "qcreate d2.dlq maxlen=1\r\nqcreate d2 maxdeliver=1 lease=100 dlq=d2.dlq\r\n"] \
            "CREATED\r\nCREATED\r\n"
        q_push $fd d2.dlq filler
        set ids [qm_dead $fd kk5 2 dlq=d2]
        assert_equal [llength [q_pop $fd d2 10]] 2
        assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
        assert_equal [q_stat $fd d2 buried] 2
        assert_equal [mc_exchange $fd "qkick d2\r\nqredrive d2\r\n"] "KICKED 2\r\nREDRIVEN 2 0\r\n"
        list [expr {[qm_ids $fd kk5] eq $ids}] [q_counts $fd d2] [q_stat $fd d2 buried]
    } {1 {0 0 0} 0} {debugtime}
}

# libmcds: mcds_queue_push_many, mcds_queue_pop_any, mcds_queue_redrive and
# mcds_queue_kick (client/queue_move.c), run
# by client/tests/test_queue_move, which prints "ok - " per passed check and
# exits 0 only when every check passed (under valgrind with --valgrind).
start_server {tags {libmcds queue mcds-only}} {
    test {libmcds: mcds_queue_push_many, mcds_queue_pop_any, mcds_queue_redrive and mcds_queue_kick} {
        set bin [file join [builddir] client tests test_queue_move]
        if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
        set cmd [list $bin 127.0.0.1:[srv port]]
        if {$::cfg(valgrind)} {
            set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
                --error-exitcode=99 {*}$cmd]
        }
        lassign [run_cmd 300 {*}$cmd] status out
        if {$status ne "0"} { fail "test_queue_move exited $status:\n$out" }
        regexp -all -line {^ok - } $out
    } 6
}

# qm_pushn queue flags delay pri values ?tail? -> the qpushn request with
# one data block per value (tail goes after the lengths, e.g. noreply).
proc qm_pushn {q flags delay pri values {tail {}}} {
    set line "qpushn $q $flags $delay $pri"
    set blocks {}
    foreach v $values {
        append line " [string length $v]"
        append blocks "$v\r\n"
    }
    if {$tail ne {}} { append line " $tail" }
    return "$line\r\n$blocks"
}

# qm_pushed reply n -> the n ids of "PUSHED <id> ..." (fails on anything else).
proc qm_pushed {r n} {
    if {![regexp "^PUSHED((?: \\d+){$n})\r\n\$" $r -> ids]} { fail "qpushn answered '[visible $r]'" }
    return $ids
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpushn: several messages in one request, in order, one id each} {
        set ids [qm_pushed [mc_exchange $fd [qm_pushn pn1 5 0 1024 {a bb {} ccc}]] 4]
        assert_equal [llength [lsort -unique $ids]] 4
        set want {}
        foreach id $ids v {a bb {} ccc} { append want [q_item $id 5 $v 0] }
        assert_equal [mc_exchange $fd "qpeek pn1 10\r\n"] "${want}END\r\n"
        list [q_stat $fd pn1 pushed] [q_stat $fd pn1 ready]
    } {4 4}

    test {qpushn: priority and delay apply to every message; binary data kept} {
        set bin "x\r\ny\0z"
        set ids [qm_pushed [mc_exchange $fd [qm_pushn pn2 0 10 7 [list $bin two]]] 2]
        set one [q_push $fd pn2 first 0 0 8]
        assert_equal [q_counts $fd pn2] {1 2 0}
        assert_equal [mc_exchange $fd "debugtime 11\r\n"] "OK\r\n"
        assert_equal [mc_exchange $fd "qpeek pn2 5\r\n"] \
            "[q_item [lindex $ids 0] 0 $bin 0][q_item [lindex $ids 1] 0 two 0][q_item $one 0 first 0]END\r\n"
    } {} {debugtime}

    test {qpushn: 100 messages fit; 101 are CLIENT_ERROR too many messages, data skipped, nothing queued} {
        set vals {}
        for {set i 0} {$i < 100} {incr i} { lappend vals v$i }
        qm_pushed [mc_exchange $fd [qm_pushn pn3 0 0 1 $vals]] 100
        lappend vals v100
        assert_equal [mc_exchange $fd "[qm_pushn pn3 0 0 1 $vals]qpeek nosuch\r\n"] \
            "CLIENT_ERROR too many messages\r\nEND\r\n"
        q_stat $fd pn3 ready
    } 100

    test {qpushn: all or nothing against maxlen} {
        assert_equal [mc_exchange $fd "qcreate pn4 maxlen=3\r\n"] "CREATED\r\n"
        q_push $fd pn4 one
        assert_equal [mc_exchange $fd [qm_pushn pn4 0 0 1 {a b c}]] "NOT_STORED\r\n"
        assert_equal [q_stat $fd pn4 ready] 1
        qm_pushed [mc_exchange $fd [qm_pushn pn4 0 0 1 {a b}]] 2
        list [q_stat $fd pn4 ready] [mc_exchange $fd [qm_pushn pn4 0 0 1 {d}]]
    } [list 3 "NOT_STORED\r\n"]

    test {qpushn: a waiting consumer is served from the batch} {
        set w [mc_connect]
        mc_send $w "qpop pn5 2 wait=100\r\n"
        q_wait_waiters $fd pn5 1
        set ids [qm_pushed [mc_exchange $fd [qm_pushn pn5 0 0 1 {p q r}]] 3]
        set r [mc_exchange $w ""]
        mc_close $w
        list [expr {$r eq "[q_item [lindex $ids 0] 0 p 1][q_item [lindex $ids 1] 0 q 1]END\r\n"}] \
            [q_counts $fd pn5]
    } {1 {1 0 2}}

    test {qpushn: bad lines are CLIENT_ERROR, their blocks skipped when the lengths parse} {
        set r {}
        foreach line {
            "qpushn pn6 4294967296 0 1 1 1" "qpushn pn6 x 0 1 1 1" "qpushn pn6 0 2147483648 1 1 1"
            "qpushn pn6 0 0 4294967296 1 1" "qpushn pn6 0 0 -1 1 1"
        } { append r [mc_exchange $fd "$line\r\na\r\nb\r\n"] }
        append r [mc_exchange $fd "qpushn [string repeat k 251] 0 0 1 1\r\na\r\n"]
        # A bad length: nothing can be skipped, so the connection closes
        # after the error (no block is read as a command).
        append r [mc_last_reply "qpushn pn6 0 0 1 1 -1\r\na\r\nflush_all\r\n"]
        append r [mc_last_reply "qpushn pn6 0 0 1 1 2147483646\r\na\r\n"]
        append r [mc_exchange $fd "qpushn pn6 0 0 1 1 noreply 1\r\na\r\nb\r\nqpushn pn6 0 0 1\r\nqpushn\r\n"]
        assert_equal $r [string cat "CLIENT_ERROR bad flags\r\n" "CLIENT_ERROR bad flags\r\n" \
            "CLIENT_ERROR bad delay\r\n" "CLIENT_ERROR bad priority\r\n" "CLIENT_ERROR bad priority\r\n" \
            "CLIENT_ERROR key too long\r\n" "CLIENT_ERROR bad length\r\n" "CLIENT_ERROR bad length\r\n" \
            "CLIENT_ERROR noreply must be the last token\r\n" "ERROR\r\n" "ERROR\r\n"]
        mc_exchange $fd "qstats pn6\r\n"
    } "NOT_FOUND\r\n"

    test {qpushn: a bad block, a key holding a cache value: nothing queued} {
        assert_equal [mc_exchange $fd "qpushn pn7 0 0 1 1 1\r\na\r\nbXYqpeek nosuch\r\n"] \
            "CLIENT_ERROR bad data chunk\r\nEND\r\n"
        mc_set $fd pn7plain v
        list [mc_exchange $fd [qm_pushn pn7plain 0 0 1 {a b}]] [mc_exchange $fd "qstats pn7\r\n"] \
            [mc_get $fd pn7plain]
    } [list "CLIENT_ERROR key holds another type of value\r\n" "NOT_FOUND\r\n" v]

    test {qpushn noreply: nothing answered, every message queued} {
        mc_send $fd [qm_pushn pn8 0 0 1 {a b c} noreply]
        list [mc_exchange $fd "qpeek nosuch\r\n"] [q_stat $fd pn8 ready]
    } [list "END\r\n" 3]

    test {qpushn from three connections while a consumer drains: every message once} {
        set conns {}
        for {set c 0} {$c < 3} {incr c} {
            set p [mc_connect]
            lappend conns $p
            set req {}
            for {set b 0} {$b < 20} {incr b} {
                set vals {}
                for {set i 0} {$i < 50} {incr i} { lappend vals $c.$b.$i }
                append req [qm_pushn pn9 0 0 1 $vals]
            }
            mc_send $p $req
        }
        set seen {}
        for {set k 0} {$k < 10} {incr k} {
            foreach it [q_pop $fd pn9 100] {
                lappend seen [lindex $it 2]
                mc_exchange $fd "qack pn9 [lindex $it 0]\r\n"
            }
        }
        set ids {}
        foreach p $conns {
            for {set b 0} {$b < 20} {incr b} { lappend ids {*}[qm_pushed "[mc_readline $p]\r\n" 50] }
            mc_close $p
        }
        while {[llength [set items [q_pop $fd pn9 100]]]} {
            foreach it $items {
                lappend seen [lindex $it 2]
                mc_exchange $fd "qack pn9 [lindex $it 0]\r\n"
            }
        }
        list [llength [lsort -unique $ids]] [llength $seen] [llength [lsort -unique $seen]]
    } {3000 3000 3000}
}

start_server {tags {queue mcds-only} args {-I 2k}} {
    set fd [mc_connect]

    test {qpushn: the data of one request together counts against -I (blocks skipped)} {
        set a [string repeat a 1000]
        qm_pushed [mc_exchange $fd [qm_pushn pi 0 0 1 [list $a $a]]] 2
        assert_equal [mc_exchange $fd "[qm_pushn pi 0 0 1 [list $a $a $a]]qpeek nosuch\r\n"] \
            "SERVER_ERROR object too large for cache\r\nEND\r\n"
        q_stat $fd pi ready
    } 2
}

start_server {tags {queue mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {qpushn -M: out of memory pushes nothing; room again after an ack} {
        set n [q_fill $fd pm 40000 200]
        set v [string repeat y 20000]
        assert_equal [mc_exchange $fd "[qm_pushn pm 0 0 1 [list $v $v]]qpeek nosuch\r\n"] \
            "SERVER_ERROR out of memory storing object\r\nEND\r\n"
        assert_equal [q_stat $fd pm ready] $n
        set m [lindex [q_pop $fd pm 1] 0]
        assert_equal [mc_exchange $fd "qack pm [lindex $m 0]\r\n"] "ACKED\r\n"
        set v [string repeat z 15000]
        assert_equal [mc_exchange $fd [qm_pushn pm 0 0 1 [list $v $v]]] \
            "SERVER_ERROR out of memory storing object\r\n"
        assert_equal [q_stat $fd pm ready] [expr {$n - 1}]
        qm_pushed [mc_exchange $fd [qm_pushn pm 0 0 1 {small1 small2}]] 2
        expr {[q_stat $fd pm ready] - $n}
    } 1
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpopany: the first queue in the order given with a message ready; its name on each ITEM} {
        set b [q_push $fd pa.b bee 3]
        set c [q_push $fd pa.c sea]
        assert_equal [mc_exchange $fd "qpopany pa.a pa.b pa.c\r\n"] "ITEM $b 3 3 1 pa.b\r\nbee\r\nEND\r\n"
        assert_equal [mc_exchange $fd "qpopany pa.c pa.a\r\n"] "ITEM $c 0 3 1 pa.c\r\nsea\r\nEND\r\n"
        list [mc_exchange $fd "qpopany pa.a pa.b pa.c\r\n"] [mc_exchange $fd "qstats pa.a\r\n"] \
            [q_stat $fd pa.b in_flight]
    } [list "END\r\n" "NOT_FOUND\r\n" 1]

    test {qpopany count=: several messages, all from one queue; lease= applies} {
        set a [q_push $fd pb.a one]
        q_push $fd pb.b two
        q_push $fd pb.b three
        set items [q_parse [mc_exchange $fd "qpopany pb.a pb.b count=5 lease=100\r\n"]]
        assert_equal $items [list [list $a 0 one 1 pb.a]]
        set items [q_parse [mc_exchange $fd "qpopany pb.a pb.b count=5\r\n"]]
        set left [lindex [q_pending $fd pb.a] 0 4]
        list [llength $items] [lsort -unique [lmap i $items { lindex $i 4 }]] [expr {$left > 90000 && $left <= 100000}]
    } {2 pb.b 1}

    test {qpopany wait=: a push to any of the queues serves the waiter, the others let it go} {
        set w [mc_connect]
        mc_send $w "qpopany pc.x pc.y pc.z wait=100\r\n"
        foreach q {pc.x pc.y pc.z} { q_wait_waiters $fd $q 1 }
        set id [q_push $fd pc.y hello]
        assert_equal [mc_exchange $w ""] "ITEM $id 0 5 1 pc.y\r\nhello\r\nEND\r\n"
        set r [lmap q {pc.x pc.y pc.z} { q_stat $fd $q waiters }]
        # The waiter took exactly one delivery: a push to the others stays ready.
        q_push $fd pc.x later
        mc_close $w
        list $r [q_counts $fd pc.x] [q_counts $fd pc.y]
    } {{0 0 0} {1 0 0} {0 0 1}}

    test {qpopany wait=: the wait ends empty; a hang-up leases nothing} {
        set w [mc_connect]
        assert_equal [mc_exchange $w "qpopany pd.x pd.y wait=0.1\r\n"] "END\r\n"
        mc_send $w "qpopany pd.x pd.y wait=100\r\n"
        q_wait_waiters $fd pd.y 1
        mc_close $w
        q_wait_waiters $fd pd.x 0
        q_wait_waiters $fd pd.y 0
        set id [q_push $fd pd.y kept]
        list [q_counts $fd pd.y] [expr {[mc_exchange $fd "qpeek pd.y\r\n"] eq "[q_item $id 0 kept 0]END\r\n"}]
    } {{1 0 0} 1}

    test {qpopany wait=: deleting one of the queues ends the wait with END} {
        set w [mc_connect]
        mc_send $w "qpopany pe.x pe.y wait=100\r\n"
        q_wait_waiters $fd pe.y 1
        assert_equal [mc_exchange $fd "delete pe.x\r\n"] "DELETED\r\n"
        set r [mc_exchange $w ""]
        q_wait_waiters $fd pe.y 0
        mc_close $w
        set r
    } "END\r\n"

    test {qpopany: bad lines; a token with "=" before any option is a queue's name} {
        assert_equal [mc_exchange $fd "qpopany q bogus=1\r\n"] "END\r\n"
        set r {}
        foreach args {
            "q count=0" "q count=101" "q count=x" "q lease=0" "q wait=-1" "q count=1 bogus=1"
            "q count=1 r" "[string repeat k 251]"
        } { append r [mc_exchange $fd "qpopany [subst $args]\r\n"] }
        set many {}
        for {set i 0} {$i < 17} {incr i} { lappend many q$i }
        append r [mc_exchange $fd "qpopany $many\r\nqpopany\r\n"]
        mc_set $fd pfplain v
        append r [mc_exchange $fd "qpopany pf.q pfplain\r\n"]
        set r
    } [string cat "CLIENT_ERROR count must be 1..100\r\n" "CLIENT_ERROR count must be 1..100\r\n" \
           "CLIENT_ERROR count must be 1..100\r\n" "CLIENT_ERROR bad value for lease\r\n" \
           "CLIENT_ERROR bad value for wait\r\n" "CLIENT_ERROR unknown option bogus\r\n" \
           "CLIENT_ERROR unknown option r\r\n" "CLIENT_ERROR key too long\r\n" \
           "CLIENT_ERROR too many queues\r\n" "ERROR\r\n" \
           "CLIENT_ERROR key holds another type of value\r\n"]

    test {qpopany: waiters that hang up as messages arrive lose nothing and count no delivery} {
        set ids {}
        set got {}
        for {set i 0} {$i < 30} {incr i} {
            set w [mc_connect]
            mc_send $w "qpopany ph$i.a ph$i.b wait=100\r\n"
            q_wait_waiters $fd ph$i.b 1
            mc_send $fd "qpush ph$i.[expr {$i % 2 ? "a" : "b"}] 0 0 2\r\nm.\r\n"
            mc_close $w
            regexp {PUSHED (\d+)} [mc_readline $fd] -> id
            lappend ids $id
            q_wait_waiters $fd ph$i.a 0
            q_wait_waiters $fd ph$i.b 0
            # The message is back, its delivery not counted (or was never
            # taken), or it was answered before the hang-up was seen: in
            # flight then, once delivered. Never both, never lost.
            foreach q [list ph$i.a ph$i.b] {
                foreach p [q_pending $fd $q] { lappend got [list [lindex $p 0] [lindex $p 3]] }
                foreach it [q_pop $fd $q] { lappend got [list [lindex $it 0] [lindex $it 3]] }
            }
        }
        list [expr {[lsort -integer [lmap it $got { lindex $it 0 }]] eq [lsort -integer $ids]}] \
            [lsort -unique [lmap it $got { lindex $it 1 }]]
    } {1 1}

    test {qpopany: 16 queues, consumers waiting on all while producers push to each: every message once} {
        set queues {}
        for {set i 0} {$i < 16} {incr i} { lappend queues pg.$i }
        set cons {}
        for {set k 0} {$k < 5} {incr k} { lappend cons [mc_connect] }
        set seen {}
        set pushed 0
        for {set round 0} {$round < 20} {incr round} {
            foreach w $cons { mc_send $w "qpopany $queues wait=100\r\n" }
            # One consumer hangs up while it waits (and is replaced).
            set gone [lindex $cons [expr {$round % 5}]]
            foreach q $queues { q_wait_waiters $fd $q 5 }
            mc_close $gone
            set cons [lreplace $cons [expr {$round % 5}] [expr {$round % 5}]]
            foreach q $queues { q_wait_waiters $fd $q 4 }
            # As many messages as waiting consumers, spread over the queues.
            set req {}
            for {set m 0} {$m < 4} {incr m} {
                set q [lindex $queues [expr {($round * 5 + $m) % 16}]]
                append req "qpush $q 0 0 [string length r$round.$m]\r\nr$round.$m\r\n"
                incr pushed
            }
            mc_send $fd $req
            for {set m 0} {$m < 4} {incr m} { mc_readline $fd }
            foreach w $cons {
                set items [q_parse [mc_exchange $w ""]]
                assert_equal [llength $items] 1
                lassign [lindex $items 0] id flags data n q
                lappend seen $data
                assert_equal [mc_exchange $w "qack $q $id:$n\r\n"] "ACKED\r\n"
            }
            set cons [linsert $cons [expr {$round % 5}] [mc_connect]]
        }
        foreach w $cons { mc_close $w }
        foreach q $queues { q_wait_waiters $fd $q 0 }
        set counts [lsort -unique [lmap q $queues { q_counts $fd $q }]]
        list $pushed [llength $seen] [llength [lsort -unique $seen]] $counts
    } {80 80 80 {{0 0 0}}}
}
