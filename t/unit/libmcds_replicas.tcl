# libmcds over replica sets (doc/replication.md, "Clients"): server list
# entries that name replicas ("P=R"), writes that follow a promotion,
# reads from replicas (mcds_set_read_replicas), no retry once a request
# was sent, and hostile refusals. client/tests/test_replicas checks the
# parsing by itself; for the rest it runs as a shell (one handle driven by
# lines on stdin, one reply line each) while this unit kills, promotes and
# restarts real servers on loopback, or plays fake servers in this
# process (serviced while it waits for the shell's reply).

source [file join [srcdir] t support repl.tcl]
source [file join [srcdir] t support libmcds.tcl]

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

proc rs_bin {} {
    set bin [file join [builddir] client tests test_replicas]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    return $bin
}

# rs_shell servers: a running test_replicas shell on servers (under
# valgrind with --valgrind); its stderr goes to a file rs_close reads.
proc rs_shell {servers} {
    set cmd [list [rs_bin] shell $servers]
    if {$::cfg(valgrind)} {
        set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
            --error-exitcode=99 {*}$cmd]
    }
    set log [file join [unit_tmpdir] rs_shell[incr ::rs_seq].err]
    set ch [open "|[list {*}$cmd] 2>$log" r+]
    fconfigure $ch -buffering line -blocking 0 -translation lf
    foreach p [pid $ch] { register_pid $p }
    set ::rs($ch,log) $log
    assert_equal [rs_read $ch] READY
    if {$::cfg(valgrind)} { assert_equal [rs_call $ch "io [expr {2000 * [time_factor]}]"] "OK -" }
    return $ch
}
set ::rs_seq 0

proc rs__readable {ch} {
    if {[gets $ch line] >= 0} {
        set ::rs($ch,done) $line
    } elseif {[eof $ch]} {
        set ::rs($ch,done) "EOF [read_file $::rs($ch,log)]"
    }
}

# The shell's next line, events serviced meanwhile.
proc rs_read {ch} {
    set ::rs($ch,done) {}
    fileevent $ch readable [list rs__readable $ch]
    set id [after [expr {60000 * [time_factor]}] [list set ::rs($ch,done) "TIMEOUT"]]
    vwait ::rs($ch,done)
    after cancel $id
    fileevent $ch readable {}
    return $::rs($ch,done)
}

# rs_call ch line: sends a command, returns its reply line.
proc rs_call {ch line} {
    puts $ch $line
    rs_read $ch
}

# Ends the shell; fails the test when it exited non-zero (valgrind: 99).
proc rs_close {ch} {
    puts $ch quit
    fconfigure $ch -blocking 1
    set status 0
    if {[catch {close $ch} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] in {CHILDSTATUS CHILDKILLED}} { set status [lindex $code 2] }
    }
    set out [read_file $::rs($ch,log)]
    array unset ::rs $ch,*
    if {$status ne "0"} { fail "test_replicas shell exited $status: $out" }
}

# ---- fake servers: a listening socket in this process ----

# fake_start answer ?port?: a fake server's port (port, when given: one
# just freed). It answers the probe (qstats mcds:probe) with END and every
# other request line with answer, a data block after a storage line
# skipped; answer "close" closes the connection instead, "silent" answers
# nothing. ::fake(<port>,n) counts the request lines, ::fake(<port>,lines)
# holds them, ::fake(<port>,conns) counts the connections accepted.
proc fake_start {answer {port 0}} {
    set s [socket -server [list fake__accept $answer] -myaddr 127.0.0.1 $port]
    set port [lindex [fconfigure $s -sockname] 2]
    set ::fake($port,sock) $s
    set ::fake($port,n) 0
    set ::fake($port,conns) 0
    set ::fake($port,lines) {}
    return $port
}

proc fake_stop {port} {
    close $::fake($port,sock)
    foreach c [array names ::fake_conn] {
        if {$::fake_conn($c) == $port} { catch {close $c}; unset ::fake_conn($c) }
    }
}

proc fake__accept {answer c addr p} {
    set ::fake_conn($c) [lindex [fconfigure $c -sockname] 2]
    incr ::fake($::fake_conn($c),conns)
    fconfigure $c -translation binary -blocking 0 -buffering none
    fileevent $c readable [list fake__line $answer $c 0]
}

