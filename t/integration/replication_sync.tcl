# Synchronous acknowledgement (doc/replication.md, "Guarantees and
# synchronous acknowledgement"; doc/protocol.md section 8): with
# --min-replicas-ack N a change is answered once N replicas have it, and
# is then readable on them; a stopped replica makes changes time out
# with the error while they stay on the primary; too few replicas (none
# yet, one killed while changes wait) answer at once; `wait` counts; a
# shutdown answers the changes that wait.

source [file join [srcdir] t support repl.tcl]

set ::unconfirmed "SERVER_ERROR changed on the primary, not confirmed by enough replicas"
set ::unconf "$::unconfirmed\r\n"

# The arguments of a primary in dir whose changes wait for n replicas
# up to ms, and of a replica in dir of the primary on port.
proc rs_primary {dir n ms args} {
    list tags {repl persist mcds-only} args [list --data-dir $dir --persist-items \
        --min-replicas-ack $n --min-replicas-timeout $ms {*}$args]
}
proc rs_replica {dir port} {
    list tags {repl} args [list --data-dir $dir --persist-items --replicaof 127.0.0.1:$port]
}

# Runs body in the caller with process pid stopped (SIGSTOP), and lets
# it go on whatever body does: body's result.
proc rs_stopped {pid body} {
    kill_pid $pid STOP
    try {
        return [uplevel 1 $body]
    } finally {
        kill_pid $pid CONT
    }
}

# The reply to bytes on fd, and the milliseconds it took.
proc rs_timed {fd bytes} {
    set t0 [clock milliseconds]
    set r [mc_exchange $fd $bytes]
    list $r [expr {[clock milliseconds] - $t0}]
}

