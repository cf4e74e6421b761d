# FIFO message groups (doc/protocol.md, "3. Queues", qpush and qpushn
# group=): the messages of one group are delivered in push order, one at a
# time: the next only once the one before it is acked, sent to the
# dead-letter queue or purged; different groups are served at once. Every
# test counts the messages: what goes in comes out, once, in its group's
# order. Time moves with debugtime only. Restarts are in
# t/integration/persist_queue_group.tcl. Helpers are in t/support/queue.tcl.

# g_push fd queue data group ?more? -> the id of "qpush ... group=<group>".
proc g_push {fd q data group {more {}}} {
    set r [mc_exchange $fd "qpush $q 0 0 [string length $data] $more group=$group\r\n$data\r\n"]
    if {![regexp {^PUSHED (\d+)\r\n$} $r -> id]} { fail "qpush group=$group answered '[visible $r]'" }
    return $id
}

# g_pushn fd queue group data... -> the reply of a qpushn of the blocks.
proc g_pushn {fd q group args} {
    set line "qpushn $q 0 0 1024"
    set blocks {}
    foreach d $args {
        append line " [string length $d]"
        append blocks "$d\r\n"
    }
    return [mc_exchange $fd "$line group=$group\r\n$blocks"]
}

# g_data items -> the data of parsed items.
proc g_data {items} {
    return [lmap m $items { lindex $m 2 }]
}