proc fake__line {answer c skip} {
    if {[gets $c line] < 0} {
        if {[eof $c]} { catch {close $c}; unset -nocomplain ::fake_conn($c) }
        return
    }
    if {$skip} {
        fileevent $c readable [list fake__line $answer $c 0]
        return
    }
    set line [string trimright $line \r]
    if {[string match "qstats mcds:probe" $line]} {
        puts -nonewline $c "END\r\n"
        return
    }
    set port $::fake_conn($c)
    incr ::fake($port,n)
    lappend ::fake($port,lines) $line
    if {[lindex $line 0] in {set add cas append qpush}} {
        fileevent $c readable [list fake__line $answer $c 1]
    }
    switch -- $answer {
        close { catch {close $c}; unset -nocomplain ::fake_conn($c) }
        silent {}
        default { puts -nonewline $c "$answer\r\n" }
    }
}

# ---- parsing ----

test {replica sets: good and bad lists, and 1,000 keys placed by the first address} {
    lassign [run_cmd 60 [rs_bin] parse] status out
    if {$status ne "0"} { fail "test_replicas parse exited $status:\n$out" }
    expr {[regexp -all -line {^ok - } $out] >= 24}
} 1

# ---- a primary and a replica ----

set dp [tmpdir rs_primary]
set dr [tmpdir rs_replica]
start_server [list tags {libmcds repl mcds-only} args [list --data-dir $dp --persist-items]] {
    set pfd [mc_connect]
    set pport [srv port]
    start_server [list tags {libmcds repl} args [list --data-dir $dr --persist-items --replicaof 127.0.0.1:$pport]] {
        set rfd [mc_connect]
        set rport [srv port]
        set h [rs_shell 127.0.0.1:$pport=127.0.0.1:$rport]

        test {replica sets: writes through P=R land on P and reach R} {
            set before [mc_stat $pfd cmd_set]
            set r [list [rs_call $h "ctrset w1 42"] [lindex [rs_call $h "qpush wq hello"] 0] [rs_call $h "rpush wl a"]]
            repl_caught_up $pfd $rfd
            set hr [rs_shell 127.0.0.1:$rport]
            lappend r [expr {[mc_stat $pfd cmd_set] - $before}] [mc_stat $rfd cmd_set] \
                [rs_call $hr "ctrget w1"] [rs_call $hr "qready wq"] [rs_call $hr "llen wl"]
            rs_close $hr
            set r
        } {{OK -} OK {OK 1} 1 0 {OK 42} {OK 1} {OK 1}}

        test {replica sets: by default reads go to the primary} {
            set pg [mc_stat $pfd cmd_get]
            set rg [mc_stat $rfd cmd_get]
            list [rs_call $h "ctrget w1"] [expr {[mc_stat $pfd cmd_get] - $pg}] [expr {[mc_stat $rfd cmd_get] - $rg}]
        } {{OK 42} 1 0}

        test {replica sets: with read-replicas on, reads are answered by the replica} {
            set pg [mc_stat $pfd cmd_get]
            set rg [mc_stat $rfd cmd_get]
            set r [list [rs_call $h "readreplicas 1"]]
            for {set i 0} {$i < 5} {incr i} { lappend r [rs_call $h "ctrget w1"] }
            lappend r [rs_call $h "qready wq"] [rs_call $h "llen wl"]
            lappend r [expr {[mc_stat $pfd cmd_get] - $pg}] [expr {[mc_stat $rfd cmd_get] - $rg}]
        } {{OK -} {OK 42} {OK 42} {OK 42} {OK 42} {OK 42} {OK 1} {OK 1} 0 5}

        test {replica sets: with read-replicas on, a lease (qpop) and a write take effect on the primary} {
            set r [list [rs_call $h "qpop wq"] [rs_call $h "ctrset w1 43"]]
            repl_caught_up $pfd $rfd
            lappend r [dict get [q_stats $pfd wq] in_flight] [dict get [q_stats $rfd wq] in_flight] \
                [rs_call $h "ctrget w1"]
        } {{OK 1} {OK -} 1 1 {OK 43}}

        test {replica sets: reads fall back to the primary when the replica is stopped} {
            set pg [mc_stat $pfd cmd_get]
            kill_pid [srv pid] KILL
            wait_server_exit
            list [rs_call $h "ctrget w1"] [rs_call $h "llen wl"] [rs_call $h "ctrget w1"] \
                [expr {[mc_stat $pfd cmd_get] - $pg}]
        } {{OK 43} {OK 1} {OK 43} 2}
        rs_close $h
    }
}

# ---- every structure's program through a replica set ----