# Primary A: one replica must confirm; a long timeout, so that a
# confirmed change is never a slow machine's accident. -R 100: a
# connection's turn is longer than a batch of held changes.
set da [tmpdir rsync_a]
set da1 [tmpdir rsync_a1]
start_server [rs_primary $da 1 10000 -R 100] {
    set pfd [mc_connect]
    set ::pa [srv port]

    test {sync: with no replica connected a change is answered at once, not confirmed, and stays on the primary} {
        lassign [rs_timed $pfd "set early 0 0 1\r\nx\r\n"] r ms
        list $r [expr {$ms < 5000}] [mc_get $pfd early] [mc_exchange $pfd "get nothing\r\n"] \
            [mc_stat $pfd repl_sync_timeouts] [mc_stat $pfd repl_min_replicas_ack] \
            [mc_stat $pfd repl_min_replicas_timeout_ms]
    } [list $::unconf 1 x "END\r\n" 1 1 10000]

    start_server [rs_replica $da1 $::pa] {
        set rfd [repl_connect_caught_up 0 $pfd]
        set rpid [srv pid]

        test {sync: every acknowledged change of every structure is on the replica when its reply comes} {
            mc_exchange $pfd "ctdef 1 103\r\nctobj c0\r\n"
            set bad {}
            for {set i 0} {$i < 40} {incr i} {
                assert_equal [mc_set $pfd k$i v$i] STORED
                if {[mc_get $rfd k$i] ne "v$i"} { lappend bad set $i }
                assert_match "PUSHED *" [mc_exchange $pfd "qpush q 0 0 [string length m$i]\r\nm$i\r\n"]
                if {[dict get [q_stats $rfd q] pushed] != $i + 1} { lappend bad qpush $i }
                assert_equal [l_push $pfd rpush l [list e$i]] "[expr {$i + 1}]\r\n"
                if {[lindex [l_all $rfd l] end] ne "e$i"} { lappend bad rpush $i }
                assert_equal [mc_exchange $pfd "ctincr c0 1 103 @1609459200 1\r\n"] "STORED\r\n"
                if {[mc_exchange $rfd "ctvalues c0\r\n"] ne [mc_exchange $pfd "ctvalues c0\r\n"]} { lappend bad ctincr $i }
            }
            assert_equal [mc_exchange $pfd "delete k0\r\nincr n 1\r\nset n 0 0 1\r\n5\r\nincr n 2\r\n"] "DELETED\r\nNOT_FOUND\r\nSTORED\r\n7\r\n"
            lappend bad [mc_get $rfd k0] [mc_get $rfd n]
            assert_equal [mc_exchange $pfd "ms mk 2 T0\r\nhi\r\nmn\r\n"] "HD\r\nMN\r\n"
            lappend bad [mc_get $rfd mk]
            set bfd [mc_connect -1]
            lappend bad [bin_show [bin_set $bfd bk bv]] [mc_get $rfd bk]
            mc_close $bfd
            lappend bad [mc_stat $pfd repl_sync_timeouts] [mc_stat $pfd repl_sync_waiting]
        } {{} 7 hi {SET OK} bv 1 0}

        test {sync: reads and changes that change nothing do not wait for the replica} {
            lassign [rs_stopped $rpid {rs_timed $pfd "get k1\r\nadd k1 0 0 1\r\nz\r\ndelete nope\r\nqpeek q 1\r\n"}] r ms
            list $r [expr {$ms < 5000}]
        } [list "VALUE k1 0 2\r\nv1\r\nEND\r\nNOT_STORED\r\nNOT_FOUND\r\nITEM 1 0 2 0\r\nm0\r\nEND\r\n" 1]

        test {sync: wait counts the replicas that have this connection's last change} {
            set fresh [mc_connect -1]
            set out [list [mc_exchange $fresh "wait 1 0\r\n"] [mc_exchange $pfd "wait 1 5000\r\n"]]
            lassign [rs_timed $pfd "wait 2 300\r\n"] r ms
            lappend out $r [expr {$ms >= 290}] [mc_exchange $pfd "wait 0 0\r\n"]
            lappend out [mc_exchange $pfd "wait x 1\r\nwait 1\r\nwait 1 3600001\r\n"]
            lappend out [mc_exchange $rfd "wait 1 10\r\n"]
            mc_close $fresh
            set out
        } [list "1\r\n" "1\r\n" "1\r\n" 1 "1\r\n" "CLIENT_ERROR bad command line format\r\nERROR\r\nCLIENT_ERROR bad command line format\r\n" \
               "SERVER_ERROR not a primary: a replica serves no replica\r\n"]

        test {sync: a noreply change held while the replica is stopped goes on once it acknowledges} {
            set other [mc_connect -1]
            set out [rs_stopped $rpid {
                mc_send $pfd "set w 0 0 1 noreply\r\nx\r\n"
                after 100
                list [mc_stat $other repl_sync_waiting] [mc_get $other w]
            }]
            lappend out [mc_exchange $pfd "wait 1 5000\r\n"] [mc_get $rfd w] [mc_stat $other repl_sync_timeouts]
            mc_close $other
            set out
        } [list 1 x "1\r\n" x 1]

        test {sync: a pipeline of changes runs whole while the replica is away; its replies wait for one acknowledgement} {
            set other [mc_connect -1]
            set out [rs_stopped $rpid {
                set p ""
                for {set i 0} {$i < 10} {incr i} { append p "set pk$i 0 0 1\r\n$i\r\nget pk$i\r\n" }
                mc_send $pfd $p
                wait_for {[mc_get $other pk9] eq "9"} 100 50
                list [mc_stat $other repl_sync_waiting]
            }]
            set replies {}
            for {set i 0} {$i < 10} {incr i} {
                lappend replies [mc_readline $pfd] [mc_readline $pfd] [mc_readline $pfd] [mc_readline $pfd]
            }
            mc_close $other
            lappend out [lsort -unique [lmap {s v d e} $replies {list $s [lindex $v 0] $e}]] [lindex $replies end-1] \
                [mc_get $rfd pk9] [mc_stat $pfd repl_sync_timeouts] [mc_stat $pfd repl_sync_waiting]
        } [list 1 {{STORED VALUE END}} 9 9 1 0]

        test {sync: a connection stops after 32 changes that wait, and goes on once they are confirmed} {
            set other [mc_connect -1]
            set out [rs_stopped $rpid {
                set p ""
                for {set i 0} {$i < 40} {incr i} { append p "set pb$i 0 0 1\r\nx\r\n" }
                mc_send $pfd $p
                wait_for {[mc_get $other pb31] eq "x"} 100 50
                after 300
                list [mc_get $other pb32]
            }]
            set replies {}
            for {set i 0} {$i < 40} {incr i} { lappend replies [mc_readline $pfd] }
            mc_close $other
            lappend out [lsort -unique $replies] [mc_get $rfd pb39] [mc_stat $pfd repl_sync_timeouts]
        } [list {} STORED x 1]

        test {sync: a replica killed while a change waits: the change is answered at once, not confirmed} {
            kill_pid $rpid STOP
            set t0 [clock milliseconds]
            mc_send $pfd "qpush q 0 0 4\r\nlast\r\n"
            after 300
            kill_pid $rpid KILL
            wait_server_exit
            set r [mc_readline $pfd]
            list $r [expr {[clock milliseconds] - $t0 < 8000}] [dict get [q_stats $pfd q] pushed] \
                [mc_stat $pfd repl_replicas] [mc_stat $pfd repl_sync_waiting]
        } [list $::unconfirmed 1 41 0 0]
    }

    start_server [rs_replica $da1 $::pa] {
        set rfd [repl_connect_caught_up 0 $pfd]
        set rpid [srv pid]

        test {sync: a restarted replica catches up with what was not confirmed} {
            list [dict get [q_stats $rfd q] pushed] [mc_get $rfd early] [mc_get $rfd w]
        } {41 x x}

        test {sync: a shutdown while a change waits answers it, not confirmed, and exits cleanly} {
            set r [rs_stopped $rpid {
                mc_send $pfd "set late 0 0 1\r\ny\r\n"
                after 300
                kill_pid [srv -1 pid] TERM
                mc_readline $pfd
            }]
            list $r [wait_server_exit -1]
        } [list $::unconfirmed 0]
    }
}

