# Persistence of a queue's pause (doc/protocol.md, "3. Queues", qpause;
# doc/persistence.md): the pause is logged (record Q_PAUSE, the Unix time
# it ends) and held in snapshots, so after a kill -9 and a restart the
# queue is paused until the same time; a resume is logged too, and a
# pause that ended while the server was down is over at the restart.

foreach policy {always no} {
    set dir [tmpdir persist_qpause]
    with_data_dir $dir [list --fsync $policy] {
        test "qpause (--fsync $policy): pauses and a resume, then kill -9" {
            set fd [mc_connect]
            foreach q {ps1 ps2 ps3} { q_push $fd $q $q }
            set r [mc_exchange $fd "qpause ps1 1000\r\nqpause ps2 1000\r\nqpause ps2 0\r\nqpause ps3 0.3\r\n"]
            after 400 ;# ps3's pause ends before the restart
            set r
        } [string repeat "PAUSED\r\n" 4]
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "qpause (--fsync $policy): after the restart the paused queue is still paused, the others not" {
            list [expr {[q_stat $fd ps1 paused_ms_left] > 900000}] [mc_exchange $fd "qpop ps1\r\n"] \
                [q_stat $fd ps2 paused_ms_left] [llength [q_pop $fd ps2]] \
                [q_stat $fd ps3 paused_ms_left] [llength [q_pop $fd ps3]]
        } [list 1 "END\r\n" 0 1 0 1]

        test "qpause (--fsync $policy): a pause in a snapshot, then kill -9" {
            assert_equal [mc_exchange $fd "qpause ps2 2000\r\nsnapshot\r\n"] "PAUSED\r\nOK\r\n"
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
            assert_equal [mc_exchange $fd "qpause ps1 0\r\n"] "PAUSED\r\n"
            list [q_stat $fd ps1 paused_ms_left] [expr {[q_stat $fd ps2 paused_ms_left] > 1900000}]
        } {0 1}
    }
    with_data_dir $dir [list --fsync $policy] {
        set fd [mc_connect]
        test "qpause (--fsync $policy): the snapshot's pause and the log's resume after it" {
            assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 2}
            list [q_stat $fd ps1 paused_ms_left] [llength [q_pop $fd ps1]] \
                [expr {[q_stat $fd ps2 paused_ms_left] > 1900000}] [mc_exchange $fd "qpop ps2\r\n"]
        } [list 0 1 1 "END\r\n"]

        test "qpause (--fsync $policy): a restored pause ends on time and serves a waiter" {
            set w [mc_connect]
            q_push $fd ps2 more
            mc_send $w "qpop ps2 wait=100\r\n"
            q_wait_waiters $fd ps2 1
            assert_equal [mc_exchange $fd "debugtime 2001\r\n"] "OK\r\n"
            list [lindex [lindex [q_parse [mc_exchange $w ""]] 0] 2] [q_stat $fd ps2 paused_ms_left]
        } {ps2 0} {debugtime}
    }
}
