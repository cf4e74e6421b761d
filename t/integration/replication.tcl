# Replication (doc/replication.md): a primary and two replicas on
# loopback, each with --data-dir. Replicas apply the primary's log and
# equal it after catch-up (compared by a full dump: every key by kscan,
# then each one read by its type); a restarted replica resyncs partially,
# one too far behind (its log gone after a snapshot) or new resyncs in
# full (a snapshot, then a restart in place); writes to a replica are
# refused; a promoted replica takes writes and another replica follows
# it; the old primary, made a replica of it, continues on its lineage.

source [file join [srcdir] t support repl.tcl]

set dp [tmpdir repl_primary]
set dr1 [tmpdir repl_replica1]
set dr2 [tmpdir repl_replica2]

start_server [list tags {repl persist mcds-only} args [list --data-dir $dp --persist-items]] {
    set pfd [mc_connect]
    set ::primary_port [srv port]
    test {replication: writers of every structure on the primary} {
        repl_setup_ctree $pfd
        repl_setup_table $pfd
        repl_work $pfd 11 600
        mc_stat $pfd repl_role
    } primary

    start_server [list tags {repl} args [list --data-dir $dr1 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
        start_server [list tags {repl} args [list --data-dir $dr2 --persist-items --replicaof 127.0.0.1:$::primary_port]] {
            set r1 [repl_connect -1]
            set r2 [repl_connect 0]

            test {replication: two replicas catch up and equal the primary} {
                repl_assert_equal $pfd $r1 $r2
                list [mc_stat $r1 repl_role] [mc_stat $r1 repl_primary] [mc_stat $r2 repl_partial_syncs] \
                    [mc_stat $r2 repl_full_syncs] [mc_stat $pfd repl_replicas] [mc_stat $r1 repl_lineage] \
                    [mc_stat $r1 repl_local_records]
            } [list replica 127.0.0.1:$::primary_port 1 0 2 [mc_stat $pfd repl_lineage] 0]

            test {replication: changes made while the replicas follow stream to them} {
                repl_work $pfd 12 400
                mc_exchange $pfd "flush_all\r\n"
                repl_work $pfd 13 300
                repl_assert_equal $pfd $r1 $r2
                list [mc_stat $r1 repl_lag_bytes] [mc_stat $r1 repl_local_records] [mc_stat $r2 repl_local_records] \
                    [mc_stat $r1 repl_records_skipped] [mc_stat $r2 repl_keys_quarantined]
            } {0 0 0 0 0}

            test {replication: tables, their rows and an index added later reach the replicas; a replica refuses table writes} {
                for {set i 0} {$i < 300} {incr i} {
                    append batch "tput rt id=[expr {100 + $i}] name=n$i city=c[expr {$i % 7}] age=[expr {$i % 50}] noreply\r\n"
                }
                mc_exchange $pfd $batch
                assert_equal [mc_exchange $pfd "tindex rt by_age age+name\r\n"] "OK\r\n"
                wait_for {[regexp {INDEX by_age \S+ ready} [mc_exchange $pfd "tinfo rt\r\n"]]} 100 50
                mc_exchange $pfd "tdel rt 105\r\ntupdate rt id=106 age=49\r\n"
                repl_caught_up $pfd $r1
                repl_caught_up $pfd $r2
                set sel "tselect rt by_age ge=40 count=1000 fields=id,age"
                list [expr {[llength [lindex [repl_dump_tables $pfd] 2]] > 300}] \
                    [repl_diff [repl_dump_tables $r1] [repl_dump_tables $pfd]] \
                    [expr {[t_all $r2 $sel] eq [t_all $pfd $sel]}] [expr {[llength [t_all $r2 $sel]] >= 60}] \
                    [string match "SERVER_ERROR read-only replica of *" [mc_exchange $r1 "tput rt id=1 name=x\r\n"]] \
                    [string match "SERVER_ERROR read-only replica of *" [mc_exchange $r2 "tindex rt x name\r\n"]]
            } {1 {} 1 1 1 1}

            test {replication: a lease that runs out on the primary reaches the replicas as its record} {
                # a long lease, run out by moving the primary's clock: the
                # replica sees it in flight however slow the machine is
                q_push $pfd lq hello
                set it [lindex [q_pop $pfd lq lease=60] 0]
                repl_caught_up $pfd $r1
                assert_equal [dict get [q_stats $r1 lq] in_flight] 1
                assert_equal [mc_exchange $pfd "debugtime 61\r\n"] "OK\r\n"
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
                repl_assert_equal $pfd $r1 $r2
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
            repl_assert_equal $pfd $r1
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
            repl_assert_equal $pfd $r1
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
            repl_assert_equal $pfd $r2
            list [pid_alive $pid] [mc_stat $r2 repl_partial_syncs] [mc_stat $r2 repl_role]
        } {1 1 replica}

        set d3 [tmpdir repl_replica3]
        start_server [list tags {repl} args [list --data-dir $d3 --replicaof 127.0.0.1:$::primary_port]] {
            test {replication: a new replica of a primary whose log starts after 0 resyncs in full} {
                set r3 [repl_connect_caught_up 0 $pfd]
                assert_equal [mc_stat $r3 repl_full_syncs] 1
                repl_assert_equal $pfd $r3
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
                repl_assert_equal $r1 $r2
                list [mc_stat $r2 repl_primary] [mc_stat $r2 repl_full_syncs] [mc_stat $r2 repl_lineage]
            } [list 127.0.0.1:[srv 0 port] 1 [mc_stat $r1 repl_lineage]]

            test {replication: the old primary, made a replica of the new one, continues on its lineage} {
                set pid [srv -2 pid]
                assert_equal [mc_exchange $pfd "replicaof 127.0.0.1 [srv 0 port]\r\n"] "OK\r\n"
                wait_for {![catch {set pfd [mc_connect_addr 127.0.0.1 $::primary_port]
                                   mc_stat $pfd repl_role} role] && $role eq "replica"} 200 50
                repl_assert_equal $r1 $pfd
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
    repl_setup_table $pfd
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
            repl_assert_equal $pfd $rfd
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
            repl_setup_table $pfd
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

# Under --fsync always a record no client waits for (the start-up's marks,
# a lease that runs out) is written within a second all the same, so an
# idle primary's replicas get it.
set dpa [tmpdir repl_primary_always]
set dra [tmpdir repl_replica_always]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dpa --fsync always]] {
    set pfd [mc_connect]
    set ::pport_a [srv port]
    start_server [list tags {repl} args [list --data-dir $dra --fsync always --replicaof 127.0.0.1:$::pport_a]] {
        set rfd [mc_connect]
        test {replication: under --fsync always an idle primary's start-up record reaches the replica} {
            repl_caught_up $pfd $rfd
            list [mc_stat $rfd repl_position] [expr {[mc_stat $pfd persist_log_position] > 0}]
        } [list [mc_stat $pfd persist_log_position] 1]

        test {replication: under --fsync always a lease that runs out on an idle primary reaches the replica} {
            q_push $pfd aq hello
            q_pop $pfd aq lease=1
            repl_caught_up $pfd $rfd
            assert_equal [dict get [q_stats $rfd aq] in_flight] 1
            wait_for {[dict get [q_stats $pfd aq] ready] == 1} 50 100
            repl_caught_up $pfd $rfd
            list [dict get [q_stats $rfd aq] ready] [dict get [q_stats $rfd aq] in_flight]
        } {1 0}
    }
}

# --replica-serve-stale no: while its link is not up a replica refuses
# every read of the keyspace (text, meta, binary) and still answers stats;
# once the link is up again it serves them.
set dps [tmpdir repl_primary_stale]
set drs [tmpdir repl_replica_stale]
set ::pport_s [free_port]
source [file join [srcdir] t support bin.tcl]
start_server [list tags {repl persist mcds-only} args [list --data-dir $drs --replica-serve-stale no --replicaof 127.0.0.1:$::pport_s]] {
    set rfd [mc_connect]
    start_server [list tags {repl} args [list --data-dir $dps -p $::pport_s]] {
        set pfd [mc_connect]
        test {replication: --replica-serve-stale no: a replica whose link is up serves reads} {
            q_push $pfd sq hello
            l_push $pfd rpush sl {a b}
            repl_caught_up $pfd $rfd
            list [mc_exchange $rfd "qpeek sq\r\nllen sl\r\n"] [mc_stat $rfd repl_serve_stale]
        } [list "ITEM 1 0 5 0\r\nhello\r\nEND\r\n2\r\n" no]
        kill_pid [srv pid] KILL
        wait_server_exit
    }
    test {replication: --replica-serve-stale no: with its link down a replica refuses reads, serves stats} {
        wait_for {[mc_stat $rfd repl_link] ne "up"} 100 50
        set stale "SERVER_ERROR stale replica: its link to its primary is not up\r\n"
        set out {}
        foreach line {"get a" "gets a b" "mg a v" "me a" "qpeek sq" "qstats sq" "qlist" "llen sl" "lrange sl 0 10"
                      "ctget c 1 103 x" "kscan 0" "tget t 1" "tlist"} {
            lappend out [expr {[mc_exchange $rfd "$line\r\n"] eq $stale}]
        }
        set g [bin_cmd [mc_connect] [bin_pkt GET -key a]]
        list [lsort -unique $out] [dict get $g value] [string match "SERVER_ERROR read-only*" [mc_exchange $rfd "set a 0 0 1\r\nx\r\n"]] \
            [mc_exchange $rfd "mn\r\n"] [expr {[mc_stat $rfd repl_link] ne "up"}]
    } [list 1 {Internal error: stale replica} 1 "MN\r\n" 1]
    start_server [list tags {repl} args [list --data-dir $dps -p $::pport_s]] {
        test {replication: --replica-serve-stale no: once the link is up again reads are served} {
            wait_for {[mc_stat $rfd repl_link] eq "up"} 400 50
            mc_exchange $rfd "llen sl\r\n"
        } "2\r\n"
    }
}

# A server started with -d (in the background) and -P that is made a
# replica restarts in place: the same pid, in the background, its pid file
# unchanged (it does not fork again, as -d would).
set dpd [tmpdir repl_primary_d]
set drd [tmpdir repl_daemon_d]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dpd]] {
    set pfd [mc_connect]
    test {replication: a -d server made a replica restarts in place with its pid, not forking again} {
        q_push $pfd dq one
        set port [free_port]
        set pidfile [file join $drd pid]
        lassign [run_server_cmd -d -P $pidfile -p $port -l 127.0.0.1 --data-dir [file join $drd data] --log-file [file join $drd log]] status out
        assert_equal $status 0 $out
        set pid [string trim [read_file $pidfile]]
        register_pid $pid
        set dfd [mc_connect_addr 127.0.0.1 $port]
        assert_equal [mc_exchange $dfd "replicaof 127.0.0.1 [srv port]\r\n"] "OK\r\n"
        wait_for {![catch {set dfd [mc_connect_addr 127.0.0.1 $port]
                           expr {[mc_stat $dfd repl_link] eq "up"}} ok] && $ok} 200 50
        set out [list [pid_alive $pid] [string trim [read_file $pidfile]] [mc_stat $dfd pid] \
                     [dict get [q_stats $dfd dq] ready] [regexp {restarting in place} [read_file [file join $drd log]]]]
        kill_pid $pid TERM
        wait_for {![pid_alive $pid]} 100 50
        unregister_pid $pid
        expr {$out eq [list 1 $pid $pid 1 1]}
    } 1
}

# A message a Kestrel open read held when the primary was killed goes
# back to its queue at the primary's restart, by a record its replicas
# apply too.
set dpk [tmpdir repl_primary_k]
set drk [tmpdir repl_replica_k]
set ::pport_k [free_port]
start_server [list tags {repl persist mcds-only} args [list --data-dir $drk --replicaof 127.0.0.1:$::pport_k]] {
    set rfd [mc_connect]
    start_server [list tags {repl} args [list --data-dir $dpk -p $::pport_k]] {
        set pfd [mc_connect]
        test {replication: a Kestrel open read held at the primary's kill} {
            q_push $pfd kq one
            q_push $pfd kq two
            set kfd [mc_connect]
            assert_match "VALUE kq/open 0 3*" [mc_exchange $kfd "get kq/open\r\n"]
            repl_caught_up $pfd $rfd
            set st [q_stats $rfd kq]
            kill_pid [srv pid] KILL
            wait_server_exit
            list [dict get $st ready] [dict get $st in_flight]
        } {1 1}
    }
    start_server [list tags {repl} args [list --data-dir $dpk -p $::pport_k]] {
        set pfd [mc_connect]
        test {replication: ... is given back at the primary's restart, on the replica too} {
            wait_for {[mc_stat $rfd repl_link] eq "up"} 400 50
            repl_caught_up $pfd $rfd
            list [dict get [q_stats $pfd kq] ready] [dict get [q_stats $pfd kq] in_flight] \
                [dict get [q_stats $rfd kq] ready] [dict get [q_stats $rfd kq] in_flight] \
                [expr {[mc_exchange $rfd "qpeek kq 5\r\n"] eq [mc_exchange $pfd "qpeek kq 5\r\n"]}]
        } {2 0 2 0 1}
    }
}

# A replica checks every record's checksum (a sender checks only the
# framing): a fake primary streams a real primary's log with its last
# record's last byte flipped. The replica applies what precedes it, not
# that record, logs why, and asks again from there; given the true bytes
# on its next connection it has the record.
proc rc_fake_accept {chan addr port} {
    fconfigure $chan -translation binary -blocking 1
    set line [gets $chan]
    regexp {^psync (\S+) (\d+)} $line -> lineage pos
    lappend ::rc_asked $pos
    set bytes [string range $::rc_log $pos end]
    if {[llength $::rc_asked] == 1} {
        set last [expr {[string length $bytes] - 1}]
        binary scan [string index $bytes $last] c b
        set bytes [string replace $bytes $last $last [binary format c [expr {$b ^ 1}]]]
    }
    puts -nonewline $chan "CONTINUE $::rc_lineage $pos\r\nLOG [string length $bytes]\r\n$bytes"
    flush $chan
    lappend ::rc_chans $chan
}

set dq [tmpdir repl_crc_p]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dq --persist-items --fsync always]] {
    set pfd [mc_connect]
    assert_equal [mc_set $pfd crc_a one] STORED
    assert_equal [mc_set $pfd crc_b two] STORED
    set ::rc_lineage [string repeat ab 16]
    set f [open [file join $dq log.0000000000000000] rb]
    set ::rc_log [read $f [mc_stat $pfd persist_log_position]]
    close $f
    set ::rc_asked {}
    set ::rc_chans {}
    set fake [socket -server rc_fake_accept -myaddr 127.0.0.1 0]
    set fport [lindex [fconfigure $fake -sockname] 2]
    start_server [list tags {repl} args [list --data-dir [tmpdir repl_crc_r] --persist-items \
            --replicaof 127.0.0.1:$fport]] {
        test {replication: a record whose checksum does not match is not applied; the replica asks again from it} {
            wait_for {[llength $::rc_asked] >= 2} 300 50
            set rfd [mc_connect]
            wait_for {[mc_stat $rfd repl_position] == [string length $::rc_log]} 200 50
            list [expr {[lindex $::rc_asked 0] == 0}] \
                [expr {[lindex $::rc_asked 1] > 0 && [lindex $::rc_asked 1] < [string length $::rc_log]}] \
                [string match "*are not a whole log record*" [read_file [srv stderr]]] \
                [mc_get $rfd crc_a] [mc_get $rfd crc_b]
        } {1 1 1 one two}
    }
    foreach c $::rc_chans { catch {close $c} }
    close $fake
}