# Primary B: two replicas must confirm, a short timeout.
set db [tmpdir rsync_b]
set db1 [tmpdir rsync_b1]
set db2 [tmpdir rsync_b2]
start_server [rs_primary $db 2 600] {
    set pfd [mc_connect]
    set ::pb [srv port]
    start_server [rs_replica $db1 $::pb] {
        start_server [rs_replica $db2 $::pb] {
            set r1 [repl_connect_caught_up -1 $pfd]
            set r2 [repl_connect_caught_up 0 $pfd]
            set r2pid [srv pid]

            test {sync: N=2 with one replica stopped: changes time out with the error, on the primary and the live replica} {
                rs_stopped $r2pid {
                    lassign [rs_timed $pfd "set s1 0 0 2\r\nv1\r\n"] r ms
                    set out [list $r [expr {$ms >= 590}] [mc_get $r1 s1]]
                    lappend out [mc_exchange $pfd "set s2 0 0 2 noreply\r\nv2\r\nget s2\r\n"]
                    lappend out [mc_exchange $pfd "ms s3 2 q\r\nv3\r\nmn\r\n"]
                    lappend out [mc_exchange $pfd "qpush bq 0 0 2\r\nm1\r\nlpush bl 1\r\nx\r\n"]
                    set bfd [mc_connect -2]
                    lappend out [bin_exchange $bfd [bin_pkt SETQ -key s4 -ext [bin_store_ext] -value v4 -opaque 7]]
                    mc_close $bfd
                    lappend out [mc_get $pfd s3] [mc_get $pfd s4] [dict get [q_stats $pfd bq] ready] [mc_get $r1 s4]
                    lappend out [mc_stat $pfd repl_sync_timeouts] [mc_stat $pfd repl_sync_waiting]
                }
            } [list $::unconf 1 v1 "VALUE s2 0 2\r\nv2\r\nEND\r\n" "${::unconf}MN\r\n" \
                   "$::unconf$::unconf" \
                   {{SETQ 132 {Internal error: changed on the primary, not confirmed by enough replicas}}} \
                   v3 v4 1 v4 6 0]

            test {sync: the stopped replica, continued, has every change that timed out} {
                set r2 [repl_connect_caught_up 0 $pfd]
                list [mc_get $r2 s1] [mc_get $r2 s2] [mc_get $r2 s3] [mc_get $r2 s4] [dict get [q_stats $r2 bq] ready] \
                    [mc_set $pfd both ok] [mc_get $r1 both] [mc_get $r2 both]
            } {v1 v2 v3 v4 1 STORED ok ok}

            test {sync: a pipeline that times out: each change's reply becomes the error where it stands, the reads between them answered} {
                set big [string repeat b 2000]
                assert_equal [mc_set $pfd big $big] STORED
                assert_equal [mc_exchange $pfd "rpush tl 2000\r\n$big\r\n"] "1\r\n"
                set t0 [mc_stat $pfd repl_sync_timeouts]
                set bfd [mc_connect -2]
                set out [rs_stopped $r2pid {
                    set r [mc_exchange $pfd [string cat "set t1 0 0 2\r\nv1\r\nget big\r\nincr nokey 1\r\n" \
                        "lpop tl\r\nget t1\r\nset t2 0 0 2 noreply\r\nv2\r\nms t3 2 q\r\nv3\r\n" \
                        "append big 0 0 1\r\nz\r\nmn\r\n"]]
                    set b [bin_exchange $bfd [string cat \
                        [bin_pkt SET -key b1 -ext [bin_store_ext] -value v -opaque 1] \
                        [bin_pkt GET -key big -opaque 2] [bin_pkt SETQ -key b2 -ext [bin_store_ext] -value w -opaque 3] \
                        [bin_pkt GETQ -key nokey -opaque 4] [bin_pkt DELETE -key b1 -opaque 5]]]
                    list [expr {$r eq [string cat $::unconf "VALUE big 0 2000\r\n$big\r\nEND\r\nNOT_FOUND\r\n" \
                                    $::unconf "VALUE t1 0 2\r\nv1\r\nEND\r\n" $::unconf $::unconf "MN\r\n"]}] $b
                }]
                mc_close $bfd
                set r2 [repl_connect_caught_up 0 $pfd]
                lappend out [expr {[mc_stat $pfd repl_sync_timeouts] - $t0}] [mc_get $r2 t1] [mc_get $r2 t2] [mc_get $r2 t3] \
                    [string length [mc_get $r2 big]] [mc_exchange $r2 "llen tl\r\n"] [mc_get $r2 b1] [mc_get $r2 b2]
            } [list 1 [list {SET 132 {Internal error: changed on the primary, not confirmed by enough replicas}} \
                          [list GET OK flags=0 "[string repeat b 2000]z"] \
                          {SETQ 132 {Internal error: changed on the primary, not confirmed by enough replicas}} \
                          {DELETE 132 {Internal error: changed on the primary, not confirmed by enough replicas}}] \
                   8 v1 v2 v3 2001 "0\r\n" {} w]

            test {sync: changes time out while a change's value is still arriving: every reply in its place} {
                # (a change's reply was placed by a mark that a reply replaced
                # before it had moved: found by a random pipelining check)
                set t0 [mc_stat $pfd repl_sync_timeouts]
                set big [string repeat y 2000]
                set out [rs_stopped $r2pid {
                    # m1 waits, m2's value is half read; the rest comes while the
                    # connection is held (it reads nothing then), before m1 times out
                    mc_send $pfd "get m1\r\nset m1 0 0 1\r\nx\r\nset m2 0 0 2000\r\n[string range $big 0 999]"
                    after 200
                    mc_exchange $pfd "[string range $big 1000 end]\r\nget m1\r\nms m3 2 q\r\nhi\r\nmn\r\n"
                }]
                list [expr {$out eq [string cat "END\r\n" $::unconf $::unconf \
                                          "VALUE m1 0 1\r\nx\r\nEND\r\n" $::unconf "MN\r\n"]}] \
                    [string length [mc_get $pfd m2]] [expr {[mc_stat $pfd repl_sync_timeouts] - $t0}]
            } {1 2000 3}

            test {sync: N=2 with one replica down: changes are answered at once, not confirmed} {
                kill_pid $r2pid KILL
                wait_server_exit
                wait_for {[mc_stat $pfd repl_replicas] == 1} 100 50
                lassign [rs_timed $pfd "set d1 0 0 1\r\nx\r\n"] r ms
                list $r [expr {$ms < 590}] [mc_exchange $pfd "wait 1 5000\r\n"] [mc_get $r1 d1]
            } [list $::unconf 1 "1\r\n" x]
        }
    }
}

