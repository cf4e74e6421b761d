# Black-box tests of snapshots and recovery (doc/persistence.md,
# "Snapshots", "Recovery", referenced from doc/protocol.md's `snapshot`):
# changes made while a snapshot is being written, a kill -9 in the middle
# of one, automatic snapshots, repeated restarts, torn tails. Written only
# from the documents.

proc ctget {fd key counter type period} {
    set r [mc_exchange $fd "ctget $key $counter $type $period\r\n"]
    if {![regexp {^VALUE \S+ \d+ \d+ \S+ (-?\d+) (-?\d+)\r\nEND\r\n$} $r -> v f]} { return $r }
    return $v
}

# The state the tests compare: a big list, 20 queues' ready ids, a tree
# counter total, 300 cache values.
proc state_of {fd} {
    set qs {}
    for {set q 0} {$q < 20} {incr q} {
        lappend qs [lmap it [q_parse [mc_exchange $fd "qpeek SQ$q 100\r\n"]] { lindex $it 0 }]
    }
    set vals {}
    for {set i 0} {$i < 300} {incr i} { lappend vals [mc_get $fd SV$i] }
    list [l_all $fd SL] $qs [ctget $fd SC 9 107 1] $vals
}

# Changes of every kind, pipelined in one write: n rounds.
proc churn {fd n seed} {
    set req {}
    for {set i 0} {$i < $n} {incr i} {
        set q SQ[expr {$i % 20}]
        append req "qpush $q 0 0 [string length $seed$i]\r\n$seed$i\r\n"
        if {$i % 3 == 0} { append req "qpop $q\r\n" }
        append req "rpush SL [string length $seed$i]\r\n$seed$i\r\n"
        if {$i % 2 == 0} { append req "lpop SL\r\n" }
        if {$i % 5 == 0} { append req "lset SL [expr {$i % 50}] 3\r\nSET\r\n" }
        append req "ctincr SC 9 107 1 1\r\n"
        set k SV[expr {$i % 300}]
        append req "set $k 0 0 [string length $seed$i]\r\n$seed$i\r\n"
    }
    append req "version\r\n"
    mc_send_bg $fd $req
    while {![string match VERSION* [mc_readline $fd]]} {}
}

set dir [tmpdir snapchurn]
set ::before {}
with_data_dir $dir {--persist-items -m 256} {
    test {snapshot while 6000 rounds of changes run on every structure, then kill -9 once it is done} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 9 107\r\nctobj SC\r\n"
        # a big list so the copy takes a while
        set blk [string repeat "1 " 64]
        set data [string repeat "x\r\n" 64]
        for {set i 0} {$i < 1500} {incr i} { mc_send $fd "rpush SL ${blk}noreply\r\n$data" }
        mc_exchange $fd "rpush SL 1\r\ny\r\n"
        churn $fd 200 a
        assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
        churn $fd 6000 b
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 300 20
        churn $fd 500 c
        set ::before [state_of $fd]
        list [mc_stat $fd persist_snapshots] [llength [lindex $::before 0]]
    } {1 99351}
}
with_data_dir $dir {--persist-items -m 256} {
    test {snapshot while changes run: after kill -9 the state is exactly the one before} {
        set fd [mc_connect]
        set now [state_of $fd]
        set bad {}
        foreach what {list queues counter values} a [lrange $::before 0 3] b [lrange $now 0 3] {
            if {$a ne $b} { lappend bad "$what differs ([llength $a] / [llength $b])" }
        }
        set bad
    } {}
}
with_data_dir $dir {--persist-items -m 256} {
    test {snapshot while changes run: a second restart (replaying the same snapshot and log again) gives the same state} {
        set fd [mc_connect]
        expr {[state_of $fd] eq $::before}
    } 1
}

# kill -9 while a snapshot is being written: nothing acknowledged is lost.
set dir [tmpdir snapkill]
with_data_dir $dir {--persist-items -m 256} {
    test {kill -9 in the middle of a snapshot} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 9 107\r\nctobj SC\r\n"
        set blk [string repeat "1 " 64]
        set data [string repeat "x\r\n" 64]
        for {set i 0} {$i < 1500} {incr i} { mc_send $fd "rpush SL ${blk}noreply\r\n$data" }
        churn $fd 300 a
        assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
        churn $fd 300 b
        set ::before [state_of $fd]
        verbose "snapshot in progress at the kill: [mc_stat $fd persist_snapshot_in_progress]"
        kill_pid [srv pid] KILL
        wait_server_exit
    } SIGKILL
}
with_data_dir $dir {--persist-items -m 256} {
    test {kill -9 in the middle of a snapshot: after the restart the state is exactly the one before} {
        expr {[state_of [mc_connect]] eq $::before}
    } 1
}

# Automatic snapshots: --snapshot-min-size 64k, old files removed.
set dir [tmpdir snapauto]
with_data_dir $dir {--persist-items --snapshot-min-size 64k --snapshot-growth 10} {
    test {automatic snapshots under --snapshot-min-size 64k while changes run, then kill -9} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 9 107\r\nctobj SC\r\n"
        for {set r 0} {$r < 5} {incr r} { churn $fd 400 r$r }
        wait_for {[mc_stat $fd persist_snapshots] >= 1} 150 20
        for {set r 5} {$r < 10} {incr r} { churn $fd 400 r$r }
        wait_for {[mc_stat $fd persist_snapshots] >= 2} 150 20
        churn $fd 400 last
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 300 20
        set ::before [state_of $fd]
        expr {[mc_stat $fd persist_snapshots] >= 2}
    } 1
}
with_data_dir $dir {--persist-items --snapshot-min-size 64k --snapshot-growth 10} {
    test {automatic snapshots: one snapshot file is left, and the state is exactly the one before} {
        set fd [mc_connect]
        list [llength [glob -nocomplain -directory $dir snap.*]] [expr {[state_of $fd] eq $::before}]
    } {1 1}
}

# A torn tail: the last record cut short by the crash is dropped, the rest kept.
set dir [tmpdir torn]
with_data_dir $dir {--persist-items} {
    test {torn tail: 100 values set, one snapshot, 100 more, kill -9} {
        set fd [mc_connect]
        for {set i 0} {$i < 100} {incr i} { mc_set $fd T$i v$i }
        assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 300 20
        for {set i 100} {$i < 200} {incr i} { mc_set $fd T$i v$i }
        kill_pid [srv pid] KILL
        wait_server_exit
    } SIGKILL
}
set logs [lsort [glob -directory $dir log.*]]
set last [lindex $logs end]
set size [file size $last]
set f [open $last r+b]; chan truncate $f [expr {$size - 3}]; close $f
with_data_dir $dir {--persist-items} {
    test {torn tail: the restart cuts the last record, says so, and keeps the 199 before it} {
        set fd [mc_connect]
        set n 0
        for {set i 0} {$i < 200} {incr i} { if {[mc_get $fd T$i] eq "v$i"} { incr n } }
        list $n [mc_get $fd T199] [regexp {persistence: \S+: torn tail at offset \d+ cut \(\d+ bytes\)} [read_file [srv stderr]]]
    } {199 {} 1}
}
