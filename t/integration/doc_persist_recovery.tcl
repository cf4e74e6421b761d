# Black-box tests of recovery promises (doc/persistence.md, referenced from
# doc/protocol.md): leases that ran out while the server was down, queues
# larger than -m, corruption in the middle of the log, and a full disk
# ("nothing acknowledged is ever lost"; refused changes change nothing).
# Written only from the documents.

# ---- a lease that ran out while the server was down ----
set dir [tmpdir lease]
with_data_dir $dir {} {
    test {a message leased for 1 s, then kill -9} {
        set fd [mc_connect]
        set ::lid [q_push $fd LQ m]
        llength [q_pop $fd LQ lease=1]
    } 1
}
after 1500
with_data_dir $dir {} {
    test {the lease ran out while the server was down: ready at the restart, delivery count kept} {
        set fd [mc_connect]
        set it [lindex [q_pop $fd LQ] 0]
        list [expr {[lindex $it 0] == $::lid}] [lindex $it 3]
    } {1 2}
}

# ---- structures are restored even above -m ----
set dir [tmpdir overm]
with_data_dir $dir {-m 32} {
    test {a queue of 20 MB and a list of 4 MB under -m 32, then kill -9} {
        set fd [mc_connect]
        set v [string repeat q 10000]
        set req {}
        for {set i 0} {$i < 2000} {incr i} { append req "qpush BQ 0 0 10000\r\n$v\r\n" }
        for {set i 0} {$i < 400} {incr i} { append req "rpush BL 10000\r\n$v\r\n" }
        mc_exchange $fd $req
        list [q_stat $fd BQ ready] [mc_exchange $fd "llen BL\r\n"]
    } [list 2000 "400\r\n"]
}
with_data_dir $dir {-m 8} {
    test {restarted with -m 8, every message and element is back} {
        set fd [mc_connect]
        list [q_stat $fd BQ ready] [mc_exchange $fd "llen BL\r\n"]
    } [list 2000 "400\r\n"]
}

# ---- corruption with valid records after it ----
set dir [tmpdir corrupt]
with_data_dir $dir {} {
    test {corruption: 100 messages logged} {
        set fd [mc_connect]
        for {set i 0} {$i < 100} {incr i} { q_push $fd CQ m$i }
        q_stat $fd CQ ready
    } 100
}
set log [lindex [lsort [glob -directory $dir log.*]] 0]
set f [open $log r+b]; seek $f 500; set b [read $f 1]; seek $f 500
puts -nonewline $f [binary format c [expr {([scan $b %c] ^ 0xff) & 0xff}]]; close $f
test {corruption in the middle: start-up stops with status 1 and the documented message} {
    lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir $dir] status out
    list $status [regexp {persistence: start-up stopped: \S+ is corrupt at offset \d+ \(valid records follow\); --recover-partial steps over the damage and keeps what follows} $out]
} {1 1}
with_data_dir $dir {--recover-partial} {
    test {corruption: --recover-partial steps over the damaged record and keeps every message after it} {
        set fd [mc_connect]
        set have {}
        foreach it [q_pop $fd CQ 100 lease=600] { lappend have [lindex $it 2] }
        # one record is damaged: at most one message is missing, and the
        # last one (far after the damage) is there
        list [expr {[llength $have] >= 99}] [expr {"m99" in $have}] [expr {[mc_stat $fd persist_recovery_damaged_bytes] > 0}]
    } {1 1 1}
}
with_data_dir $dir {} {
    test {corruption: after a --recover-partial start-up the directory starts without it (the damage is gone)} {
        set fd [mc_connect]
        list [expr {[q_stat $fd CQ in_flight] >= 99}] [mc_stat $fd persist_recovery_damaged_bytes]
    } {1 0}
}

# ---- a full disk (a 1 MB tmpfs; needs root) ----
set mnt [tmpdir full]
if {[catch {exec mount -t tmpfs -o size=1m tmpfs $mnt} err]} {
    test {full disk: nothing acknowledged is lost, refused changes change nothing} { skip "cannot mount a tmpfs: $err" } {}
} else {
    set dir [file join $mnt d]
    with_data_dir $dir {--persist-items} {
        test {full disk: 1500 pipelined 1 KB pushes; the log fills; other changes are refused and change nothing} {
            set fd [mc_connect]
            set v [string repeat p 1000]
            set req {}
            for {set i 0} {$i < 1500} {incr i} { append req "qpush FQ 0 0 1000\r\n$v\r\n" }
            mc_send_bg $fd $req
            set ::acked 0
            # replies stop coming once the log cannot be written
            while {![catch {mc_readline $fd} line]} { incr ::acked }
            set fd2 [mc_connect]
            set r [mc_exchange $fd2 "set kv 0 0 1\r\nz\r\nqpush OQ 0 0 1\r\nx\r\nget kv\r\nqstats OQ\r\n"]
            list [expr {$::acked > 0 && $::acked < 1500}] [mc_stat $fd2 persist_write_error] [visible $r]
        } [list 1 1 [visible "SERVER_ERROR log write failed, nothing changed\r\nSERVER_ERROR log write failed, nothing changed\r\nEND\r\nNOT_FOUND\r\n"]]
        kill_pid [srv pid] KILL
        wait_server_exit
    }
    exec mount -o remount,size=8m $mnt
    with_data_dir $dir {--persist-items} {
        test {full disk: after kill -9 (and room again) every acknowledged push is back, no refused change is} {
            set fd [mc_connect]
            set n [q_stat $fd FQ ready]
            list [expr {$n >= $::acked ? "ok" : "$n < $::acked"}] [mc_get $fd kv] [q_stat $fd OQ ready]
        } {ok {} {}}
    }
    catch {exec umount $mnt}
}