# The classic requests of locks, counters, logs, arrays and tables (kvx.c)
# and the extended verbs, all on the primary. Under --valgrind the
# programs run under valgrind (libmcds_prog_run) but these two servers do
# not (valgrind 0): a primary that logs and streams to a replica, under
# valgrind, answers eight contending workers slower than their 2 s I/O
# timeout.
set dp3 [tmpdir rs_primary3]
set dr3 [tmpdir rs_replica3]
start_server [list tags {libmcds repl mcds-only} valgrind 0 args [list --data-dir $dp3 --persist-items]] {
    set pport [srv port]
    start_server [list tags {libmcds repl} valgrind 0 args [list --data-dir $dr3 --persist-items --replicaof 127.0.0.1:$pport]] {
        set rport [srv port]
        foreach {prog min} {test_lock 8 test_counter 6 test_sequence 3 test_eventlog 9 test_array 4
                            test_oparray 5 test_table 7 test_list 10 test_ctree 12 test_trows 5
                            test_queue_move 6 test_queue_info 11} {
            test "replica sets: $prog through P=R" {
                expr {[libmcds_prog_run $prog 127.0.0.1:$pport=127.0.0.1:$rport $min] >= $min}
            } 1
        }
    }
}

# ---- promotion ----

set dp2 [tmpdir rs_primary2]
set dr2 [tmpdir rs_replica2]
set ::rs_pport [free_port]
start_server [list tags {libmcds repl mcds-only} args [list --data-dir $dr2 --persist-items --replicaof 127.0.0.1:$::rs_pport]] {
    set rfd [mc_connect]
    set ::rs_rport [srv port]
    set ::rs_list 127.0.0.1:$::rs_pport=127.0.0.1:$::rs_rport
    start_server [list tags {libmcds repl} args [list --data-dir $dp2 --persist-items -p $::rs_pport]] {
        set pfd [mc_connect]
        set ::rs_h1 [rs_shell $::rs_list]

        test {replica sets: after kill -9 of P and "replicaof no one" on R, a write through the same handle lands on R} {
            set r [list [rs_call $::rs_h1 "ctrset p1 1"] [lindex [rs_call $::rs_h1 "qpush pq one"] 0]]
            repl_caught_up $pfd $rfd
            kill_pid [srv pid] KILL
            wait_server_exit
            assert_equal [mc_exchange $rfd "replicaof no one\r\n"] "OK\r\n"
            lappend r [rs_call $::rs_h1 "ctrset p1 2"] [lindex [rs_call $::rs_h1 "qpush pq two"] 0] \
                [mc_stat $rfd repl_role] [dict get [q_stats $rfd pq] ready] [rs_call $::rs_h1 "ctrget p1"]
        } {{OK -} OK {OK -} OK primary 2 {OK 2}}
    }
    start_server [list tags {libmcds repl} args [list --data-dir $dp2 --persist-items -p $::rs_pport --replicaof 127.0.0.1:$::rs_rport]] {
        test {replica sets: P back as R's replica: a handle that believes P primary is redirected by the refusal and writes on R} {
            set pfd [repl_connect_caught_up 0 $rfd]
            set refusal [mc_exchange $pfd "qpush pq 0 0 1\r\nx\r\n"]
            set h2 [rs_shell $::rs_list]
            set r [list $refusal [rs_call $h2 "ctrset p2 5"] [lindex [rs_call $h2 "qpush pq three"] 0] [rs_call $h2 "ctrset p2 6"]]
            rs_close $h2
            lappend r [dict get [q_stats $rfd pq] ready] [rs_call $::rs_h1 "ctrget p2"] [lindex [rs_call $::rs_h1 "qpush pq four"] 0]
            repl_caught_up $rfd $pfd
            lappend r [dict get [q_stats $pfd pq] ready]
        } [list "SERVER_ERROR read-only replica of 127.0.0.1:$::rs_rport\r\n" {OK -} OK {OK -} 3 {OK 6} OK 4]
    }
    rs_close $::rs_h1
}

# ---- no retry once the request was sent ----

