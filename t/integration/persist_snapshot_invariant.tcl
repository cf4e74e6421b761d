# The snapshot invariant (doc/persistence.md, "Snapshots"): the snapshot
# taken at log position P, plus every record after P, replays to exactly
# the state the server had. debugsnappause holds a snapshot at the two
# moments that matter: after P is chosen and before the log is cut there
# (cut), and after the cut, before anything is copied (copy). Changes made
# meanwhile, keys deleted and re-created, then a kill -9: after the restart
# every key is as it was last acknowledged, with a TTL where one was
# given and none where the key was made again after it.
source [file join [srcdir] t support ctree.tcl]


# Every structure's key set used below, read back as one comparable value.
proc inv_state {fd} {
    set out {}
    foreach k {L0 L1 L2 L3} {
        lappend out $k [list [mc_exchange $fd "llen $k\r\n"] [l_all $fd $k]]
    }
    foreach q {Q0 Q1 Q2} {
        set r [mc_exchange $fd "qstats $q\r\n"]
        if {$r eq "NOT_FOUND\r\n"} {
            lappend out $q gone
        } else {
            set pending {}
            foreach p [q_pending $fd $q] { lappend pending [lrange $p 0 3] }
            lappend out $q [list [q_counts $fd $q] [mc_exchange $fd "qpeek $q 100\r\n"] $pending]
        }
    }
    foreach k {k0 k1 k2 k3} { lappend out $k [mc_exchange $fd "get $k\r\n"] }
    foreach o {r:a r:a:b r:c} { lappend out $o [mc_exchange $fd "ctvalues $o\r\n"] }
    # Whether each key has a TTL (the seconds left move with the clock).
    set ttls {}
    foreach kt [lsort -index 0 [k_all $fd count=10000]] {
        lassign $kt k type ttl
        lappend ttls $k $type [expr {$ttl == -1 ? "none" : "set"}]
    }
    lappend out ttls $ttls
    return $out
}

# The keys before the snapshot starts.
proc inv_setup {fd} {
    assert_equal [l_push $fd rpush L0 {a b c d e f}] "6\r\n"
    assert_equal [l_push $fd rpush L1 {one two}] "2\r\n"
    assert_equal [l_push $fd rpush L2 {p q r s}] "4\r\n"
    assert_equal [l_push $fd rpush L4 {t1}] "1\r\n"
    assert_equal [l_push $fd rpush L5 {t2}] "1\r\n"
    foreach q {Q0 Q1 Q2 Q3} {
        foreach m {m1 m2 m3} { q_push $fd $q $q.$m }
    }
    foreach k {k0 k1 k2} { mc_set $fd $k v.$k }
    mc_set $fd k3 10
    assert_equal [mc_exchange $fd "ctdef 7 104,107\r\n"] "CREATED\r\n"
    ct_make_tree $fd {r:a {} r:a:b r:a r:c {}}
    assert_equal [mc_exchange $fd "ctincr r:a:b 7 104 @[clock seconds] 5\r\nctincr r:c 7 104 @[clock seconds] 2\r\n"] \
        "STORED\r\nSTORED\r\n"
}

