# Persistence of messages' ttls and of qcreate expired= (doc/protocol.md,
# "3. Queues", qpush ttl=; doc/persistence.md): a message's expiry is in
# the log record of its push, and in snapshots, as the Unix time it
# expires at, so a restart does not start its ttl again; an expiry is
# logged as the move to the dead-letter queue or as the drop it is, and
# replays as such. A message whose ttl ran out while the server was down
# expires right after the restart, on the queue's timer. Every server
# ends with a kill -9.

# pt_push fd queue data opts ?delay? -> the id of the push.
proc pt_push {fd q data opts {delay 0}} {
    set r [mc_exchange $fd "qpush $q 0 $delay [string length $data] $opts\r\n$data\r\n"]
    if {![regexp {^PUSHED (\d+)\r\n$} $r -> id]} { fail "qpush $q $opts: '[visible $r]'" }
    return $id
}

# pt_left fd queue id -> qinfo's ttl_ms_left of the message.
proc pt_left {fd q id} {
    dict get [q_stat_lines $fd "qinfo $q $id"] ttl_ms_left
}

# pt_data fd queue -> the data of the ready messages, in order.
proc pt_data {fd q} {
    return [lmap m [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $m 2 }]
}

foreach policy {always no} {
    set dir [tmpdir persist_qttl]
    with_data_dir $dir [list --fsync $policy] {
        test "ttl (--fsync $policy): pushes with ttls, a lease, then kill -9" {
            set fd [mc_connect]
            assert_equal [mc_exchange $fd "qcreate pt1\r\nqcreate pt2 expired=drop\r\nqcreate pt3\r\nqcreate pt4 expired=drop\r\n"] \
                [string repeat "CREATED\r\n" 4]
            set ::pt_a [pt_push $fd pt1 a ttl=100]
            set ::pt_b [pt_push $fd pt1 b ttl=100 100]
            set ::pt_c [q_push $fd pt1 c]
            set ::pt_d [pt_push $fd pt1 d "5 dedup=dd ttl=100"]
            assert_match {PUSHED * *} [mc_exchange $fd "qpushn pt1 0 0 1024 1 1 ttl=100\r\ne\r\nf\r\n"]
            set ::pt_g [pt_push $fd pt1 g "1 ttl=10"]
            assert_equal [lindex [q_pop $fd pt1 1 lease=1000] 0 0] $::pt_g
            set ::pt_h [pt_push $fd pt2 h ttl=100]
            set ::pt_s [pt_push $fd pt2 slow ttl=30]
            # These two run out while the server is down.
            set ::pt_x [pt_push $fd pt3 x ttl=0.3]
            set ::pt_y [pt_push $fd pt4 y ttl=0.3]
            # A FIFO group: its head and a message waiting behind it.
            set ::pt_g1 [pt_push $fd pt5 g1 "group=G ttl=100"]
            set ::pt_g2 [pt_push $fd pt5 g2 "group=G ttl=100"]
            list [pt_data $fd pt1] [pt_data $fd pt2] [q_stat $fd pt2 expired]
        } {{d a c e f} {h slow} drop}
    }
    after 1500
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "ttl (--fsync $policy): a message that expired while the server was down expires on the timer" {
            # `stats` reads the queues without catching them up: only the
            # timer can have moved these.
            wait_for {[mc_stat $fd queue_expired_ttl] == 2} 200 50
            list [pt_data $fd pt3] [pt_data $fd pt3:dead] [q_stat $fd pt3 dead] [pt_data $fd pt4] \
                [q_stat $fd pt4 dropped] [mc_exchange $fd "qstats pt4:dead\r\n"]
        } [list {} x 1 {} 1 "NOT_FOUND\r\n"]

        test "ttl (--fsync $policy): the expiry is absolute: the time the server was down counts" {
            # 30 s from the push, at least 1.5 s of which went by while it was down.
            set left [pt_left $fd pt2 $::pt_s]
            list [expr {$left > 0 && $left <= 28500}] [expr {[pt_left $fd pt1 $::pt_a] <= 98500}] \
                [pt_left $fd pt1 $::pt_c] [q_stat $fd pt2 expired] [q_stat $fd pt1 expired]
        } {1 1 -1 drop dead}

        test "ttl (--fsync $policy): ttls, the delay, the lease and the dedup id all came back" {
            set s [q_stat_lines $fd "qinfo pt1 $::pt_g"]
            set w [q_stat_lines $fd "qinfo pt5 $::pt_g2"]
            assert_equal [list [dict get $w state] [expr {[dict get $w ttl_ms_left] > 0}] [pt_data $fd pt5]] \
                {grouped 1 g1}
            list [pt_data $fd pt1] [dict get $s state] [expr {[dict get $s ttl_ms_left] <= 8500}] \
                [q_stat $fd pt1 delayed] [expr {[pt_left $fd pt1 $::pt_b] > 0}] \
                [expr {[mc_exchange $fd "qpush pt1 0 0 1 dedup=dd\r\nz\r\n"] eq "PUSHED $::pt_d\r\n"}]
        } {{d a c e f} in_flight 1 1 1 1}

        test "ttl (--fsync $policy): a snapshot holds them; expiries and pushes after it are logged" {
            assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
            # g is still leased: not expired, however long.
            assert_equal [mc_exchange $fd "debugtime 40\r\n"] "OK\r\n"
            assert_equal [q_stat $fd pt2 dropped] 1
            set ::pt_i [pt_push $fd pt1 i ttl=50]
            set ::pt_j [pt_push $fd pt2 j ttl=1000]
            list [pt_data $fd pt1] [pt_data $fd pt2] [q_stat $fd pt1 in_flight] [q_stat $fd pt1:dead ready]
        } {{d a c e f i} {h j} 1 {}} {debugtime}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "ttl (--fsync $policy): restored from the snapshot and the log, the drop replayed" {
            # b's delay (100 s) runs on the real clock.
            assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 4}
            list [pt_data $fd pt1] [pt_data $fd pt2] [q_stat $fd pt2 dropped] [q_stat $fd pt2 expired] \
                [expr {[pt_left $fd pt1 $::pt_i] > 0}] [expr {[pt_left $fd pt2 $::pt_j] > 0}] \
                [pt_left $fd pt1 $::pt_c] [q_stat $fd pt1 in_flight] [q_stat $fd pt1 delayed] \
                [expr {[pt_left $fd pt1 $::pt_b] > 0}]
        } {{d a c e f i} {h j} 1 drop 1 1 -1 1 1 1}

        test "ttl (--fsync $policy): they expire on time after the restart: dead letters and drops" {
            # The 100 s ttls were pushed on the first server's clock.
            assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
            list [pt_data $fd pt1] [lsort [pt_data $fd pt1:dead]] [pt_data $fd pt2] [q_stat $fd pt2 dropped] \
                [q_stat $fd pt1 in_flight] [pt_data $fd pt5] [pt_data $fd pt5:dead] [q_stat $fd pt5 groups]
        } {c {a b d e f i} j 2 1 {} {g1 g2} 0} {debugtime}

        test "ttl (--fsync $policy): the leased message, released past its ttl, expires; every message counted" {
            list [expr {[mc_exchange $fd "qrelease pt1 $::pt_g\r\nqpeek pt1 5\r\n"] eq \
                            "RELEASED\r\n[q_item $::pt_c 0 c 0]END\r\n"}] \
                [lsort [pt_data $fd pt1:dead]] [q_balanced $fd pt1] [q_balanced $fd pt2] \
                [q_balanced $fd pt3] [q_balanced $fd pt4] [q_balanced $fd pt5] [q_stat $fd pt1 pushed] \
                [q_stat $fd pt1 dead]
        } {1 {a b d e f g i} 1 1 1 1 1 8 7} {debugtime}
    }
}