# Primary C: a change waits for its stopped replica when the primary is
# told to become a replica (a restart in place): the change is answered
# first, not confirmed.
set dc [tmpdir rsync_c]
set dc1 [tmpdir rsync_c1]
start_server [rs_primary $dc 1 10000] {
    set pfd [mc_connect]
    set ::pc [srv port]
    start_server [rs_replica $dc1 $::pc] {
        set rfd [repl_connect_caught_up 0 $pfd]
        set rpid [srv pid]

        test {sync: a primary made a replica while a change waits answers it first, not confirmed} {
            set out [rs_stopped $rpid {
                set t0 [clock milliseconds]
                mc_send $pfd "set c1 0 0 1\r\nx\r\n"
                after 200
                set other [mc_connect -1]
                list [mc_exchange $other "replicaof 127.0.0.1 [free_port]\r\n"] [mc_readline $pfd] \
                    [expr {[clock milliseconds] - $t0 < 8000}]
            }]
            # the restart in place is over (it is stopped only once it serves again)
            wait_for {![catch {mc_stat [repl_connect -1] repl_role} role] && $role eq "replica"} 200 50
            set out
        } [list "OK\r\n" $::unconfirmed 1]
    }
}

# Primary D: --fsync always on both ends: a reply waits for the primary's
# fsync and for the replica's acknowledgement, which comes after its own.
set dd [tmpdir rsync_d]
set dd1 [tmpdir rsync_d1]
start_server [list tags {repl persist mcds-only} args [list --data-dir $dd --persist-items --fsync always \
        --min-replicas-ack 1 --min-replicas-timeout 10000]] {
    set pfd [mc_connect]
    set ::pd [srv port]
    start_server [list tags {repl} args [list --data-dir $dd1 --persist-items --fsync always --replicaof 127.0.0.1:$::pd]] {
        set rfd [repl_connect_caught_up 0 $pfd]

        test {sync: with --fsync always on both ends a confirmed change is synced on the primary and on the replica} {
            set bad {}
            for {set i 0} {$i < 20} {incr i} {
                assert_equal [mc_set $pfd f$i v$i] STORED
                if {[mc_get $rfd f$i] ne "v$i"} { lappend bad $i }
                if {[mc_stat $pfd persist_log_synced] != [mc_stat $pfd persist_log_position]} { lappend bad p$i }
            }
            list $bad [expr {[mc_stat $rfd persist_log_synced] >= [mc_stat $rfd repl_position]}] \
                [mc_stat $pfd repl_sync_timeouts] [mc_stat $pfd persist_replies_waiting]
        } {{} 1 0 0}
    }
}

