# Failover by the scripts of doc/replication.md ("Failover"): the test
# drives contrib/failover/mcds-failover as keepalived would (its health
# check and its notify hooks) and as an operator does by hand. A primary
# and two replicas; the primary is killed (-9) with one replica behind the
# other; `pick` names the most advanced, `notify MASTER` promotes it,
# `notify BACKUP` makes the other replica and then the old primary,
# started again, follow it. Every change the primary acknowledged before
# the kill that the promoted replica had is on every server afterwards.

source [file join [srcdir] t support repl.tcl]

# fo args... -> {status output} of mcds-failover (stderr into output).
proc fo {args} {
    set script [file join [srcdir] contrib failover mcds-failover]
    set status 0
    if {[catch {exec bash $script {*}$args 2>@1} out opts]} {
        set status [lindex [dict get $opts -errorcode] 2]
        if {$status eq {}} { set status 1 }
        regsub {\n?child process exited abnormally$} $out {} out
    }
    list $status $out
}

proc fo_addr {level} { return 127.0.0.1:[srv $level port] }

set df_p [tmpdir fo_primary]
set df_1 [tmpdir fo_replica1]
set df_2 [tmpdir fo_replica2]
set ::fo_pport [free_port]

start_server [list tags {repl persist mcds-only} args [list --data-dir $df_1 --persist-items --replicaof 127.0.0.1:$::fo_pport]] {
    start_server [list tags {repl} args [list --data-dir $df_2 --persist-items --replicaof 127.0.0.1:$::fo_pport]] {
        set r1 [repl_connect -1]
        set r2 [repl_connect 0]
        set ::fo_r1 [fo_addr -1]
        set ::fo_r2 [fo_addr 0]
        start_server [list tags {repl} args [list --data-dir $df_p --persist-items -p $::fo_pport]] {
            set pfd [mc_connect]
            set ::fo_p [fo_addr 0]

            test {failover: role and check of a primary and its replicas} {
                repl_setup_ctree $pfd
                repl_setup_table $pfd
                repl_work $pfd 41 300
                repl_caught_up $pfd $r1
                repl_caught_up $pfd $r2
                set pos [mc_stat $pfd persist_log_position]
                set lin [mc_stat $pfd repl_lineage]
                assert_equal [fo role $::fo_p] [list 0 "primary $pos $lin"]
                assert_equal [fo role $::fo_r1] [list 0 "replica $pos $lin up 0 $::fo_p"]
                list [fo check $::fo_p] [fo check $::fo_r2 0] [expr {[fo role $::fo_r2] eq [fo role $::fo_r1]}]
            } {{0 {}} {0 {}} 1}

            test {failover: the primary is killed with one replica behind the other} {
                set rpid [srv -1 pid]
                kill_pid $rpid STOP
                repl_work $pfd 42 200
                repl_caught_up $pfd $r1
                set ::fo_want [repl_dump $pfd]
                set ::fo_pushed [dict get [q_stats $pfd q1] pushed]
                kill_pid [srv pid] KILL
                kill_pid $rpid CONT
                wait_server_exit
            } SIGKILL
        }

        test {failover: check fails for a server that does not answer; the replicas keep serving reads} {
            wait_for {[mc_stat $r1 repl_link] ne "up" && [mc_stat $r2 repl_link] ne "up"} 100 50
            list [lindex [fo check $::fo_p] 0] [lindex [fo check $::fo_r1] 0] [lindex [fo role $::fo_p] 0] \
                [expr {[dict get [q_stats $r1 q1] pushed] == $::fo_pushed}]
        } {3 0 3 1}

        test {failover: pick names the replica with the highest position (the first on a tie)} {
            set p1 [mc_stat $r1 repl_position]
            set p2 [mc_stat $r2 repl_position]
            set want [expr {$p1 > $p2 ? $::fo_r1 : $::fo_r2}]
            assert_equal [fo pick $::fo_p $::fo_r2 $::fo_r1] [list 0 $want]
            expr {[fo pick $::fo_p $::fo_r1 $::fo_r2] eq [list 0 $::fo_r1]}
        } 1

        test {failover: notify MASTER promotes the picked replica, with every change the primary had given it} {
            set st [fo notify $::fo_r1 $::fo_p MASTER]
            list $st [lindex [fo role $::fo_r1] 1 0] [repl_diff [repl_dump $r1] $::fo_want] \
                [string match "PUSHED *" [mc_exchange $r1 "qpush q1 0 0 5\r\nafter\r\n"]] [expr {[dict get [q_stats $r1 q1] pushed] - $::fo_pushed}]
        } {{0 {}} primary {} 1 1}

        test {failover: notify BACKUP makes the other replica follow the new primary; it then equals it} {
            set st [fo notify $::fo_r2 $::fo_r1 BACKUP]
            repl_caught_up $r1 $r2
            list $st [expr {[lrange [lindex [fo role $::fo_r2] 1] 3 5] eq [list up 0 $::fo_r1]}] \
                [repl_diff [repl_dump $r2] [repl_dump $r1]]
        } {{0 {}} 1 {}}

        test {failover: a repeated BACKUP notify changes nothing} {
            set before [mc_stat $r2 repl_partial_syncs]
            list [fo notify $::fo_r2 $::fo_r1 BACKUP] [expr {[mc_stat $r2 repl_partial_syncs] == $before}] [mc_stat $r2 repl_link]
        } {{0 {}} 1 up}

        # The old primary comes back on its port, as a primary of a lineage
        # of its own: keepalived's BACKUP notify makes it follow the new one.
        start_server [list tags {repl} args [list --data-dir $df_p --persist-items -p $::fo_pport]] {
            test {failover: the old primary, started again, follows the new one after a BACKUP notify and equals it} {
                set st [fo notify $::fo_p $::fo_r1 BACKUP]
                set ofd [repl_connect_caught_up 0 $r1]
                list $st [lindex [fo role $::fo_p] 1 0] [repl_diff [repl_dump $ofd] [repl_dump $r1]] \
                    [expr {[mc_exchange $ofd "qpush q1 0 0 1\r\nx\r\n"] eq "SERVER_ERROR read-only replica of $::fo_r1\r\n"}]
            } {{0 {}} replica {} 1}
        }
    }
}

