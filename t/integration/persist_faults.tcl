# Faults (doc/persistence.md, "When a file call fails", "A record that
# does not apply", "Checking a data directory"): every file call
# persistence makes can be made to fail (debugfault); each failure is
# answered with an error or a retried write, a reply waits at most
# --log-stall-timeout, and after a kill -9 nothing acknowledged is lost.
# A record that does not apply quarantines its key and never stops a
# start-up (unless --strict-replay); --check-data-dir reports both.

# The hex payload of a list record: the key, then a u64 and a u32
# length and the value (L_SET, operation 6, at a position past the end).
proc fault_lset_hex {key pos value} {
    binary scan [binary format "c a* w i a*" [string length $key] $key $pos [string length $value] $value] H* hex
    return $hex
}

# ---- a record that does not apply ----
set dir [tmpdir quarantine]
with_data_dir $dir {--debug} {
    test {a record that does not apply: written as a writer with a bug would, among good ones} {
        set fd [mc_connect]
        l_push $fd rpush QL {a b c}
        l_push $fd rpush OK {x}
        assert_equal [mc_exchange $fd "debugrecord 4 6 [fault_lset_hex QL 10 z]\r\n"] "OK\r\n"
        list [l_push $fd rpush QL {d}] [l_push $fd rpush OK {y}]
    } [list "4\r\n" "2\r\n"]
}
test {--check-data-dir: the record that does not apply is reported, exit status 1} {
    lassign [run_server_cmd --check-data-dir $dir] status out
    list $status [regexp {for key 'QL' does not apply} $out] [regexp {records: \d+ read, 2 not applied, 1 key\(s\) quarantined} $out] \
        [regexp {keyspace after the replay: 0 queues, 2 lists} $out] [regexp {result: PROBLEMS} $out]
} {1 1 1 1 1}
test {--strict-replay: the record that does not apply stops the start-up, naming its key} {
    lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir $dir --strict-replay] status out
    list $status [regexp {the list record \(operation 6\) at offset \d+ \(log position \d+\) for key 'QL' does not apply; --strict-replay: start-up stopped} $out]
} {1 1}
with_data_dir $dir {} {
    test {a record that does not apply: the server starts; its key stays as replayed so far, every other key is whole} {
        set fd [mc_connect]
        list [l_all $fd QL] [l_all $fd OK] [mc_stat $fd persist_replay_skipped] [mc_stat $fd persist_replay_quarantined]
    } {{a b c} {x y} 2 1}
    test {a record that does not apply: the start-up wrote a snapshot of what it replayed, and the old log is gone} {
        list [llength [glob -nocomplain -directory $dir snap.*]] [llength [glob -nocomplain -directory $dir log.*]]
    } {1 1}
}
with_data_dir $dir {} {
    test {a record that does not apply: the next start-up is clean and holds the same} {
        set fd [mc_connect]
        list [l_all $fd QL] [l_all $fd OK] [mc_stat $fd persist_replay_skipped]
    } {{a b c} {x y} 0}
}
test {--check-data-dir: a sound directory, exit status 0} {
    lassign [run_server_cmd --check-data-dir $dir] status out
    list $status [regexp {snap\.[0-9a-f]{16}: \d+ bytes, \d+ entries, sound} $out] [regexp {result: sound} $out]
} {0 1 1}

# ---- debugfault: bad arguments ----
start_server {tags {persist mcds-only} args {--debug}} {
    test {debugfault: a bad operation, error, count, or short for anything but a log write is refused} {
        set fd [mc_connect]
        mc_exchange $fd [string cat "debugfault read EIO\r\ndebugfault write EBADF\r\ndebugfault write EIO x\r\n" \
                             "debugfault fsync short\r\ndebugfault write\r\ndebugfault write EIO 0 1\r\ndebugfault clear\r\n"]
    } [string cat [string repeat "CLIENT_ERROR bad command line format\r\n" 5] "OK\r\nOK\r\n"]
}

