# The Python and Node packages over replica sets (a server list entry
# "P=R": writes to the primary, following a promotion; reads to replicas
# with read_replicas / readReplicas). Without mcds: list parsing,
# placement, against fake servers what is retried and what never is, and
# members that could not be reached left alone by reads for the reconnect
# delay (t/clients/mcds_replicas_check.py offline; Node's in
# contrib/node/test/replicas.test.js, run by node_client.tcl, and a silent
# replica in t/clients/node_replicas_down.js, run here). Then each
# package's live script (t/clients/mcds_replicas_check.py live,
# t/clients/node_replicas_check.js) against a primary with --data-dir and
# its replica, run in steps while the test stops the replica, starts it
# again, kills the primary and promotes the replica, and starts the old
# primary again as the new one's replica.

source [file join [srcdir] t support repl.tcl]
source [file join [srcdir] t support steps.tcl]

test {mcds.Pool replica sets: lists, placement, what is retried and what never is (fake servers)} {
    set py [pymemcache_python]
    lassign [run_cmd 120 $py [file join [srcdir] t clients mcds_replicas_check.py] offline [srcdir]] status out
    if {$status ne "0" || ![string match "*all checks passed*" $out]} { fail "exited $status:\n$out" }
    verbose $out
    regexp -all -line {^ok - } $out
} 42

# The node binary, or a skip.
proc replicas_node {} {
    foreach name {node nodejs} {
        set n [auto_execok $name]
        if {$n ne {}} { return [lindex $n 0] }
    }
    skip "node is not installed (apt-get install nodejs)"
}

# A silent replica (mcds_replicas_check.py blackhole: a connect to it
# waits for its timeout) and the Node package's reads: the script
# (t/clients/node_replicas_down.js) reads once, the test frees the port,
# and the script counts the connections of a fake replica started on it.
test {Node over P=R: a silent replica is left alone by reads for reconnectDelay, then tried again and used} {
    set node [replicas_node]
    set bh [open "|[list [pymemcache_python] [file join [srcdir] t clients mcds_replicas_check.py] blackhole]" r+]
    set pids [pid $bh]
    foreach p $pids { register_pid $p }
    set port [gets $bh]
    set h [steps_start $node [file join [srcdir] t clients node_replicas_down.js] [srcdir] $port]
    set r [list [steps_next $h]]
    close $bh
    foreach p $pids { unregister_pid $p }
    steps_go $h
    lappend r [regexp -all -line {^ok - } [steps_end $h]]
} {{free-port 1} 3}

# Runs a package's live script (cmd, to which the two ports are added)
# against a primary and its replica, doing what each of its steps asks.
proc replicas_live {name cmd} {
    set dp [tmpdir ${name}_primary]
    set dr [tmpdir ${name}_replica]
    set pport [free_port]
    set rport [free_port]
    set pargs [list --data-dir $dp --persist-items -p $pport]
    set rargs [list --data-dir $dr --persist-items -p $rport --replicaof 127.0.0.1:$pport]
    set ::replicas_h {}
    start_server [list tags {repl clients mcds-only} args $pargs] {
        set pfd [mc_connect]
        start_server [list tags {repl} args $rargs] {
            test "$name over P=R: a write lands on P and reaches R; with read replicas R answers the reads" {
                repl_connect_caught_up 0 $pfd
                set ::replicas_h [steps_start {*}[uplevel #0 $cmd] $pport $rport]
                steps_next $::replicas_h
            } {kill-replica 6}
            kill_pid [srv pid] KILL
            wait_server_exit
        }
        test "$name: R stopped, reads fall back to P" {
            if {$::replicas_h eq {}} { skip "the script did not start" }
            steps_go $::replicas_h
            steps_next $::replicas_h
        } {restart-replica 1}
        start_server [list tags {repl} args $rargs] {
            test "$name: R started again answers the reads again" {
                if {$::replicas_h eq {}} { skip "the script did not start" }
                set rfd [repl_connect_caught_up 0 $pfd]
                steps_go $::replicas_h
                steps_next $::replicas_h
            } {promote 1}
            test "$name: P killed, R promoted: writes through the same handle go to R after the connect failure" {
                if {$::replicas_h eq {}} { skip "the script did not start" }
                repl_caught_up $pfd $rfd
                kill_pid [srv -1 pid] KILL
                wait_server_exit -1
                assert_equal [mc_exchange $rfd "replicaof no one\r\n"] "OK\r\n"
                steps_go $::replicas_h
                steps_next $::replicas_h
            } {old-primary-back 2}
            start_server [list tags {repl} args [list --data-dir $dp --persist-items -p $pport \
                    --replicaof 127.0.0.1:$rport]] {
                test "$name: P back as R's replica: a handle that believes P is primary is redirected by its refusal" {
                    if {$::replicas_h eq {}} { skip "the script did not start" }
                    repl_connect_caught_up 0 $rfd
                    steps_go $::replicas_h
                    regexp -all -line {^ok - } [steps_end $::replicas_h]
                } 16
            }
        }
    }
}

replicas_live Python {list [pymemcache_python] [file join [srcdir] t clients mcds_replicas_check.py] live [srcdir]}
replicas_live Node {list [replicas_node] [file join [srcdir] t clients node_replicas_check.js] [srcdir]}
