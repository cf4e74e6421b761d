# Replication (doc/replication.md): a primary and two replicas on
# loopback, each with --data-dir. Replicas apply the primary's log and
# equal it after catch-up (compared by a full dump: every key by kscan,
# then each one read by its type); a restarted replica resyncs partially,
# one too far behind (its log gone after a snapshot) or new resyncs in
# full (a snapshot, then a restart in place); writes to a replica are
# refused; a promoted replica takes writes and another replica follows
# it; the old primary, made a replica of it, continues on its lineage.

source [file join [srcdir] t support ctree.tcl]
source [file join [srcdir] t support list.tcl]
source [file join [srcdir] t support repl.tcl]

# Everything a client can read, in an order that does not depend on the
# server: each key (kscan), read by its type, then the tree counters'
# definitions. Fields that count since a start or depend on the clock
# (popped, released, ages, leases left, TTLs) are left out.
proc repl_dump {fd} {
    set out [list [mc_exchange $fd "ctcounters\r\n"]]
    foreach k [lsort -index 0 [k_all $fd count=1000]] {
        lassign $k key type ttl
        lappend out $key $type [expr {$ttl < 0 ? "none" : "ttl"}]
        switch $type {
            queue {
                set st [q_stats $fd $key]
                foreach f {ready delayed in_flight buried pushed acked dead purged dedup_entries grouped groups max_length dlq} {
                    lappend out $f [dict get $st $f]
                }
                lappend out [mc_exchange $fd "qpeek $key 100\r\n"]
                lappend out [regsub -all -line { -?\d+\r$} [mc_exchange $fd "qpending $key values\r\n"] ""]
            }
            list { lappend out [l_all $fd $key] }
            ctree { lappend out [mc_exchange $fd "ctinfo $key\r\nctvalues $key count=10000\r\n"] }
            default { lappend out [mc_exchange $fd "gets $key\r\n"] }
        }
    }
    return $out
}

# "" when dumps a and b are equal, else their first differing parts.
proc repl_diff {a b} {
    if {$a eq $b} { return {} }
    for {set i 0} {$i < max([llength $a], [llength $b])} {incr i} {
        set x [split [lindex $a $i] \n]
        set y [split [lindex $b $i] \n]
        if {$x ne $y} {
            for {set j 0} {[lindex $x $j] eq [lindex $y $j]} {incr j} {}
            return [list element $i after [lrange $a [expr {$i > 30 ? $i - 30 : 0}] [expr {$i - 1}]] line $j: [lindex $x $j] vs [lindex $y $j]]
        }
    }
    return {}
}

# Changes of every kind, deterministic by seed, on fd: cache values,
# queues (pushes, pops, acks, releases, delays, priorities, dedup ids),
# lists, tree counters.
proc repl_work {fd seed steps} {
    expr {srand($seed)}
    for {set i 0} {$i < $steps} {incr i} {
        set n [expr {int(rand() * 20)}]
        set v "v$i.[string repeat x [expr {int(rand() * 200)}]]"
        switch [expr {int(rand() * 12)}] {
            0 { mc_set $fd k$n $v [expr {$i % 7}] }
            1 { mc_exchange $fd "append k$n 0 0 3\r\nabc\r\nincr n$n 5\r\n" }
            2 { mc_exchange $fd "delete k$n\r\nset n$n 0 0 1\r\n7\r\n" }
            3 { mc_exchange $fd "touch k$n 100000\r\n" }
            4 - 5 { q_push $fd q[expr {$n % 4}] $v [expr {$n % 3}] [expr {$n == 3 ? 1000 : 0}] [expr {$n % 5}] }
            6 {
                set items [q_pop $fd q[expr {$n % 4}] 2]
                foreach it $items {
                    if {rand() < 0.5} {
                        mc_exchange $fd "qack q[expr {$n % 4}] [lindex $it 0]\r\n"
                    } elseif {rand() < 0.5} {
                        mc_exchange $fd "qrelease q[expr {$n % 4}] [lindex $it 0]\r\n"
                    }
                }
            }
            7 { mc_exchange $fd "qpush qd 0 0 [string length $v] dedup=d$n\r\n$v\r\n" }
            8 { l_push $fd rpush l[expr {$n % 3}] [list $v $v.2] }
            9 { mc_exchange $fd "lpop l[expr {$n % 3}]\r\n[l_blocks "lset l[expr {$n % 3}] 0 3" new]" }
            10 - 11 {
                mc_exchange $fd "ctincr c[expr {$n % 3}] 1 103 @[expr {1609459200 + $i * 600}] [expr {$n - 5}]\r\n"
            }
        }
    }
}