# One acknowledged push with a write fault armed for the next n writes.
proc fault_push_through {fd q data} {
    return [mc_exchange $fd "qpush $q 0 0 [string length $data]\r\n$data\r\n"]
}

# ---- a failed write: the change waits, later ones are refused, the write is retried ----
foreach policy {always everysec no} {
    set dir [tmpdir wfault]
    with_data_dir $dir [list --debug --fsync $policy] {
        test "write fails (ENOSPC), --fsync $policy: the change made waits for its reply, the next is refused, the retry sends it" {
            set fd [mc_connect]
            set other [mc_connect]
            q_push $fd WQ before
            assert_equal [mc_exchange $other "debugfault write ENOSPC\r\n"] "OK\r\n"
            mc_send $fd "qpush WQ 0 0 4\r\nheld\r\n"
            wait_for {[mc_stat $other persist_write_error] == 1} 100 20
            set refused [fault_push_through $other WQ nope]
            set waiting [mc_stat $other persist_replies_waiting]
            assert_equal [mc_exchange $other "debugfault clear\r\n"] "OK\r\n"
            # the sync thread retries within a second: the reply goes out
            set r [mc_readline $fd]
            wait_for {[mc_stat $other persist_write_error] == 0} 100 50
            list $refused $waiting [regexp {^PUSHED \d+$} $r] [q_stat $other WQ ready]
        } [list "SERVER_ERROR log write failed, nothing changed\r\n" 1 1 2]
    }
    with_data_dir $dir [list --debug --fsync $policy] {
        test "write fails (ENOSPC), --fsync $policy: after kill -9 both acknowledged pushes are back, the refused one is not" {
            set fd [mc_connect]
            lmap it [q_pop $fd WQ 10] { lindex $it 2 }
        } {before held}
    }
}

# ---- short writes: retried at once ----
set dir [tmpdir shortw]
with_data_dir $dir {--debug --fsync everysec} {
    test {short writes (the next 20): every push is answered, none is refused} {
        set fd [mc_connect]
        assert_equal [mc_exchange $fd "debugfault write short 0 20\r\n"] "OK\r\n"
        set n 0
        for {set i 0} {$i < 30} {incr i} { q_push $fd SQ s$i; incr n }
        list $n [mc_stat $fd persist_write_error] [expr {[mc_stat $fd persist_faults_injected] >= 20}]
    } {30 0 1}
}
with_data_dir $dir {--debug --fsync everysec} {
    test {short writes: after kill -9 the 30 pushes are back, in order} {
        set fd [mc_connect]
        set got [lmap it [q_pop $fd SQ 100] { lindex $it 2 }]
        list [llength $got] [lindex $got 0] [lindex $got end] [mc_stat $fd persist_recovery_damaged_bytes]
    } {30 s0 s29 0}
}

# ---- a failed fsync under always: the reply never claims it; the stall timeout closes ----
set dir [tmpdir fsyncfault]
with_data_dir $dir {--debug --fsync always --log-stall-timeout 2} {
    test {fsync fails (EIO), --fsync always: the reply waits, then SERVER_ERROR log write stalled and the close} {
        set fd [mc_connect]
        set other [mc_connect]
        q_push $fd FQ before
        assert_equal [mc_exchange $other "debugfault fsync EIO 0 1\r\n"] "OK\r\n"
        mc_send $fd "qpush FQ 0 0 4\r\nheld\r\n"
        set r [mc_readline $fd]
        list $r [mc_is_closed $fd] [mc_stat $other persist_log_broken] [mc_stat $other persist_stalled_closes]
    } {{SERVER_ERROR log write stalled, changes not confirmed} 1 1 1}
    test {fsync failed: the log takes no more changes until a restart; reads go on} {
        set fd [mc_connect]
        list [fault_push_through $fd FQ late] [q_stat $fd FQ ready]
    } [list "SERVER_ERROR log write failed, nothing changed\r\n" 2]
}
with_data_dir $dir {--debug --fsync always} {
    test {fsync failed: after kill -9 the acknowledged push is back; the unconfirmed one was written and is there too} {
        set fd [mc_connect]
        lmap it [q_pop $fd FQ 10] { lindex $it 2 }
    } {before held}
}