# g_ack fd queue items -> acks every parsed item (each answers ACKED).
proc g_ack {fd q items} {
    foreach m $items {
        assert_equal [mc_exchange $fd "qack $q [lindex $m 0]\r\n"] "ACKED\r\n"
    }
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {group=: one message of a group at a time, in push order; groups side by side} {
        foreach d {a1 a2 a3} { g_push $fd g1 $d A }
        foreach d {b1 b2} { g_push $fd g1 $d B }
        q_push $fd g1 free
        set seen {}
        set rounds {}
        while {[llength [set items [q_pop $fd g1 10]]]} {
            lappend rounds [g_data $items]
            g_ack $fd g1 $items
        }
        list $rounds [q_stat $fd g1 pushed] [q_stat $fd g1 acked] [q_stat $fd g1 grouped] \
            [q_stat $fd g1 groups]
    } {{{a1 b1 free} {a2 b2} a3} 6 6 0 0}

    test {qstats: grouped counts the waiting messages, groups the groups; ready only the heads} {
        foreach d {x1 x2 x3} { g_push $fd g2 $d X }
        g_push $fd g2 y1 Y
        set s [q_stats $fd g2]
        list [dict get $s ready] [dict get $s grouped] [dict get $s groups] \
            [expr {[mc_stat $fd queue_grouped] >= 2}] [expr {[mc_stat $fd queue_groups] >= 2}]
    } {2 2 2 1 1}

    test {qpeek shows the heads only; qinfo names the state and the group} {
        set ids [lmap m [q_pop $fd g2 10] { lindex $m 0 }]
        # x1 and y1 are in flight; x2 and x3 wait.
        set plain [q_push $fd g2 plain]
        set r [mc_exchange $fd "qpeek g2 10\r\n"]
        set info [q_stat_lines $fd "qinfo g2 [expr {[lindex $ids 0] + 1}]"]
        set head [q_stat_lines $fd "qinfo g2 [lindex $ids 0]"]
        set pinfo [q_stat_lines $fd "qinfo g2 $plain"]
        list [expr {$r eq "[q_item $plain 0 plain 0]END\r\n"}] [dict get $info state] [dict get $info group] \
            [dict get $head state] [dict get $head group] [dict exists $pinfo group] [dict get $pinfo state]
    } {1 grouped X in_flight X 0 ready}

    test {a release gives the head back: it comes again before the next of its group} {
        set a [g_push $fd g3 first R]
        set b [g_push $fd g3 second R]
        set got [q_pop $fd g3 5]
        assert_equal [mc_exchange $fd "qrelease g3 $a\r\n"] "RELEASED\r\n"
        set again [q_pop $fd g3 5]
        g_ack $fd g3 $again
        set next [q_pop $fd g3 5]
        g_ack $fd g3 $next
        list [g_data $got] [g_data $again] [lindex $again 0 3] [g_data $next] [q_stat $fd g3 groups]
    } {first first 2 second 0}

    test {a lease that runs out redelivers the head, still before the next} {
        set a [g_push $fd g4 first L]
        g_push $fd g4 second L
        set got [q_pop $fd g4 5 lease=1]
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set again [q_pop $fd g4 5]
        g_ack $fd g4 $again
        set next [q_pop $fd g4 5]
        g_ack $fd g4 $next
        list [g_data $got] [g_data $again] [g_data $next] [q_stat $fd g4 lease_expired]
    } {first first second 1} {debugtime}

    test {past maxdeliver the head goes to the dead-letter queue (without its group); the next is ready} {
        assert_equal [mc_exchange $fd "qcreate g5 maxdeliver=1 lease=1\r\n"] "CREATED\r\n"
        set a [g_push $fd g5 doomed D]
        set b [g_push $fd g5 after D]
        q_pop $fd g5 5
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set next [q_pop $fd g5 5]
        g_ack $fd g5 $next
        set dead [q_pop $fd g5:dead 5]
        set dinfo [q_stat_lines $fd "qinfo g5:dead $a"]
        g_ack $fd g5:dead $dead
        list [g_data $next] [expr {[lindex $next 0 0] == $b}] [g_data $dead] [expr {[lindex $dead 0 0] == $a}] \
            [dict exists $dinfo group] [q_stat $fd g5 dead] [q_stat $fd g5 groups]
    } {after 1 doomed 1 0 1 0} {debugtime}

    test {maxage: an aged head goes to the dead-letter queue and lets the next one through} {
        assert_equal [mc_exchange $fd "qcreate g6 maxage=10\r\n"] "CREATED\r\n"
        g_push $fd g6 old O
        assert_equal [mc_exchange $fd "debugtime 5\r\n"] "OK\r\n"
        g_push $fd g6 young O
        assert_equal [mc_exchange $fd "debugtime 6\r\n"] "OK\r\n"
        # "old" is 11 s old: dead; "young" (6 s) is ready now.
        set got [q_pop $fd g6 5]
        g_ack $fd g6 $got
        set dead [q_pop $fd g6:dead 5]
        g_ack $fd g6:dead $dead
        list [g_data $got] [g_data $dead] [q_stat $fd g6 expired_age] [q_stat $fd g6 grouped]
    } {young old 1 0} {debugtime}

    test {qpurge drops the waiting messages too; an in-flight head stays, and nothing follows it} {
        foreach d {p1 p2 p3} { g_push $fd g7 $d P }
        g_push $fd g7 q1 Q
        set inflight [q_pop $fd g7 1]
        set r [mc_exchange $fd "qpurge g7\r\n"]
        set s [q_stats $fd g7]
        g_ack $fd g7 $inflight
        list [g_data $inflight] $r [dict get $s in_flight] [dict get $s grouped] [dict get $s ready] \
            [q_pop $fd g7 5] [q_stat $fd g7 groups] [q_stat $fd g7 purged]
    } [list p1 "PURGED 3\r\n" 1 0 0 {} 0 3]

    test {qpushn group=: the batch waits in order behind the group's head} {
        set r [g_pushn $fd g8 N n1 n2 n3]
        assert_match {PUSHED * * *} $r
        set order {}
        while {[llength [set items [q_pop $fd g8 10]]]} {
            lappend order [g_data $items]
            g_ack $fd g8 $items
        }
        set order
    } {n1 n2 n3}

    test {qpushn group= with dedup=: a retried batch adds nothing, in either order of the options} {
        set r1 [mc_exchange $fd "qpushn g9 0 0 1024 1 1 group=G dedup=k\r\na\r\nb\r\n"]
        set r2 [mc_exchange $fd "qpushn g9 0 0 1024 1 1 dedup=k group=G\r\na\r\nb\r\n"]
        set r3 [mc_exchange $fd "qpush g9 0 0 1 dedup=one group=G\r\nc\r\nqpush g9 0 0 1 group=G dedup=one\r\nc\r\n"]
        set order {}
        while {[llength [set items [q_pop $fd g9 10]]]} {
            lappend order [g_data $items]
            g_ack $fd g9 $items
        }
        list [expr {$r1 eq $r2}] [llength [lsort -unique [regexp -all -inline {PUSHED \d+} $r3]]] $order \
            [q_stat $fd g9 pushed] [q_stat $fd g9 deduplicated]
    } {1 1 {a b c} 3 3}

    test {a priority orders a group's head among other messages, never a group's own order} {
        g_push $fd g10 late1 H 5000
        g_push $fd g10 late2 H 1
        q_push $fd g10 mid 0 0 100
        set first [q_pop $fd g10 5]
        g_ack $fd g10 $first
        set second [q_pop $fd g10 5]
        g_ack $fd g10 $second
        list [g_data $first] [g_data $second]
    } {{mid late1} late2}

    test {maxlen counts the waiting messages} {
        assert_equal [mc_exchange $fd "qcreate g11 maxlen=3\r\n"] "CREATED\r\n"
        foreach d {a b c} { g_push $fd g11 $d M }
        set r [mc_exchange $fd "qpush g11 0 0 1 group=M\r\nd\r\nqpushn g11 0 0 1024 1 group=Z\r\ne\r\n"]
        list $r [q_stat $fd g11 grouped]
    } [list "NOT_STORED\r\nNOT_STORED\r\n" 2]

    test {a waiting consumer gets a group's next message once the head is acked} {
        set a [g_push $fd g12 one W]
        g_push $fd g12 two W
        set got [q_pop $fd g12 5]
        set w [mc_connect]
        mc_send $w "qpop g12 wait=100\r\n"
        q_wait_waiters $fd g12 1
        mc_no_reply $w 100
        g_ack $fd g12 $got
        set r [q_parse [mc_exchange $w ""]]
        g_ack $fd g12 $r
        mc_close $w
        list [g_data $got] [g_data $r]
    } {one two}

    test {qpopany and qtake-like reads (Kestrel get) keep a group's order} {
        g_push $fd g13 k1 K
        g_push $fd g13 k2 K
        set r1 [mc_exchange $fd "get g13\r\n"]
        set r2 [mc_exchange $fd "get g13\r\n"]
        set r3 [mc_exchange $fd "get g13\r\n"]
        list $r1 $r2 $r3
    } [list "VALUE g13 0 2\r\nk1\r\nEND\r\n" "VALUE g13 0 2\r\nk2\r\nEND\r\n" "END\r\n"]

    test {bad group= values are refused and the data is never read as a command} {
        set long [string repeat x 129]
        set r [mc_exchange $fd [string cat \
            "qpush g14 0 0 9 group=\r\nflush_all\r\n" \
            "qpush g14 0 0 9 group=$long\r\nflush_all\r\n" \
            "qpush g14 0 0 9 group=a group=b\r\nflush_all\r\n" \
            "qpush g14 0 5 9 group=a\r\nflush_all\r\n" \
            "qpushn g14 0 0 0 9 group=\r\nflush_all\r\n" \
            "qpushn g14 0 0 0 9 group=a group=a\r\nflush_all\r\n" \
            "qpushn g14 0 7 0 9 group=a\r\nflush_all\r\n" \
            "qpush g14 0 0 9 grp=a\r\nflush_all\r\n"]]
        set ok [mc_exchange $fd "qpush g14 0 -1 1 group=a\r\nx\r\n"]
        list $r [string match "PUSHED *" $ok] [q_stat $fd g14 pushed] [mc_stat $fd cmd_flush]
    } [list [string cat \
        "CLIENT_ERROR bad value for group\r\n" \
        "CLIENT_ERROR bad value for group\r\n" \
        "CLIENT_ERROR bad value for group\r\n" \
        "CLIENT_ERROR a grouped message cannot be delayed\r\n" \
        "CLIENT_ERROR bad value for group\r\n" \
        "CLIENT_ERROR bad value for group\r\n" \
        "CLIENT_ERROR a grouped message cannot be delayed\r\n" \
        "CLIENT_ERROR unknown option grp\r\n"] 1 1 0]

    test {qpush with a priority, dedup=, group= and noreply (nine tokens) works; more tokens are refused} {
        set r [mc_exchange $fd [string cat \
            "qpush g19 0 0 1 7 dedup=d1 group=G noreply\r\na\r\n" \
            "qpush g19 0 0 1 7 group=G dedup=d2 noreply\r\nb\r\n" \
            "qpush g19 0 0 9 7 dedup=d3 group=G x y z\r\nflush_all\r\n" \
            "qpush g19 0 0 9 7 dedup=d3 group=G a b c d e f g h i j k l m n o p\r\nflush_all\r\n" \
            "qpush g19 0 0 9 7 dedup=d3 group=G x noreply\r\nflush_all\r\n"]]
        list $r [q_stat $fd g19 pushed] [q_stat $fd g19 grouped] [mc_stat $fd cmd_flush]
    } [list "CLIENT_ERROR too many tokens\r\nCLIENT_ERROR too many tokens\r\n" 2 1 0]

    test {group ids are bytes: 128 of them fit, and ids that only look alike are different groups} {
        set long [string repeat g 128]
        g_push $fd g15 l1 $long
        g_push $fd g15 l2 $long
        g_push $fd g15 a1 ab
        g_push $fd g15 b1 a
        set first [q_pop $fd g15 10]
        g_ack $fd g15 $first
        set second [q_pop $fd g15 10]
        g_ack $fd g15 $second
        list [lsort [g_data $first]] [g_data $second] [q_stat $fd g15 groups]
    } {{a1 b1 l1} l2 0}

    test {1,000 messages over 10 groups, consumers acking out of order: each once, in its group's order} {
        set pushed {}
        for {set i 0} {$i < 1000} {incr i} {
            set grp [expr {$i % 10}]
            set id [g_push $fd g16 "$grp:$i" G$grp]
            dict lappend pushed $grp "$grp:$i"
        }
        set seen [dict create]
        set nseen 0
        while {[llength [set items [q_pop $fd g16 7]]]} {
            # ack in reverse, release one now and then
            foreach m [lreverse $items] {
                if {[incr nseen] % 13 == 0} {
                    assert_equal [mc_exchange $fd "qrelease g16 [lindex $m 0]\r\n"] "RELEASED\r\n"
                    continue
                }
                set d [lindex $m 2]
                dict lappend seen [lindex [split $d :] 0] $d
                assert_equal [mc_exchange $fd "qack g16 [lindex $m 0]\r\n"] "ACKED\r\n"
            }
        }
        set ok 1
        for {set g 0} {$g < 10} {incr g} {
            if {[dict get $seen $g] ne [dict get $pushed $g]} { set ok 0 }
        }
        list $ok [q_stat $fd g16 acked] [q_stat $fd g16 grouped] [q_stat $fd g16 groups]
    } {1 1000 0 0}

    test {a queue of 300 groups deleted, or purged then deleted, gives back every byte it took} {
        # g18_round opt: 300 batches of 3 (into 300 groups with opt), a
        # delete; the same again with a head of a third of them in flight
        # through a purge; -> the bytes the server holds after each.
        proc g18_round {fd opt} {
            set b ""
            for {set g 0} {$g < 300} {incr g} {
                append b "qpushn g18 0 0 0 1 1 1 [string map [list @ $g] $opt] noreply\r\na\r\nb\r\nc\r\n"
            }
            set out {}
            foreach purge {0 1} {
                mc_exchange $fd $b
                if {$purge} {
                    q_pop $fd g18 100
                    mc_exchange $fd "qpurge g18\r\n"
                }
                assert_equal [mc_exchange $fd "delete g18\r\n"] "DELETED\r\n"
                wait_for {[mc_stat $fd queue_reclaiming] == 0}
                lappend out [mc_malloced $fd]
            }
            return $out
        }
        # The same rounds without groups first: what a queue leaves behind
        # in the server's own pools is there before the grouped rounds. A
        # purge frees messages on the worker, whose item cache keeps a few
        # for the next pushes: a plain round after the grouped ones finds
        # the server where the plain round before them left it.
        g18_round $fd {}
        set plain [g18_round $fd {}]
        set grouped [g18_round $fd group=grp@]
        g18_round $fd group=grp@
        set again [g18_round $fd {}]
        list [expr {[lindex $grouped 0] - [lindex $plain 0]}] [expr {[lindex $again 0] - [lindex $plain 0]}] \
            [expr {[lindex $again 1] - [lindex $plain 1]}]
    } {0 0 0}

    test {delete, flush_all and a fresh queue of the same name: the groups go with the queue} {
        foreach d {a b c} { g_push $fd g17 $d F }
        assert_equal [mc_exchange $fd "delete g17\r\n"] "DELETED\r\n"
        g_push $fd g17 new F
        list [g_data [q_pop $fd g17 5]] [q_stat $fd g17 grouped]
    } {new 0}
}