start_server {tags {libmcds mcds-only}} {
    set rfd [mc_connect]
    set rport [srv port]

    test {replica sets: a server that closes the connection after reading a write gets it once; the call fails} {
        set f [fake_start close]
        set h [rs_shell 127.0.0.1:$f=127.0.0.1:$rport]
        set r [list [lindex [rs_call $h "ctrset once 1"] 0] $::fake($f,n) \
                   [lindex [rs_call $h "qpush onceq m"] 0] $::fake($f,n) [lmap l $::fake($f,lines) {lindex $l 0}]]
        rs_close $h
        fake_stop $f
        lappend r [mc_exchange $rfd "get mcds:ctr:once\r\nqstats onceq\r\n"]
    } [list SERVER_DOWN 1 SERVER_DOWN 2 {set qpush} "END\r\nNOT_FOUND\r\n"]

    test {replica sets: a timeout waiting for the reply is not retried either} {
        set f [fake_start silent]
        set h [rs_shell 127.0.0.1:$f=127.0.0.1:$rport]
        set r [list [rs_call $h "io 300"] [lindex [rs_call $h "ctrset slow 1"] 0] $::fake($f,n)]
        rs_close $h
        fake_stop $f
        lappend r [mc_exchange $rfd "get mcds:ctr:slow\r\n"]
    } [list {OK -} SERVER_DOWN 1 "END\r\n"]

    test {replica sets: a refusal naming a server outside the list: the call goes there, and so do the next ones} {
        set f [fake_start "SERVER_ERROR read-only replica of 127.0.0.1:$rport"]
        set h [rs_shell 127.0.0.1:$f=127.0.0.1:[free_port]]
        set r [list [rs_call $h "ctrset out 3"] [rs_call $h "ctrget out"] [lindex [rs_call $h "qpush outq m"] 0] \
                   $::fake($f,n)]
        rs_close $h
        fake_stop $f
        lappend r [dict get [q_stats $rfd outq] ready]
    } {{OK -} {OK 3} OK 1 1}

    test {replica sets: a replica that refuses reads as stale is skipped, the primary answers; a lease and a write never go to the replica} {
        set f [fake_start "SERVER_ERROR stale replica: its link to its primary is not up"]
        set h [rs_shell 127.0.0.1:$rport=127.0.0.1:$f]
        # reconnect 0: the replica is asked by every read (it is not left alone)
        assert_equal [rs_call $h "reconnect 0"] "OK -"
        set r [list [rs_call $h "ctrset st 9"] [lindex [rs_call $h "qpush stq a"] 0] [rs_call $h "readreplicas 1"] \
                   [rs_call $h "ctrget st"] [rs_call $h "qready stq"] [rs_call $h "ctrget st"] \
                   [rs_call $h "qpop stq"] [rs_call $h "ctrset st 10"]]
        rs_close $h
        fake_stop $f
        lappend r $::fake($f,n) [lsort -unique [lmap l $::fake($f,lines) {lindex $l 0}]]
    } {{OK -} OK {OK -} {OK 9} {OK 1} {OK 9} {OK 1} {OK -} 3 {gets qstats}}
}

# ---- hostile refusals ----