# ---- a reply held longer than --log-stall-timeout under everysec ----
set dir [tmpdir stall]
with_data_dir $dir {--debug --fsync everysec --log-stall-timeout 2} {
    test {write fails for longer than --log-stall-timeout: SERVER_ERROR, the close, the change kept and logged later} {
        set fd [mc_connect]
        set other [mc_connect]
        assert_equal [mc_exchange $other "debugfault write EIO\r\n"] "OK\r\n"
        mc_send $fd "qpush TQ 0 0 4\r\nslow\r\n"
        set r [mc_readline $fd]
        set closed [mc_is_closed $fd]
        assert_equal [mc_exchange $other "debugfault clear\r\n"] "OK\r\n"
        wait_for {[mc_stat $other persist_write_error] == 0} 100 50
        list $r $closed [q_stat $other TQ ready]
    } {{SERVER_ERROR log write stalled, changes not confirmed} 1 1}
}
with_data_dir $dir {--debug --fsync everysec} {
    test {the unconfirmed change was logged once the disk took it: back after kill -9} {
        q_stat [mc_connect] TQ ready
    } 1
}

# ---- snapshots under faults: the log stays whole ----
foreach {op err} {snapwrite ENOSPC snapfsync EIO rename EIO snapopen EIO} {
    set dir [tmpdir snapfault]
    with_data_dir $dir [list --debug --persist-items] {
        test "snapshot with $op failing ($err): it fails, is counted, and the server goes on" {
            set fd [mc_connect]
            for {set i 0} {$i < 50} {incr i} { mc_set $fd k$i v$i }
            # a snapshot's own calls: the child's open, writes and fsync,
            # the parent's rename
            assert_equal [mc_exchange $fd "debugfault $op $err 0 1\r\nsnapshot\r\n"] "OK\r\nOK\r\n"
            wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 200 20
            for {set i 50} {$i < 60} {incr i} { mc_set $fd k$i v$i }
            list [mc_stat $fd persist_snapshot_failures] [llength [glob -nocomplain -directory $dir snap.*]] \
                [llength [glob -nocomplain -directory $dir *.tmp]]
        } {1 0 0}
    }
    with_data_dir $dir [list --debug --persist-items] {
        test "snapshot with $op failing ($err): after kill -9 all 60 values are back" {
            set fd [mc_connect]
            set n 0
            for {set i 0} {$i < 60} {incr i} { if {[mc_get $fd k$i] eq "v$i"} { incr n } }
            set n
        } 60
    }
}

# ---- the removal of old files fails: they stay, and do not matter ----
set dir [tmpdir unlinkfault]
with_data_dir $dir {--debug --persist-items} {
    test {unlink fails after a snapshot: the old log stays beside the snapshot} {
        set fd [mc_connect]
        for {set i 0} {$i < 20} {incr i} { mc_set $fd u$i v$i }
        assert_equal [mc_exchange $fd "debugfault unlink EIO\r\nsnapshot\r\n"] "OK\r\nOK\r\n"
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 200 20
        mc_set $fd u20 v20
        assert_equal [mc_exchange $fd "debugfault clear\r\n"] "OK\r\n"
        list [mc_stat $fd persist_snapshots] [llength [glob -nocomplain -directory $dir log.*]]
    } {1 2}
}
with_data_dir $dir {--debug --persist-items} {
    test {unlink failed: after kill -9 the start-up uses the snapshot and the log after it; every value is back} {
        set fd [mc_connect]
        set n 0
        for {set i 0} {$i <= 20} {incr i} { if {[mc_get $fd u$i] eq "v$i"} { incr n } }
        list $n [llength [glob -nocomplain -directory $dir log.*]]
    } {21 1}
}
