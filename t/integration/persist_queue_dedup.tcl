# Persistence of deduplication ids (doc/protocol.md, "3. Queues", qpush
# dedup=; doc/persistence.md): an id is in the log record of the push
# itself, and in snapshots, with the Unix time it expires at. After a
# kill -9 and a restart a retried push still answers the first push's ids
# and adds nothing, until the id expires on time (debugtime moves it);
# an id that expired while the server was down is not restored.

# pd_ready fd queue -> the data of the ready messages, in order.
proc pd_ready {fd q} {
    return [lmap m [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $m 2 }]
}

# pd_retry fd -> the replies of the same pushes, retried.
proc pd_retry {fd} {
    return [mc_exchange $fd [string cat \
        "qpush pd1 0 0 5 dedup=one\r\nretry\r\n" \
        "qpushn pd1 0 0 1024 1 2 3 dedup=batch\r\nA\r\nBB\r\nCCC\r\n" \
        "qpush pd2 0 0 5 dedup=short\r\nretry\r\n"]]
}

foreach policy {always no} {
    set dir [tmpdir persist_qdedup]
    with_data_dir $dir [list --fsync $policy] {
        test "dedup ids (--fsync $policy): pushes with ids, then kill -9" {
            set fd [mc_connect]
            assert_equal [mc_exchange $fd "qcreate pd1 dedup=1000\r\nqcreate pd2 dedup=100\r\n"] \
                "CREATED\r\nCREATED\r\n"
            set ::pd_first [mc_exchange $fd [string cat \
                "qpush pd1 0 0 5 dedup=one\r\nfirst\r\n" \
                "qpushn pd1 0 0 1024 1 2 3 dedup=batch\r\na\r\nbb\r\nccc\r\n" \
                "qpush pd2 0 0 5 dedup=short\r\nfirst\r\n"]]
            list [expr {[pd_retry $fd] eq $::pd_first}] [pd_ready $fd pd1] [q_stat $fd pd1 dedup_entries]
        } {1 {first a bb ccc} 4}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "dedup ids (--fsync $policy): after the restart a retry answers the first ids, adds nothing" {
            list [expr {[pd_retry $fd] eq $::pd_first}] [pd_ready $fd pd1] [pd_ready $fd pd2] \
                [q_stat $fd pd1 dedup_window_ms] [q_stat $fd pd1 dedup_entries] [q_stat $fd pd2 dedup_entries]
        } {1 {first a bb ccc} first 1000000 4 1}

        test "dedup ids (--fsync $policy): a snapshot holds them; more pushes after it" {
            assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
            set ::pd_after [mc_exchange $fd "qpush pd1 0 0 5 dedup=after\r\nafter\r\n"]
            assert_equal [mc_exchange $fd "debugtime 50\r\n"] "OK\r\n"
            set ::pd_late [mc_exchange $fd "qpush pd2 0 0 4 dedup=late\r\nlate\r\n"]
            list [pd_ready $fd pd1] [pd_ready $fd pd2]
        } {{first a bb ccc after} {first late}} {debugtime}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "dedup ids (--fsync $policy): restored from the snapshot and the log" {
            assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 4}
            # An id whose window ends before the next restart.
            assert_equal [mc_exchange $fd "qcreate pd3 dedup=0.3\r\n"] "CREATED\r\n"
            set ::pd_brief [mc_exchange $fd "qpush pd3 0 0 5 dedup=brief\r\nbrief\r\n"]
            after 500
            list [expr {[pd_retry $fd] eq $::pd_first}] \
                [expr {[mc_exchange $fd "qpush pd1 0 0 1 dedup=after\r\nx\r\n"] eq $::pd_after}] \
                [expr {[mc_exchange $fd "qpush pd2 0 0 1 dedup=late\r\nx\r\n"] eq $::pd_late}] \
                [pd_ready $fd pd1] [pd_ready $fd pd2]
        } {1 1 1 {first a bb ccc after} {first late}}

        test "dedup ids (--fsync $policy): they expire on time after the restart" {
            # pd2's window is 100 s: "short" was pushed on the wall clock of
            # the first server, "late" 50 s of debugtime later.
            assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
            set ::pd_again [mc_exchange $fd "qpush pd2 0 0 5 dedup=short\r\nagain\r\n"]
            set late [mc_exchange $fd "qpush pd2 0 0 1 dedup=late\r\nx\r\n"]
            list [expr {$::pd_again ne "[lindex [split $::pd_first \n] 2]\n"}] [expr {$late eq $::pd_late}] \
                [pd_ready $fd pd2] [q_stat $fd pd2 dedup_entries]
        } {1 1 {first late again} 2} {debugtime}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "dedup ids (--fsync $policy): an id whose window ended while the server was down is new" {
            set r [mc_exchange $fd "qpush pd3 0 0 5 dedup=brief\r\nagain\r\n"]
            list [expr {$r ne $::pd_brief}] [pd_ready $fd pd3] [q_stat $fd pd1 dedup_entries] \
                [q_stat $fd pd2 dedup_entries] \
                [expr {[mc_exchange $fd "qpush pd2 0 0 1 dedup=short\r\nx\r\n"] eq $::pd_again}]
        } {1 {brief again} 5 2 1}
    }
}