# Changes while the snapshot is held: every key changed, some deleted,
# some deleted and made again.
proc inv_changes {fd} {
    # L0: changed, then deleted (a push, an lset by position, a delete).
    assert_equal [l_push $fd rpush L0 {g}] "7\r\n"
    assert_equal [mc_exchange $fd [l_blocks "lset L0 5 1" x]] "STORED\r\n"
    assert_equal [mc_exchange $fd "delete L0\r\n"] "DELETED\r\n"
    # L1: deleted, then made again with other elements.
    assert_equal [mc_exchange $fd "delete L1\r\n"] "DELETED\r\n"
    assert_equal [l_push $fd lpush L1 {new}] "1\r\n"
    # L2: changed by position and by value.
    assert_equal [mc_exchange $fd [l_blocks "lset L2 1 2" QQ]] "STORED\r\n"
    assert_equal [mc_exchange $fd [l_blocks "linsert L2 before 1 1" r Z]] "5\r\n"
    assert_equal [mc_exchange $fd "ltrim L2 1 3\r\n"] "2\r\n"
    # L3: new.
    assert_equal [l_push $fd rpush L3 {n1 n2}] "2\r\n"
    # Q0: a push, a lease, an ack, then deleted.
    q_push $fd Q0 Q0.m4
    set it [lindex [q_pop $fd Q0 1 lease=600] 0]
    assert_equal [mc_exchange $fd "qack Q0 [lindex $it 0]:[lindex $it 3]\r\n"] "ACKED\r\n"
    assert_equal [mc_exchange $fd "delete Q0\r\n"] "DELETED\r\n"
    # Q1: deleted, then pushed to again (a new queue).
    assert_equal [mc_exchange $fd "delete Q1\r\n"] "DELETED\r\n"
    q_push $fd Q1 Q1.again
    # Q2: a lease kept, an ack, a push.
    set it [lindex [q_pop $fd Q2 1 lease=600] 0]
    set it [lindex [q_pop $fd Q2 1 lease=600] 0]
    assert_equal [mc_exchange $fd "qack Q2 [lindex $it 0]:[lindex $it 3]\r\n"] "ACKED\r\n"
    q_push $fd Q2 Q2.m4
    # TTLs: L4 and Q3 given one, deleted and made again (without one), L5
    # given one and kept.
    foreach k {L4 Q3 L5} { assert_equal [mc_exchange $fd "touch $k 3600\r\n"] "TOUCHED\r\n" }
    assert_equal [mc_exchange $fd "delete L4\r\ndelete Q3\r\n"] "DELETED\r\nDELETED\r\n"
    assert_equal [mc_exchange $fd "lcreate L4\r\nqcreate Q3\r\n"] "CREATED\r\nCREATED\r\n"
    # Cache values: appended then deleted; deleted then set; incremented.
    assert_equal [mc_exchange $fd "append k0 0 0 2\r\n+a\r\n"] "STORED\r\n"
    assert_equal [mc_exchange $fd "delete k0\r\n"] "DELETED\r\n"
    assert_equal [mc_exchange $fd "delete k1\r\n"] "DELETED\r\n"
    mc_set $fd k1 again
    assert_equal [mc_exchange $fd "incr k3 5\r\n"] "15\r\n"
    # Tree counters: an increment, a subtree deleted, then made again.
    assert_equal [mc_exchange $fd "ctincr r:a:b 7 104 @[clock seconds] 3\r\n"] "STORED\r\n"
    assert_equal [mc_exchange $fd "delete r:c\r\n"] "DELETED\r\n"
    assert_equal [mc_exchange $fd "ctobj r:c\r\nctincr r:c 7 104 @[clock seconds] 9\r\n"] "CREATED\r\nSTORED\r\n"
}

# One round: setup, the snapshot held at stage, the changes (on another
# connection while it is held), more changes after it, kill -9, restart.
foreach {stage policy} {copy always copy everysec copy no cut always cut everysec cut no} {
    set dir [tmpdir snapinv]
    set ::inv_before {}
    with_data_dir $dir [list --debug --persist-items --fsync $policy -t 2] {
        test "snapshot held before its $stage (--fsync $policy): keys changed, deleted and made again meanwhile" {
            set fd [mc_connect]
            set other [mc_connect]
            inv_setup $fd
            assert_equal [mc_exchange $fd "debugsnappause $stage 1500\r\nsnapshot\r\n"] "OK\r\nOK\r\n"
            inv_changes $other
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 300 20
            assert_equal [mc_stat $fd persist_snapshots] 1
            # After the snapshot: more acknowledged changes, in the log only.
            assert_equal [l_push $other rpush L3 {n3}] "3\r\n"
            q_push $other Q2 Q2.after
            mc_set $other k2 after
            set ::inv_before [inv_state $fd]
            lindex $::inv_before 1 0
        } "NOT_FOUND\r\n"
    }
    with_data_dir $dir [list --debug --persist-items --fsync $policy -t 2] {
        test "snapshot held before its $stage (--fsync $policy): after kill -9 the server starts with every key as acknowledged" {
            set fd [mc_connect]
            set now [inv_state $fd]
            foreach {k v} $now {k0 v0} $::inv_before {
                if {$v ne $v0} { fail "$k after the restart:\n[visible $v]\nbefore the kill:\n[visible $v0]" }
            }
            list [l_all $fd L1] [l_all $fd L3] [mc_get $fd k2]
        } [list new {n1 n2 n3} after]
    }
}