proc repl_setup_ctree {fd} {
    mc_exchange $fd "ctdef 1 103,104,106:5,107\r\n"
    foreach {o p} {c0 {} c1 c0 c2 c0} {
        set line "ctobj $o"
        if {$p ne {}} { append line " parent=$p" }
        assert_equal [mc_exchange $fd "$line\r\n"] "CREATED\r\n"
    }
}

# Waits until the replica on rfd has what the primary on pfd has written.
proc repl_caught_up {pfd rfd} {
    wait_for {[mc_stat $rfd repl_link] eq "up" &&
              [mc_stat $rfd repl_position] == [mc_stat $pfd persist_log_position]} 200 50
    mc_stat $rfd repl_position
}


set dp [tmpdir repl_primary]
set dr1 [tmpdir repl_replica1]
set dr2 [tmpdir repl_replica2]

start_server [list tags {repl persist mcds-only} args [list --data-dir $dp --persist-items]] {
    set pfd [mc_connect]
    set ::primary_port [srv port]
    test {replication: writers of every structure on the primary} {
        repl_setup_ctree $pfd
        repl_work $pfd 11 600
        mc_stat $pfd repl_role
    } primary

    start_server [list tags {repl} args [list --data-dir $dr1 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
        start_server [list tags {repl} args [list --data-dir $dr2 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
            set r1 [repl_connect -1]
            set r2 [repl_connect 0]

            test {replication: two replicas catch up and equal the primary} {
                repl_caught_up $pfd $r1
                repl_caught_up $pfd $r2
                set want [repl_dump $pfd]
                assert_equal [repl_diff [repl_dump $r1] $want] {}
                assert_equal [repl_diff [repl_dump $r2] $want] {}
                list [mc_stat $r1 repl_role] [mc_stat $r1 repl_primary] [mc_stat $r2 repl_partial_syncs] \
                    [mc_stat $r2 repl_full_syncs] [mc_stat $pfd repl_replicas] [mc_stat $r1 repl_lineage] \
                    [mc_stat $r1 repl_local_records]
            } [list replica 127.0.0.1:$::primary_port 1 0 2 [mc_stat $pfd repl_lineage] 0]

            test {replication: changes made while the replicas follow stream to them} {
                repl_work $pfd 12 400
                mc_exchange $pfd "flush_all\r\n"
                repl_work $pfd 13 300
                repl_caught_up $pfd $r1
                repl_caught_up $pfd $r2
                set want [repl_dump $pfd]
                assert_equal [repl_diff [repl_dump $r1] $want] {}
                assert_equal [repl_diff [repl_dump $r2] $want] {}
                list [mc_stat $r1 repl_lag_bytes] [mc_stat $r1 repl_local_records] [mc_stat $r2 repl_local_records] \
                    [mc_stat $r1 repl_records_skipped] [mc_stat $r2 repl_keys_quarantined]
            } {0 0 0 0 0}

            test {replication: a lease that runs out on the primary reaches the replicas as its record} {
                q_push $pfd lq hello
                set it [lindex [q_pop $pfd lq lease=1] 0]
                repl_caught_up $pfd $r1
                assert_equal [dict get [q_stats $r1 lq] in_flight] 1
                wait_for {[dict get [q_stats $pfd lq] ready] == 1} 50 100
                repl_caught_up $pfd $r1
                list [dict get [q_stats $r1 lq] ready] [dict get [q_stats $r1 lq] in_flight]
            } {1 0}

            test {replication: message ttls that run out on the primary reach the replicas as records} {
                assert_equal [mc_exchange $pfd "qcreate tdrop expired=drop\r\n"] "CREATED\r\n"
                assert_match "PUSHED *" [mc_exchange $pfd "qpush tdrop 0 0 1 ttl=1\r\na\r\nqpush tdead 0 0 1 ttl=1\r\nb\r\n"]
                repl_caught_up $pfd $r1
                assert_equal [dict get [q_stats $r1 tdead] ready] 1
                wait_for {[dict get [q_stats $pfd tdead] ready] == 0 && [dict get [q_stats $pfd tdrop] ready] == 0} 50 100
                repl_caught_up $pfd $r1
                repl_caught_up $pfd $r2
                set want [repl_dump $pfd]
                assert_equal [repl_diff [repl_dump $r1] $want] {}
                assert_equal [repl_diff [repl_dump $r2] $want] {}
                list [dict get [q_stats $r1 tdead] ready] [dict get [q_stats $r1 tdead:dead] ready] \
                    [dict get [q_stats $r1 tdrop] ready] [mc_stat $r1 repl_local_records]
            } {0 1 0 0}

            test {replication: the primary lists its replicas in stats} {
                set lines [mc_exchange $pfd "stats\r\n"]
                regexp {STAT repl_replica_0 (\S+) up (\d+) (\d+) (\d+)} $lines -> addr acked lagb lagr
                list [string match 127.0.0.1:* $addr] [mc_stat $pfd repl_replicas]
            } {1 2}

            test {replication: a replica refuses every write with the primary's name, and serves reads} {
                set ro "SERVER_ERROR read-only replica of 127.0.0.1:$::primary_port\r\n"
                assert_equal [mc_exchange $r1 "set a 0 0 5\r\nhello\r\n"] $ro
                assert_equal [mc_exchange $r1 "set a 0 0 5 noreply\r\nhello\r\nget nothing\r\n"] "END\r\n"
                assert_equal [mc_exchange $r1 "qpush q0 0 0 2\r\nab\r\n"] $ro
                assert_equal [mc_exchange $r1 "rpush l0 1 2\r\na\r\nbc\r\n"] $ro
                assert_equal [mc_exchange $r1 "linsert l0 before 1 1\r\na\r\nb\r\n"] $ro
                assert_equal [mc_exchange $r1 "qpushn q0 0 0 0 1 1\r\na\r\nb\r\n"] $ro
                assert_equal [mc_exchange $r1 "ms k1 2\r\nab\r\n"] $ro
                foreach line {"delete k1" "incr n1 1" "touch k1 10" "flush_all" "qpop q0" "qack q0 1" "qcreate zz"
                              "lpop l0" "ltrim l0 0 1" "ctincr c0 1 103 @1609459200 1" "ctdef 9 103" "gat 10 k1"
                              "md k1" "ma n1" "get q0" "get q0/open" "lmove l0 l1 left right" "mg k1 v T30"
                              "mg k1 N30 v" "qpop q0 lease=5"} {
                    assert_equal [mc_exchange $r1 "$line\r\n"] $ro $line
                }
                # reads go on (mg without T or N too)
                assert_equal [mc_exchange $r1 "mg k5 v f\r\nmn\r\n"] [mc_exchange $pfd "mg k5 v f\r\nmn\r\n"]
                assert_equal [mc_exchange $r1 "get q0/peek\r\n"] [mc_exchange $pfd "get q0/peek\r\n"]
                assert_equal [mc_exchange $r1 "qpeek q1 5\r\nllen l1\r\nctvalues c0\r\n"] \
                    [mc_exchange $pfd "qpeek q1 5\r\nllen l1\r\nctvalues c0\r\n"]
                # the binary protocol: status 0x84
                source [file join [srcdir] t support bin.tcl]
                set b [repl_connect -1]
                set r [bin_cmd $b [bin_pkt SET -key bk -ext [bin_store_ext] -value hello]]
                set g [bin_cmd $b [bin_pkt GET -key bk]]
                list [format 0x%02x [dict get $r status]] [dict get $r value] [dict get $g status]
            } {0x84 {Internal error: read-only replica} 1}

            test {replication: malformed replicaof and psync lines} {
                set out {}
                foreach line {"replicaof" "replicaof x" "replicaof x 0" "replicaof x 70000" "replicaof x 1a"
                              "replicaof x -1" "psync" "psync ? x" "psync zz 0" "psync ? -1" "psync ? 1 2"
                              "psync 0123456789abcdef0123456789ABCDEF 0"} {
                    lappend out [string trimright [mc_exchange $pfd "$line\r\n"] "\r\n"]
                }
                lappend out [string trimright [mc_exchange $r1 "psync ? 0\r\n"] "\r\n"]
                set out
            } [list ERROR ERROR {CLIENT_ERROR bad command line format} {CLIENT_ERROR bad command line format} \
                   {CLIENT_ERROR bad command line format} {CLIENT_ERROR bad command line format} ERROR \
                   {CLIENT_ERROR bad command line format} {CLIENT_ERROR bad command line format} \
                   {CLIENT_ERROR bad command line format} ERROR {CLIENT_ERROR bad command line format} \
                   {SERVER_ERROR not a primary: a replica serves no replica}]
        }
        # replica 2 is stopped here; replica 1 goes on
        set r1 [repl_connect 0]
        test {replication: replica 1 stays equal while replica 2 is away} {
            repl_work $pfd 14 200
            repl_caught_up $pfd $r1
            assert_equal [repl_diff [repl_dump $r1] [repl_dump $pfd]] {}
        } {}
    }

    # Both replicas are down. Replica 1 restarts while its log is still on
    # the primary (partial); a snapshot removes the log replica 2 needs.
    test {replication: writes while the replicas are down} {
        repl_work $pfd 15 200
        set ::r1_gap [mc_stat $pfd persist_log_written]
        expr {$::r1_gap > 0}
    } 1

    start_server [list tags {repl} args [list --data-dir $dr1 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
        set r1 [mc_connect]
        test {replication: a restarted replica resyncs partially from its position} {
            repl_caught_up $pfd $r1
            assert_equal [repl_diff [repl_dump $r1] [repl_dump $pfd]] {}
            list [mc_stat $r1 repl_partial_syncs] [mc_stat $r1 repl_full_syncs] [mc_stat $r1 persist_replay_skipped]
        } {1 0 0}
    }

    test {replication: a snapshot on the primary removes the log replica 2 stopped in} {
        repl_work $pfd 16 100
        assert_equal [mc_exchange $pfd "snapshot\r\n"] "OK\r\n"
        wait_for {[mc_stat $pfd persist_snapshot_in_progress] == 0} 200 50
        repl_work $pfd 17 100
        llength [glob -nocomplain -directory $dp log.0000000000000000]
    } 0

    start_server [list tags {repl} args [list --data-dir $dr2 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
        test {replication: a replica too far behind resyncs in full (a snapshot, then a restart in place)} {
            set pid [srv pid]
            set r2 [repl_connect_caught_up 0 $pfd]
            assert_equal [mc_stat $r2 repl_full_syncs] 1
            assert_equal [repl_diff [repl_dump $r2] [repl_dump $pfd]] {}
            list [pid_alive $pid] [mc_stat $r2 repl_partial_syncs] [mc_stat $r2 repl_role]
        } {1 1 replica}

        set d3 [tmpdir repl_replica3]
        start_server [list tags {repl} args [list --data-dir $d3 --replicaof 127.0.0.1:$::primary_port]] {
            test {replication: a new replica of a primary whose log starts after 0 resyncs in full} {
                set r3 [repl_connect_caught_up 0 $pfd]
                assert_equal [mc_stat $r3 repl_full_syncs] 1
                assert_equal [repl_diff [repl_dump $r3] [repl_dump $pfd]] {}
            } {}
        }

        start_server [list tags {repl} args [list --data-dir $dr1 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
            set r2 [repl_connect -1]
            test {replication: replicaof no one promotes a replica; it takes writes on a new lineage} {
                # its log is gone on the primary too: a full resync first
                set r1 [repl_connect_caught_up 0 $pfd]
                assert_equal [mc_stat $r1 repl_full_syncs] 1
                set old [mc_stat $pfd repl_lineage]
                assert_equal [mc_exchange $r1 "replicaof no one\r\n"] "OK\r\n"
                assert_equal [mc_exchange $r1 "replicaof no one\r\n"] "OK\r\n"
                repl_work $r1 18 200
                assert_equal [mc_set $r1 after promotion] STORED
                list [mc_stat $r1 repl_role] [expr {[mc_stat $r1 repl_lineage] ne $old}] \
                    [string match "$old *" [lindex [split [read_file [file join $dr1 lineage]] \n] 1]]
            } {primary 1 1}

            test {replication: another replica follows the promoted one partially, and equals it} {
                assert_equal [mc_exchange $r2 "replicaof 127.0.0.1 [srv 0 port]\r\n"] "OK\r\n"
                repl_caught_up $r1 $r2
                assert_equal [repl_diff [repl_dump $r2] [repl_dump $r1]] {}
                list [mc_stat $r2 repl_primary] [mc_stat $r2 repl_full_syncs] [mc_stat $r2 repl_lineage]
            } [list 127.0.0.1:[srv 0 port] 1 [mc_stat $r1 repl_lineage]]

            test {replication: the old primary, made a replica of the new one, continues on its lineage} {
                set pid [srv -2 pid]
                assert_equal [mc_exchange $pfd "replicaof 127.0.0.1 [srv 0 port]\r\n"] "OK\r\n"
                wait_for {![catch {set pfd [mc_connect_addr 127.0.0.1 $::primary_port]
                                   mc_stat $pfd repl_role} role] && $role eq "replica"} 200 50
                repl_caught_up $r1 $pfd
                assert_equal [repl_diff [repl_dump $pfd] [repl_dump $r1]] {}
                list [pid_alive $pid] [mc_stat $pfd repl_full_syncs] [mc_stat $pfd repl_partial_syncs] \
                    [mc_exchange $pfd "set x 0 0 1\r\n1\r\n"]
            } [list 1 0 1 "SERVER_ERROR read-only replica of 127.0.0.1:[srv 0 port]\r\n"]
        }
    }
}

start_server {tags {repl mcds-only}} {
    test {replication: without --data-dir, replicaof and psync say what they need} {
        set fd [mc_connect]
        mc_exchange $fd "replicaof no one\r\nreplicaof 127.0.0.1 1\r\npsync ? 0\r\n"
    } [string repeat "SERVER_ERROR replication needs --data-dir\r\n" 3]
}

# An old primary that took writes after its replica was promoted: its
# tail is not history the new primary holds, so it resyncs in full and the
# tail is dropped. A replica that stops taking the stream is cut off
# (--repl-timeout) without the primary waiting for it.
set dq [tmpdir repl_primary_b]
set dq1 [tmpdir repl_replica_b]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dq --persist-items --repl-timeout 2]] {
    set pfd [mc_connect]
    set ::primary_b [srv port]
    repl_setup_ctree $pfd
    repl_work $pfd 21 300
    start_server [list tags {repl} args [list --data-dir $dq1 --persist-items --replicaof 127.0.0.1:$::primary_b]] {
        set rfd [repl_connect_caught_up 0 $pfd]
        set rpid [srv pid]

        test {replication: a replica that takes nothing is cut off; the primary's writers never wait} {
            kill_pid $rpid STOP
            set t0 [clock milliseconds]
            repl_work $pfd 22 300
            set took [expr {[clock milliseconds] - $t0}]
            wait_for {[mc_stat $pfd repl_replicas] == 0} 100 50
            kill_pid $rpid CONT
            # the bytes the socket held are applied, then the closed link is seen
            wait_for {![catch {mc_stat $rfd repl_partial_syncs} n] && $n == 2} 100 50
            set rfd [repl_connect_caught_up 0 $pfd]
            assert_equal [repl_diff [repl_dump $rfd] [repl_dump $pfd]] {}
            list [expr {$took < 5000}] [mc_stat $rfd repl_partial_syncs]
        } {1 2}

        test {replication: an old primary with writes its replica never got resyncs in full; that tail is dropped} {
            assert_equal [mc_exchange $rfd "replicaof no one\r\n"] "OK\r\n"
            mc_set $pfd tail lost
            repl_work $pfd 23 50
            mc_set $rfd head kept
            assert_equal [mc_exchange $pfd "replicaof 127.0.0.1 [srv 0 port]\r\n"] "OK\r\n"
            set pfd [repl_connect_caught_up -1 $rfd]
            assert_equal [repl_diff [repl_dump $pfd] [repl_dump $rfd]] {}
            list [mc_stat $pfd repl_full_syncs] [mc_get $pfd tail] [mc_get $pfd head] \
                [expr {[mc_stat $pfd repl_lineage] eq [mc_stat $rfd repl_lineage]}]
        } {1 {} kept 1}
    }
}

# A primary killed and started again (on its port) starts a new lineage
# at the end of the log it replayed; its replica, at or before that end,
# continues partially.
set dp3 [tmpdir repl_primary_c]
set dr3 [tmpdir repl_replica_c]
set ::pport [free_port]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dr3 --persist-items --replicaof 127.0.0.1:$::pport]] {
    start_server [list tags {repl} args [list --data-dir $dp3 --persist-items -p $::pport]] {
        set pfd [mc_connect]
        test {replication: a replica follows a primary that is then killed} {
            repl_setup_ctree $pfd
            repl_work $pfd 31 300
            set rfd [repl_connect_caught_up -1 $pfd]
            set ::lineage_c [mc_stat $pfd repl_lineage]
            assert_equal [repl_diff [repl_dump $rfd] [repl_dump $pfd]] {}
            kill_pid [srv pid] KILL
            wait_server_exit
        } SIGKILL
    }
    start_server [list tags {repl} args [list --data-dir $dp3 --persist-items -p $::pport]] {
        set pfd [mc_connect]
        test {replication: after the primary's restart (a new lineage) its replica continues partially} {
            repl_work $pfd 32 100
            set rfd [repl_connect_caught_up -1 $pfd]
            assert_equal [repl_diff [repl_dump $rfd] [repl_dump $pfd]] {}
            list [mc_stat $rfd repl_full_syncs] [expr {[mc_stat $rfd repl_partial_syncs] >= 2}] \
                [expr {[mc_stat $pfd repl_lineage] ne $::lineage_c}] \
                [expr {[mc_stat $rfd repl_lineage] eq [mc_stat $pfd repl_lineage]}]
        } {0 1 1 1}

        test {replication: a record that does not apply quarantines its key on the replica, as a restart does} {
            l_push $pfd rpush QL {a b c}
            # an lset at a position QL does not have, as a writer with a bug would log it
            binary scan [binary format "c a* w i a*" 2 QL 10 1 z] H* hex
            assert_equal [mc_exchange $pfd "debugrecord 4 6 $hex\r\n"] "OK\r\n"
            l_push $pfd rpush QL {d}
            l_push $pfd rpush OK {y}
            set rfd [repl_connect_caught_up -1 $pfd]
            list [l_all $rfd QL] [l_all $rfd OK] [mc_stat $rfd repl_records_skipped] [mc_stat $rfd repl_keys_quarantined] \
                [mc_stat $rfd repl_link]
        } {{a b c} y 2 1 up}
    }
}