test {replica sets: a refusal naming a garbage address ends within the retry timeout with the refusal} {
    set f1 [fake_start "SERVER_ERROR read-only replica of x"]
    set f2 [fake_start "SERVER_ERROR read-only replica of \[::1"]
    set h [rs_shell 127.0.0.1:$f1=127.0.0.1:$f2]
    set r [list [rs_call $h "retry 300"]]
    foreach c {"ctrset g 1" "qpush gq m"} {
        lappend r [regexp {^SERVER_ERROR 127.0.0.1:\d+: SERVER_ERROR read-only replica of (x|\[::1)$} [rs_call $h $c]]
    }
    rs_close $h
    fake_stop $f1
    fake_stop $f2
    lappend r [expr {$::fake($f1,n) >= 1 && $::fake($f2,n) >= 1}]
} {{OK -} 1 1 1}

test {replica sets: two replicas that redirect to each other end within the retry timeout} {
    set f1 [fake_start "placeholder"]
    set f2 [fake_start "SERVER_ERROR read-only replica of 127.0.0.1:$f1"]
    # f1 names f2: started again with the answer that needs f2's port
    fake_stop $f1
    set s [socket -server [list fake__accept "SERVER_ERROR read-only replica of 127.0.0.1:$f2"] -myaddr 127.0.0.1 $f1]
    set ::fake($f1,sock) $s
    set h [rs_shell 127.0.0.1:$f1=127.0.0.1:$f2]
    set r [list [rs_call $h "retry 300"] [lindex [rs_call $h "qpush lq m"] 0] [lindex [rs_call $h "ctrset loop 1"] 0] \
               [lindex [rs_call $h "ctrget loop"] 0]]
    rs_close $h
    fake_stop $f1
    fake_stop $f2
    lappend r [expr {$::fake($f1,n) >= 1 && $::fake($f2,n) >= 1}]
} {{OK -} SERVER_ERROR SERVER_ERROR SERVER_ERROR 1}

test {replica sets: members that all refuse the connection: SERVER_DOWN within the retry timeout} {
    set h [rs_shell 127.0.0.1:[free_port]=127.0.0.1:[free_port]=127.0.0.1:[free_port]]
    set r [list [rs_call $h "retry 300"] [rs_call $h "ctrset dead 1"] [rs_call $h "readreplicas 1"] \
               [rs_call $h "llen deadl"]]
    rs_close $h
    lmap x $r {regsub {127.0.0.1:\d+} $x HOST}
} {{OK -} {SERVER_DOWN HOST: connect: Connection refused} {OK -} {SERVER_DOWN HOST: connect: Connection refused}}

test {replica sets: redirects to an address where nothing listens end within the retry timeout} {
    set dead [free_port]
    set f1 [fake_start "SERVER_ERROR read-only replica of 127.0.0.1:$dead"]
    set h [rs_shell 127.0.0.1:$f1=127.0.0.1:[free_port]]
    set r [list [rs_call $h "retry 300"] [expr {[lindex [rs_call $h "ctrset d 1"] 0] in {SERVER_DOWN SERVER_ERROR}}]]
    rs_close $h
    fake_stop $f1
    lappend r [expr {$::fake($f1,n) >= 1}]
} {{OK -} 1 1}

# ---- a member that could not be reached is left alone ----

# bh_start: {channel port} of a silent address on loopback (test_replicas
# blackhole): a connect to it waits for its timeout, as to a machine that
# is down and drops packets. bh_stop frees the port.
proc bh_start {} {
    set ch [open "|[list [rs_bin] blackhole]" r+]
    foreach p [pid $ch] { register_pid $p }
    set port [gets $ch]
    if {![string is integer -strict $port]} { fail "test_replicas blackhole: $port" }
    return [list $ch $port]
}

proc bh_stop {ch} {
    set pids [pid $ch]
    close $ch
    foreach p $pids { unregister_pid $p }
}

start_server {tags {libmcds mcds-only}} {
    set pport [srv port]

    # The first read waits for one connect timeout; the replica, up again
    # at once (a fake on its port), is not tried by the reads that follow
    # within the reconnect delay (2 s), and is by the first one after it.
    test {replica sets: a silent replica is left alone for the reconnect delay, then tried again and used} {
        lassign [bh_start] bh rport
        set h [rs_shell 127.0.0.1:$pport=127.0.0.1:$rport]
        set r [list [rs_call $h "io [expr {300 * [time_factor]}]"] [rs_call $h "reconnect 2"] \
                   [rs_call $h "rpush dl a"] [rs_call $h "readreplicas 1"] [rs_call $h "llen dl"]]
        bh_stop $bh
        set f [fake_start 7 $rport]
        for {set i 0} {$i < 3} {incr i} { lappend r [rs_call $h "llen dl"] }
        lappend r $::fake($f,conns)
        after 2500
        lappend r [rs_call $h "llen dl"] [rs_call $h "llen dl"] $::fake($f,conns) $::fake($f,n)
        rs_close $h
        fake_stop $f
        set r
    } {{OK -} {OK -} {OK 1} {OK -} {OK 1} {OK 1} {OK 1} {OK 1} 0 {OK 7} {OK 7} 1 2}

    # A stale refusal marks the replica too; the read after the delay that
    # is refused again marks it again, for twice as long (4 s: still left
    # alone 2.5 s later). With a reconnect delay of 0 every read tries it.
    test {replica sets: a replica refusing as stale is left alone for the reconnect delay, twice as long after a second refusal} {
        set f [fake_start "SERVER_ERROR stale replica: its link to its primary is not up"]
        set h [rs_shell 127.0.0.1:$pport=127.0.0.1:$f]
        set r [list [rs_call $h "reconnect 2"] [rs_call $h "rpush sl a"] [rs_call $h "readreplicas 1"]]
        for {set i 0} {$i < 3} {incr i} { lappend r [rs_call $h "llen sl"] }
        lappend r $::fake($f,n)
        after 2500
        lappend r [rs_call $h "llen sl"] [rs_call $h "llen sl"] $::fake($f,n)
        after 2500
        lappend r [rs_call $h "llen sl"] $::fake($f,n)
        lappend r [rs_call $h "reconnect 0"]
        for {set i 0} {$i < 3} {incr i} { lappend r [rs_call $h "llen sl"] }
        lappend r $::fake($f,n)
        rs_close $h
        fake_stop $f
        set r
    } {{OK -} {OK 1} {OK -} {OK 1} {OK 1} {OK 1} 1 {OK 1} {OK 1} 2 {OK 1} 2 {OK -} {OK 1} {OK 1} {OK 1} 5}
}
