# Persistence of qredrive and qkick (doc/persistence.md): with --data-dir a
# dead letter's source queue, a redrive and a kick are in the log before
# their reply goes out, so after kill -9 and a restart every message is
# where it was, and a dead letter restored from the log or from a snapshot
# still goes home on a redrive. Helpers are in t/support/queue.tcl.

# Runs body on a server over dir, then kills it with SIGKILL.
proc pm_server {dir body} {
    uplevel 1 [list start_server [list tags {persist queue mcds-only} args [list --data-dir $dir]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

# pm_ids fd queue -> the ids of the ready messages (up to 100), in order.
proc pm_ids {fd q} {
    return [lmap m [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $m 0 }]
}

# pm_dead fd queue n dlq -> the ids of n messages pushed on a new queue
# and moved to dead-letter queue dlq by age (times long, moved by
# debugtime, so that nothing ages by itself in a slow run).
proc pm_dead {fd q n dlq} {
    assert_equal [mc_exchange $fd "qcreate $q maxage=1000 dlq=$dlq\r\n"] "CREATED\r\n"
    set ids {}
    for {set i 0} {$i < $n} {incr i} { lappend ids [q_push $fd $q $q-$i] }
    assert_equal [mc_exchange $fd "debugtime 1001\r\n"] "OK\r\n"
    return $ids
}

# pm_buried fd queue n -> the ids of n messages buried in a new queue whose
# dead-letter queue (<queue>.dlq) is full.
proc pm_buried {fd q n} {
    assert_equal [mc_exchange $fd "qcreate $q.dlq maxlen=1\r\nqcreate $q maxdeliver=1 lease=100 dlq=$q.dlq\r\n"] \
        "CREATED\r\nCREATED\r\n"
    q_push $fd $q.dlq filler
    set ids {}
    for {set i 0} {$i < $n} {incr i} { lappend ids [q_push $fd $q $q-$i] }
    assert_equal [llength [q_pop $fd $q 100]] $n
    assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
    return $ids
}

set d1 [tmpdir persist_qmove]

pm_server $d1 {
    set fd [mc_connect]
    test {queue moves persistence: dead letters, a redrive and a kick before a kill -9} {
        set ::pm_a [pm_dead $fd pa 3 pdlq]
        set ::pm_b [pm_dead $fd pb 2 pdlq]
        assert_equal [pm_ids $fd pdlq] [concat $::pm_a $::pm_b]
        set ::pm_k [pm_buried $fd kq 3]
        assert_equal [mc_exchange $fd "qredrive pdlq 1\r\n"] "REDRIVEN 1 0\r\n"
        assert_equal [mc_exchange $fd "qkick kq 2\r\n"] "KICKED 2\r\n"
        list [expr {[pm_ids $fd pa] eq [lindex $::pm_a 0]}] \
            [expr {[pm_ids $fd kq] eq [lrange $::pm_k 0 1]}] [q_stat $fd kq buried]
    } {1 1 1} {debugtime}

    test {queue moves persistence: a qpushn batch before a kill -9} {
        set r [mc_exchange $fd "qpushn pn 7 0 9 1 2 0\r\na\r\nbb\r\n\r\n"]
        regexp {^PUSHED (\d+) (\d+) (\d+)\r\n$} $r -> a b c
        set ::pm_n [string cat [q_item $a 7 a 0] [q_item $b 7 bb 0] [q_item $c 7 {} 0] END\r\n]
        expr {[mc_exchange $fd "qpeek pn 5\r\n"] eq $::pm_n}
    } 1

    test {queue moves persistence: pushed counts dead letters and redriven messages where they arrive} {
        set ::pm_pushed [list [q_stat $fd pdlq pushed] [q_stat $fd pa pushed]]
    } {5 4}
}

pm_server $d1 {
    set fd [mc_connect]
    test {queue moves persistence: after the restart, pushed counts are as they were (replay counts a dead letter too)} {
        list [q_stat $fd pdlq pushed] [q_stat $fd pa pushed]
    } $::pm_pushed

    test {queue moves persistence: the qpushn batch is back after the restart} {
        expr {[mc_exchange $fd "qpeek pn 5\r\n"] eq $::pm_n}
    } 1

    test {queue moves persistence: after the restart every message is where it was} {
        list [expr {[pm_ids $fd pa] eq [lindex $::pm_a 0]}] \
            [expr {[pm_ids $fd pdlq] eq [concat [lrange $::pm_a 1 end] $::pm_b]}] \
            [expr {[pm_ids $fd kq] eq [lrange $::pm_k 0 1]}] [q_stat $fd kq buried]
    } {1 1 1 1}

    test {queue moves persistence: dead letters restored from the log still go home} {
        assert_equal [mc_exchange $fd "qredrive pdlq\r\n"] "REDRIVEN 4 0\r\n"
        list [expr {[pm_ids $fd pa] eq $::pm_a}] [expr {[pm_ids $fd pb] eq $::pm_b}] \
            [q_stat $fd pdlq ready]
    } {1 1 0}

    test {queue moves persistence: a kicked message restored from the log delivers as new} {
        set m [lindex [q_pop $fd kq 1] 0]
        list [expr {[lindex $m 0] eq [lindex $::pm_k 0]}] [lindex $m 3]
    } {1 1}
}

set d2 [tmpdir persist_qmove_snap]

pm_server $d2 {
    set fd [mc_connect]
    test {queue moves snapshot: dead letters in a snapshot, more after it} {
        set ::pm_c [pm_dead $fd sc 3 sdlq]
        q_push $fd sdlq direct
        assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
        set ::pm_d [pm_dead $fd sd 2 sdlq]
        assert_equal [mc_exchange $fd "qredrive sdlq 1\r\n"] "REDRIVEN 1 0\r\n"
        q_stat $fd sdlq ready
    } 5 {debugtime}
}

pm_server $d2 {
    set fd [mc_connect]
    test {queue moves snapshot: after the restart, dead letters from the snapshot and the log go home} {
        assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 2}
        assert_equal [mc_exchange $fd "qredrive sdlq\r\n"] "REDRIVEN 4 1\r\n"
        list [expr {[pm_ids $fd sc] eq $::pm_c}] [expr {[pm_ids $fd sd] eq $::pm_d}] \
            [llength [pm_ids $fd sdlq]]
    } {1 1 1}
}

# A dead letter is out of every heap of its queue while it travels to its
# dead-letter queue. A snapshot taken just then does not hold it; if the
# dead-letter queue then refuses it, it is buried back in its queue, and
# that must be in the log whole, or a restart loses it. debugdeadpause
# holds it on its way while another connection takes the snapshot.
set d3 [tmpdir persist_deadsnap]

pm_server $d3 {
    set a [mc_connect]
    set b [mc_connect]
    test {a dead letter buried back while a snapshot was written: before a kill -9} {
        assert_equal [mc_exchange $a "qcreate sd.dlq maxlen=1\r\nqcreate sd maxdeliver=1 lease=100 dlq=sd.dlq\r\n"] \
            "CREATED\r\nCREATED\r\n"
        q_push $a sd.dlq filler
        set ::pm_sd [q_push $a sd travelling]
        assert_equal [llength [q_pop $a sd 1]] 1
        assert_equal [mc_exchange $a "debugdeadpause 3000\r\n"] "OK\r\n"
        mc_send $a "debugtime 101\r\n"
        # the lease ran out: the message left its queue and waits on its way
        wait_for {[q_stat $b sd in_flight] == 0} 100 20
        assert_equal [q_stat $b sd buried] 0
        assert_equal [mc_exchange $b "snapshot\r\n"] "OK\r\n"
        wait_for {[mc_stat $b persist_snapshot_in_progress] == 0} 100 20
        assert_equal [mc_readline $a] OK
        # buried, offered to the full dead-letter queue again every second
        # (and out of every heap while it is): wait to see it buried
        wait_for {[q_stat $b sd buried] == 1} 100 20
        q_stat $b sd.dlq ready
    } 1 {debugtime}
}

pm_server $d3 {
    set fd [mc_connect]
    test {a dead letter buried back while a snapshot was written: after the restart it is there} {
        # make room in the dead-letter queue: the buried message goes there
        # at its next offer (about a second)
        set filler [lindex [q_pop $fd sd.dlq 1] 0]
        assert_equal [mc_exchange $fd "qack sd.dlq [lindex $filler 0]\r\n"] "ACKED\r\n"
        wait_for {[q_stat $fd sd.dlq ready] == 1} 100 50
        set m [lindex [q_pop $fd sd.dlq 1] 0]
        list [expr {[lindex $m 0] == $::pm_sd}] [q_stat $fd sd buried]
    } {1 0}
}