# A replica started with --min-replicas-ack (as every machine of a
# failover set is) promoted while no replica follows it: the promotion's
# own records wait for no replica, so replicaof no one answers OK (not the
# "not confirmed" error its marks would get after the timeout);
# its first client change then waits as any other.
set de [tmpdir rsync_e]
set de1 [tmpdir rsync_e1]
start_server [rs_primary $de 1 2000] {
    set pfd [mc_connect]
    set ::pe [srv port]
    start_server [list tags {repl} args [list --data-dir $de1 --persist-items --replicaof 127.0.0.1:$::pe \
            --min-replicas-ack 1 --min-replicas-timeout 2000]] {
        set rfd [repl_connect_caught_up 0 $pfd]
        test {sync: a replica promoted with --min-replicas-ack answers OK at once; its first change waits as any} {
            list [mc_exchange $rfd "replicaof no one\r\n"] [mc_stat $rfd repl_role] [mc_exchange $rfd "set z 0 0 1\r\nz\r\n"] \
                [mc_stat $rfd repl_sync_timeouts]
        } [list "OK\r\n" primary "SERVER_ERROR changed on the primary, not confirmed by enough replicas\r\n" 1]
    }
}

# Blocking pops and pushes from many connections while every change waits
# for the replica: the replicas' acknowledgements wake the workers' held
# connections from the senders' threads, while pushes wake parked pops.
# The held connections' wake was queued twice in a worker's list of calls
# (a direct release cleared its "queued" mark), which cut the list and
# lost or freed parked pops' wakes: heap corruption (found by the
# replication benchmark, ASan: use after free in worker_post).
set df [tmpdir rsync_f]
set df1 [tmpdir rsync_f1]
start_server [rs_primary $df 1 5000] {
    set pfd [mc_connect]
    set ::pf [srv port]
    start_server [rs_replica $df1 $::pf] {
        set rfd [repl_connect_caught_up 0 $pfd]
        test {sync: 50 connections pushing and blocking on pops for 4 s: no error, the server stays up, the replica equal} {
            set bench [file join [builddir] contrib bench mcds-bench]
            if {![file executable $bench]} { skip "mcds-bench is not built" }
            set h [exec_bg $bench -s 127.0.0.1:$::pf -q --csv -t 2 -c 25 -d 4 -w 0 --timeout 60 -W queue -S 32 --queues 1 --producers 1]
            set line [lindex [split [string trim [wait_bg $h 60]] \n] end]
            set names [split [string trim [exec $bench --csv-header]] ,]
            set d [dict create]
            foreach n $names v [split $line ,] { dict set d $n $v }
            repl_caught_up $pfd $rfd
            set same 1
            foreach f {ready in_flight pushed acked} {
                if {[dict get [q_stats $rfd q.0] $f] != [dict get [q_stats $pfd q.0] $f]} { set same 0 }
            }
            list [expr {[dict get $d ops] > 0}] [dict get $d errors] [mc_exchange $pfd "mn\r\n"] $same
        } [list 1 0 "MN\r\n" 1]
    }
}
