# Persistence of lists (doc/persistence.md): with --data-dir every list
# change is in the log before its reply goes out, so a restart after
# kill -9 restores every list exactly (elements, order, maxlen, TTL), and
# deleted or flushed lists stay gone. Snapshots hold lists too; the log
# after a snapshot replays on top of it.

# Runs body on a server over dir, then kills it with SIGKILL (unless the
# body stopped it): a restart must not need a clean stop.
proc lp_server {dir body} {
    uplevel 1 [list start_server [list tags {persist list mcds-only} args [list --data-dir $dir]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

# A random mix of every changing verb on key (deterministic by seed).
proc lp_workload {fd key seed steps} {
    expr {srand($seed)}
    for {set i 0} {$i < $steps} {incr i} {
        set v "$key.[expr {int(rand() * 40)}]:[string repeat x [expr {int(rand() * 300)}]]"
        switch [expr {int(rand() * 8)}] {
            0 - 1 { l_push $fd rpush $key [list $v $v.b] }
            2 { l_push $fd lpush $key [list $v] }
            3 { mc_exchange $fd "lpop $key 2\r\nrpop $key\r\n" }
            4 { mc_exchange $fd [l_blocks "lset $key [expr {int(rand() * 20) - 10}] [string length $v]" $v] }
            5 { mc_exchange $fd [l_blocks "linsert $key after [string length $v] 3" $v new] }
            6 { mc_exchange $fd [l_blocks "lrem $key [expr {int(rand() * 3) - 1}] [string length $v]" $v] }
            7 { if {rand() < 0.1} { mc_exchange $fd "ltrim $key 3 200\r\n" } }
        }
    }
}

set d1 [tmpdir persist_list]
set ::lp1 {}

lp_server $d1 {
    set fd [mc_connect]
    test {list persistence: every kind of change before a kill -9} {
        assert_equal [mc_exchange $fd "lcreate pl maxlen=5\r\n"] "CREATED\r\n"
        l_push $fd rpush pl {a b c}
        l_push $fd lpush pl {z}
        mc_exchange $fd "rpop pl\r\n[l_blocks {lset pl 1 1} A][l_blocks {linsert pl before 1 1} A y]"
        l_push $fd rpush gone {x}
        l_push $fd rpush ttl {t}
        mc_exchange $fd "delete gone\r\ntouch ttl 100000\r\n"
        lp_workload $fd big 7 1500
        set ::lp1 [list [l_all $fd pl] [l_all $fd big]]
        lindex $::lp1 0
    } {z y A b}
}

lp_server $d1 {
    set fd [mc_connect]
    test {list persistence: after kill -9 and restart every list is as it was} {
        assert_equal [l_all $fd big] [lindex $::lp1 1]
        assert_equal [mc_exchange $fd "llen gone\r\n"] "NOT_FOUND\r\n"
        # maxlen came back with the list.
        assert_equal [l_push $fd rpush pl {1 2}] "NOT_STORED\r\n"
        l_all $fd pl
    } {z y A b}

    test {list persistence: a TTL is absolute across the restart} {
        assert_equal [mc_exchange $fd "llen ttl\r\ndebugtime 90000\r\nllen ttl\r\n"] "1\r\nOK\r\n1\r\n"
        mc_exchange $fd "debugtime 10001\r\nllen ttl\r\n"
    } "OK\r\nNOT_FOUND\r\n" {debugtime}
}

set d2 [tmpdir persist_list]
set ::lp2 {}

lp_server $d2 {
    set fd [mc_connect]
    test {list snapshot: written with lists, then more changes in the log} {
        set batch {}
        for {set i 0} {$i < 6000} {incr i} {
            lappend batch "e$i:[string repeat . 30]"
            if {[llength $batch] == 64} { l_push $fd rpush snap $batch; set batch {} }
        }
        l_push $fd rpush snap $batch
        lp_workload $fd mixed 3 400
        assert_equal [mc_cmd $fd snapshot] OK
        # Changes while and after the snapshot is written.
        lp_workload $fd mixed 4 400
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0 && [mc_stat $fd persist_snapshots] == 1} 100 50
        set v100 "e100:[string repeat . 30]"
        assert_equal [mc_exchange $fd "ltrim snap 10 5000\r\n[l_blocks "lrem snap 0 [string length $v100]" $v100]"] "1000\r\n1\r\n"
        lp_workload $fd mixed 5 400
        set ::lp2 [list [l_all $fd snap] [l_all $fd mixed]]
        llength [lindex $::lp2 0]
    } 4999
}

lp_server $d2 {
    set fd [mc_connect]
    test {list snapshot: the restart loads the snapshot and the log after it} {
        assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 2}
        assert_equal [l_all $fd mixed] [lindex $::lp2 1]
        expr {[l_all $fd snap] eq [lindex $::lp2 0]}
    } 1

    test {list persistence: flush_all is logged; lists stay gone} {
        mc_exchange $fd "flush_all\r\n"
    } "OK\r\n"
}

lp_server $d2 {
    set fd [mc_connect]
    test {list persistence: after flush_all and a restart no list is back} {
        mc_exchange $fd "llen snap\r\nllen mixed\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\n"
}

set d3 [tmpdir persist_list]

lp_server $d3 {
    set fd [mc_connect]
    test {list persistence: a blocking pop served by a push is logged as a pop} {
        set w [mc_connect]
        mc_send $w "lpop bp wait=100\r\n"
        l_waiters $fd 1
        l_push $fd rpush bp {a b}
        assert_equal [mc_exchange $w ""] [l_vals bp a]
        l_all $fd bp
    } {b}
}

lp_server $d3 {
    set fd [mc_connect]
    test {list persistence: after the restart the served element is not back} {
        l_all $fd bp
    } {b}
}