test {failover: bad arguments are usage errors (status 2); a server that is not there is status 3} {
    set none 127.0.0.1:[free_port]
    list [lindex [fo role nothing] 0] [lindex [fo check 127.0.0.1:1 x] 0] [lindex [fo notify 127.0.0.1:1 127.0.0.1:2 UP] 0] \
        [lindex [fo frob 127.0.0.1:1] 0] [lindex [fo role] 0] \
        [expr {[fo promote $none] eq [list 3 "mcds-failover: $none does not answer"]}] [lindex [fo check $none] 0]
} {2 2 2 2 2 1 3}

start_server {tags {repl mcds-only}} {
    test {failover: a server without --data-dir has no role; promote is refused there} {
        set a [fo_addr 0]
        list [expr {[fo role $a] eq [list 1 "mcds-failover: $a has no replication (no --data-dir?)"]}] \
            [expr {[fo promote $a] eq [list 1 "mcds-failover: $a answered \"SERVER_ERROR replication needs --data-dir\" to \"replicaof no one\""]}]
    } {1 1}
}

test {failover: the example keepalived configuration, with this tree's script, passes keepalived -t} {
    set ka [auto_execok keepalived]
    if {$ka eq {}} { set ka [auto_execok /usr/sbin/keepalived] }
    if {$ka eq {}} { fail "keepalived is not installed (contrib/setup.sh --test installs it)" }
    set script [file join [srcdir] contrib failover mcds-failover]
    set conf [string map [list /usr/libexec/mcds/mcds-failover $script] \
        [read_file [file join [srcdir] contrib failover keepalived.conf.example]]]
    set path [file join [tmpdir ka] keepalived.conf]
    set f [open $path w]; puts -nonewline $f $conf; close $f
    catch {exec {*}$ka -t -l -n -f $path 2>@1} out
    list [regexp -nocase {not found|error|unknown|invalid} $out] [string match *$script* $conf] $out
} [list 0 1 {}]