# --replica-max-lag: with --replica-serve-stale no, a replica whose link
# is up but that has been behind its primary for longer refuses reads
# until it has caught up. A fake primary streams a real primary's first
# change, says it has written the second too (PING), and sends it later.
proc rl_fake_accept {chan addr port} {
    fconfigure $chan -translation binary -blocking 1
    gets $chan
    set ::rl_chan $chan
    puts -nonewline $chan "CONTINUE $::rl_lineage 0\r\nLOG $::rl_p1\r\n[string range $::rl_log 0 [expr {$::rl_p1 - 1}]]"
    flush $chan
}

set dq [tmpdir repl_lag_p]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dq --persist-items --fsync always]] {
    set pfd [mc_connect]
    assert_equal [mc_set $pfd lag_a one] STORED
    set ::rl_p1 [mc_stat $pfd persist_log_position]
    assert_equal [mc_set $pfd lag_b two] STORED
    set p2 [mc_stat $pfd persist_log_position]
    set ::rl_lineage [string repeat cd 16]
    set f [open [file join $dq log.0000000000000000] rb]
    set ::rl_log [read $f $p2]
    close $f
    set ::rl_behind "SERVER_ERROR stale replica: behind its primary longer than --replica-max-lag\r\n"
    set fake [socket -server rl_fake_accept -myaddr 127.0.0.1 0]
    set fport [lindex [fconfigure $fake -sockname] 2]
    start_server [list tags {repl} args [list --data-dir [tmpdir repl_lag_r] --persist-items \
            --replica-serve-stale no --replica-max-lag 1 --replicaof 127.0.0.1:$fport]] {
        test {replication: a replica behind its primary longer than --replica-max-lag refuses reads until it catches up} {
            set rfd [mc_connect]
            wait_for {[mc_stat $rfd repl_position] == $::rl_p1 && [mc_stat $rfd repl_link] eq "up"} 200 50
            set out [list [mc_get $rfd lag_a] [mc_stat $rfd repl_max_lag]]
            puts -nonewline $::rl_chan "PING $p2 [clock milliseconds]\r\n"
            flush $::rl_chan
            wait_for {[mc_exchange $rfd "get lag_a\r\n"] eq $::rl_behind} 100 50
            set bfd [mc_connect]
            lappend out [mc_exchange $rfd "mg lag_a v\r\nllen nol\r\nset lag_c 0 0 1\r\nx\r\n"] \
                [expr {[mc_stat $rfd repl_lag_seconds] >= 1}] [mc_stat $rfd repl_link] \
                [bin_show [bin_cmd $bfd [bin_pkt GET -key lag_a]]]
            mc_close $bfd
            puts -nonewline $::rl_chan "LOG [expr {$p2 - $::rl_p1}]\r\n[string range $::rl_log $::rl_p1 end]"
            flush $::rl_chan
            wait_for {[mc_stat $rfd repl_position] == $p2} 200 50
            lappend out [mc_get $rfd lag_a] [mc_get $rfd lag_b] [mc_stat $rfd repl_lag_seconds]
        } [list one 1 \
               "$::rl_behind${::rl_behind}SERVER_ERROR read-only replica of 127.0.0.1:$fport\r\n" \
               1 up {GET 132 {Internal error: stale replica}} one two 0]
    }
    catch {close $::rl_chan}
    close $fake
}
