# Persistence of FIFO message groups (doc/protocol.md, "3. Queues", qpush
# group=; doc/persistence.md): a grouped push's log record names its group
# and whether the message waits behind the group's head; a head leaving
# logs the next one becoming ready; snapshots hold every group's head and
# waiting messages in order. After kill -9 and a restart each group still
# hands out one message at a time, in push order, and every message is
# there once (counted).

# pg_drain fd queue -> the data of every message still to come, in rounds
# of pops (each round acked before the next).
proc pg_drain {fd q} {
    set rounds {}
    while {[llength [set items [q_pop $fd $q 100]]]} {
        lappend rounds [lsort [lmap m $items { lindex $m 2 }]]
        foreach m $items {
            assert_equal [mc_exchange $fd "qack $q [lindex $m 0]\r\n"] "ACKED\r\n"
        }
    }
    return $rounds
}

# pg_push fd queue group data... : pushes each block into the group.
proc pg_push {fd q group args} {
    foreach d $args {
        set r [mc_exchange $fd "qpush $q 0 0 [string length $d] group=$group\r\n$d\r\n"]
        if {![string match "PUSHED *" $r]} { fail "qpush group=$group: '[visible $r]'" }
    }
}

foreach policy {always no} {
    set dir [tmpdir persist_qgroup]
    with_data_dir $dir [list --fsync $policy] {
        test "groups (--fsync $policy): pushes, a head in flight, a head acked, then kill -9" {
            set fd [mc_connect]
            pg_push $fd pg1 A a1 a2 a3 a4
            pg_push $fd pg1 B b1 b2
            assert_match {PUSHED * *} [mc_exchange $fd "qpushn pg1 0 0 1024 2 2 group=C\r\nc1\r\nc2\r\n"]
            set got [q_pop $fd pg1 3]
            # a1 stays in flight; b1 and c1 are acked, so b2 and c2 are the heads now.
            set ::pg_a1 [lindex $got 0 0]
            foreach m [lrange $got 1 end] {
                assert_equal [mc_exchange $fd "qack pg1 [lindex $m 0]\r\n"] "ACKED\r\n"
            }
            set s [q_stats $fd pg1]
            list [lmap m $got { lindex $m 2 }] [dict get $s ready] [dict get $s in_flight] \
                [dict get $s grouped] [dict get $s groups]
        } {{a1 b1 c1} 2 1 3 3}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "groups (--fsync $policy): after the restart the heads are the same, the rest still wait" {
            set s [q_stats $fd pg1]
            set info [q_stat_lines $fd "qinfo pg1 [expr {$::pg_a1 + 1}]"]
            list [dict get $s ready] [dict get $s in_flight] [dict get $s grouped] [dict get $s groups] \
                [dict get $info state] [dict get $info group] \
                [lsort [lmap m [q_pop $fd pg1 10] { lindex $m 2 }]]
        } {2 1 3 3 grouped A {b2 c2}}

        test "groups (--fsync $policy): a snapshot holds heads and waiting messages; more changes after it" {
            assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
            # b2 and c2 (in flight since the last test) are acked: B and C are done.
            foreach id [lmap m [q_pending $fd pg1] { lindex $m 0 }] {
                if {$id != $::pg_a1} {
                    assert_equal [mc_exchange $fd "qack pg1 $id\r\n"] "ACKED\r\n"
                }
            }
            assert_equal [mc_exchange $fd "qack pg1 $::pg_a1\r\n"] "ACKED\r\n"
            pg_push $fd pg1 D d1 d2
            set s [q_stats $fd pg1]
            list [dict get $s ready] [dict get $s grouped] [dict get $s groups] [dict get $s acked]
        } {2 3 2 5}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "groups (--fsync $policy): restored from the snapshot and the log, every message once, in order" {
            assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 4}
            list [pg_drain $fd pg1] [q_stat $fd pg1 pushed] [q_stat $fd pg1 acked] [q_stat $fd pg1 groups]
        } {{{a2 d1} {a3 d2} a4} 10 10 0}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "groups (--fsync $policy): after draining, a restart brings nothing back" {
            list [q_stat $fd pg1 ready] [q_stat $fd pg1 grouped] [q_stat $fd pg1 groups] [q_pop $fd pg1 10]
        } {0 0 0 {}}

        test "groups (--fsync $policy): a purge with waiting messages survives a restart" {
            pg_push $fd pg2 P p1 p2 p3
            set inflight [q_pop $fd pg2 1]
            assert_equal [mc_exchange $fd "qpurge pg2\r\n"] "PURGED 2\r\n"
            set ::pg_p1 [lindex $inflight 0 0]
            q_stats $fd pg2
        } [dict create ready 0 delayed 0 in_flight 1 buried 0 waiters 0 pushed 3 popped 1 acked 0 released 0 \
               lease_expired 0 dead 0 purged 2 age_oldest_ready 0 lease_ms 30000 max_deliveries 0 max_length 0 \
               dlq pg2:dead max_age_ms 0 expired_age 0 redriven 0 kicked 0 dedup_window_ms 300000 \
               dedup_entries 0 deduplicated 0 paused_ms_left 0 grouped 0 groups 1 expired dead expired_ttl 0 dropped 0]
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "groups (--fsync $policy): the purged messages stay gone; the in-flight head acks and ends its group" {
            set s [q_stats $fd pg2]
            assert_equal [mc_exchange $fd "qack pg2 $::pg_p1\r\n"] "ACKED\r\n"
            list [dict get $s in_flight] [dict get $s grouped] [dict get $s groups] [q_pop $fd pg2 10] \
                [q_stat $fd pg2 groups]
        } {1 0 1 {} 0}
    }
}
