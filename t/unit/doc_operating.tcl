# Black-box tests of doc/operating.md (signals, the log, the limits the
# server sets for itself, the UNIX socket, TLS) and of the options it
# points to (`mcds-server -h`, the README's option table: -d, -P, -u, -c,
# -R, -o, --conn-output-max, --conn-buffer-limit). Written from the docs
# only: each test names the sentence it checks.

# op_log_lines text -> its non-empty lines
proc op_log_lines {text} {
    lsearch -all -inline -not [split $text \n] {}
}

# op_sig_names hexmask -> the names of the classic signals (1..31) set in it
proc op_sig_names {hex} {
    set names {HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM
        STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS}
    set mask [expr {"0x$hex"}]
    set out {}
    for {set i 0} {$i < 31} {incr i} {
        if {($mask >> $i) & 1} { lappend out [lindex $names $i] }
    }
    return $out
}

proc op_proc_status {pid field} {
    foreach line [split [read_file /proc/$pid/status] \n] {
        if {[string match "$field:*" $line]} { return [string trim [string range $line [string length $field]+1 end]] }
    }
    return {}
}

# op_daemon args... -> pid of a server started with -d -P (fails the test
# when it did not start). The pid is registered for cleanup.
proc op_daemon {pidfile args} {
    lassign [run_server_cmd -d -P $pidfile {*}$args] status out
    if {$status ne "0"} { fail "mcds-server -d $args exited $status: $out" }
    set pid [string trim [read_file $pidfile]]
    register_pid $pid
    return $pid
}

proc op_wait_gone {pid {ms 5000}} {
    wait_for {![pid_alive $pid]} [expr {$ms / 50}] 50
    unregister_pid $pid
}

# A UNIX-socket client: python3 sends the bytes and prints what comes back
# (hex), so Tcl needs no UNIX socket support.
proc op_unix_exchange {path bytes} {
    set py {
import socket, sys, binascii, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
s.sendall(binascii.unhexlify(sys.argv[2]))
out = b''
while not out.endswith(b'\r\n'):
    d = s.recv(4096)
    if not d: break
    out += d
print(out.decode(errors='replace').strip())
}
    binary scan $bytes H* hex
    lassign [run_cmd 10 python3 -c $py $path $hex] status out
    return [string trim $out]
}

# ---------------------------------------------------------------------------
# Signals

foreach sig {TERM INT QUIT USR1} {
    start_server [list tags {operating mcds-only}] {
        test "operating.md:11-12: SIG$sig stops the server with exit status 0" {
            set fd [mc_connect]
            mc_exchange $fd "set a 0 0 1\r\nx\r\n"
            kill_pid [srv pid] $sig
            set st [wait_server_exit 0 10]
            list $st [mc_is_closed $fd 3000]
        } {0 1}
    }
}

start_server {tags {operating mcds-only}} {
    test {operating.md:12: SIGUSR1 is logged as a graceful stop} {
        kill_pid [srv pid] USR1
        wait_server_exit 0 10
        regexp -nocase {graceful} [read_file [srv stderr]]
    } 1
}

start_server {tags {operating mcds-only}} {
    test {operating.md:14: SIGUSR2 is logged and ignored} {
        kill_pid [srv pid] USR2
        wait_for {[regexp -line {mcds-server: .*(12|USR2|User defined signal 2).*ignored} [read_file [srv stderr]]]} 100 50
        set fd [mc_connect]
        list [mc_cmd $fd version] [regexp -line {mcds-server: .*(12|USR2|User defined signal 2).*ignored} [read_file [srv stderr]]]
    } {{VERSION 1.6.18} 1}

    test {operating.md:13: SIGHUP without --log-file only logs that there is nothing to reopen} {
        kill_pid [srv pid] HUP
        wait_for {[regexp -line {SIGHUP.*nothing to reopen} [read_file [srv stderr]]]} 100 50
        set fd [mc_connect]
        list [mc_cmd $fd version] [regexp -line {SIGHUP.*nothing to reopen} [read_file [srv stderr]]]
    } {{VERSION 1.6.18} 1}

    test {operating.md:15: SIGPIPE is ignored: a client that vanishes mid-reply leaves the server running} {
        set fd [mc_connect]
        mc_exchange $fd "set big 0 0 200000\r\n[string repeat x 200000]\r\n"
        for {set i 0} {$i < 5} {incr i} {
            set c [mc_connect]
            fconfigure $c -blocking 0
            puts -nonewline $c "get[string repeat { big} 50]\r\n"
            flush $c
            after 50
            close $c
        }
        after 300
        list [pid_alive [srv pid]] [mc_cmd $fd version]
    } {1 {VERSION 1.6.18}}

    test {operating.md:9-18: only HUP INT QUIT USR1 USR2 TERM and the faults SEGV BUS FPE ILL ABRT are caught; PIPE is ignored} {
        set cgt [op_sig_names [op_proc_status [srv pid] SigCgt]]
        set ign [op_sig_names [op_proc_status [srv pid] SigIgn]]
        list [lsort $cgt] [expr {"PIPE" in $ign}]
    } [list [lsort {HUP INT QUIT USR1 USR2 TERM SEGV BUS FPE ILL ABRT}] 1] {runtime:signals}
}

start_server {tags {operating mcds-only} args {--debug}} {
    test {operating.md:16: a fault writes a crash report (signal, address, the faulting thread's stack) on stderr, then the server dies of it} {
        set fd [mc_connect]
        mc_send $fd "debugcrash\r\n"
        set status [wait_server_exit 0 10]
        set err [read_file [srv stderr]]
        list $status [regexp {=== mcds-server crashed: signal SIGSEGV, address 0x[0-9a-f]+; stack of the faulting thread} $err] \
            [regexp {mcds-server\(admin_debugcrash\+0x[0-9a-f]+\)} $err] [regexp {=== end of the crash report} $err]
    } {SIGSEGV 1 1 1} {runtime:signals}
}

# A server logging to a file is started with -d (the harness finds its
# servers' ports in their stderr).
tags {operating mcds-only} {
    test {operating.md:16: the crash report goes to the --log-file too} {
        set dir [tmpdir crashlog]
        set port [free_port]
        set pid [op_daemon [file join $dir pid] -p $port -l 127.0.0.1 --debug --log-file [file join $dir mcds.log]]
        set fd [mc_connect_addr 127.0.0.1 $port]
        mc_send $fd "debugcrash\r\n"
        op_wait_gone $pid
        set log [read_file [file join $dir mcds.log]]
        list [regexp {debugcrash: crashing on purpose} $log] [regexp {=== mcds-server crashed: signal SIGSEGV} $log] \
            [regexp {admin_debugcrash} $log] [regexp {=== end of the crash report} $log]
    } {1 1 1 1} {runtime:signals}
}

start_server {tags {operating mcds-only} args {-A}} {
    test {operating.md:17-18: with -A, shutdown stops the server as SIGINT does (exit 0)} {
        set fd [mc_connect]
        mc_send $fd "shutdown\r\n"
        list [wait_server_exit 0 10] [mc_is_closed $fd 3000]
    } {0 1}
}

start_server {tags {operating mcds-only} args {-A -t 2}} {
    test {operating.md:11: a stop with a slow reader, waiters and a half-sent value exits 0 at once} {
        set fd [mc_connect]
        mc_exchange $fd "set big 0 0 100000\r\n[string repeat y 100000]\r\nqcreate kq\r\n"
        set slow [mc_connect]
        mc_send_bg $slow "get[string repeat { big} 300]\r\n"
        set w1 [mc_connect]
        mc_send $w1 "qpop q1 wait=100\r\n"
        set w2 [mc_connect]
        mc_send $w2 "get kq/t=100000\r\n"
        set half [mc_connect]
        mc_send $half "set h 0 0 1000\r\nabc"
        after 500
        set t0 [clock milliseconds]
        kill_pid [srv pid] TERM
        set st [wait_server_exit 0 10]
        set ms [expr {[clock milliseconds] - $t0}]
        # the slow reader got some of its replies, then the close
        set got [string length [mc_read_until_close $slow 5000]]
        list $st [expr {$ms < 3000}] [expr {$got > 0}] [mc_is_closed $w1] [mc_is_closed $w2] [mc_is_closed $half]
    } {0 1 1 1 1 1}
}

# ---------------------------------------------------------------------------
# The log

start_server {tags {operating mcds-only} args {-vv}} {
    test {operating.md:23-26: every log line is a UTC millisecond timestamp, "mcds-server:", the message} {
        set fd [mc_connect]
        mc_exchange $fd "get nokey\r\n"
        set bad {}
        set lines [op_log_lines [read_file [srv stderr]]]
        foreach l $lines {
            if {![regexp {^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z mcds-server: \S} $l]} { lappend bad $l }
        }
        # the timestamp is UTC: within a minute of the test's UTC clock
        regexp {^(\S+)\.\d{3}Z} [lindex $lines 0] -> ts
        set t [clock scan $ts -format {%Y-%m-%dT%H:%M:%S} -timezone :UTC]
        list [llength $lines] $bad [expr {abs($t - [clock seconds]) < 60}]
    } {* {} 1}

    test {operating.md:28-30: a binary key with a line break, control bytes and a backslash is logged escaped} {
        set fd [mc_connect]
        set key "a\nb\\c\x01\xff"
        mc_send $fd [bin_pkt GET -key $key]
        bin_read $fd
        after 200
        set log [read_file [srv stderr]]
        list [string match {*a\\x0ab\\\\c\\x01\\xff*} $log] [string first "a\nb" $log]
    } {1 -1}

    test {operating.md:30-32: -vv logs every command; verbosity 0 stops it while running} {
        set fd [mc_connect]
        mc_exchange $fd "get before-verbosity\r\nverbosity 0\r\nget after-verbosity\r\n"
        after 200
        set log [read_file [srv stderr]]
        list [regexp {get before-verbosity} $log] [regexp {get after-verbosity} $log]
    } {1 0}
}

start_server {tags {operating mcds-only}} {
    test {operating.md:31-32: verbosity 2 at run time turns on command logging} {
        set fd [mc_connect]
        mc_exchange $fd "get quiet-key\r\nverbosity 2\r\nget loud-key\r\n"
        after 200
        set log [read_file [srv stderr]]
        list [regexp {quiet-key} $log] [regexp {loud-key} $log]
    } {0 1}
}

set ::op_logdir [tmpdir oplog]
tags {operating mcds-only} {
    # A server logging to a file: started with -d (the harness finds its
    # servers' ports in their stderr).
    set ::op_logfile [file join $::op_logdir mcds.log]
    set f [open $::op_logfile w]; puts $f "line written before the server"; close $f
    set ::op_logport [free_port]
    set ::op_logpid [op_daemon [file join $::op_logdir log.pid] -p $::op_logport -l 127.0.0.1 \
        --log-file $::op_logfile -v -o some_unknown_option]

    test {operating.md:22-23: --log-file appends, the start-up line that names the port included} {
        set log [read_file $::op_logfile]
        list [string match "line written before the server\n*" $log] \
            [regexp "listening on 127\\.0\\.0\\.1:$::op_logport" $log]
    } {1 1}

    # "Warnings about the command line itself (an unknown -o name, say) are
    # printed to stderr as it is read, before the log file opens".
    test {operating.md:22-26 + README -o: the warning about an unknown -o name is not in the --log-file} {
        regexp {some_unknown_option} [read_file $::op_logfile]
    } 0

    test {operating.md:13,34-35: rotation: move the file, SIGHUP, new lines go to a new file at the path} {
        file rename $::op_logfile $::op_logfile.1
        kill_pid $::op_logpid HUP
        wait_for {[file exists $::op_logfile]} 50 50
        set fd [mc_connect_addr 127.0.0.1 $::op_logport]
        mc_cmd $fd version
        close $fd
        after 200
        set new [read_file $::op_logfile]
        list [regexp {reopen} $new] [regexp {new client connection} $new] \
            [regexp {new client connection} [read_file $::op_logfile.1]]
    } {1 1 0}

    kill_pid $::op_logpid TERM
    op_wait_gone $::op_logpid
}

set ::op_authfile [file join $::op_logdir auth]
set f [open $::op_authfile w]; puts $f "alice:pw1"; close $f
# operating.md's -o warning: printed to stderr as the command line is read.
start_server {tags {operating mcds-only} args {-o some_unknown_option}} {
    test {operating.md:22-26: the warning about an unknown -o name is printed to stderr} {
        regexp {warning: ignoring unknown -o option some_unknown_option} [read_file [srv stderr]]
    } 1
}

start_server [list tags {operating mcds-only} args [list -Y $::op_authfile]] {
    test {operating.md:13 "SIGHUP ... reads the -Y password file again" (protocol.md and README too)} {
        set fd [mc_connect]
        mc_send $fd "set auth 0 0 8\r\nbob pw22\r\n"
        set before [mc_readline $fd]
        set f [open $::op_authfile w]; puts $f "alice:pw1\nbob:pw22"; close $f
        kill_pid [srv pid] HUP
        after 300
        mc_send $fd "set auth 0 0 8\r\nbob pw22\r\n"
        set after [mc_readline $fd]
        list $before $after
    } {{CLIENT_ERROR authentication failure} STORED}
}

# ---------------------------------------------------------------------------
# Limits the server sets for itself

tags {operating mcds-only} {
    test {operating.md:39-45: a hard descriptor limit below -c plus 64 refuses start-up and says so} {
        if {[auto_execok prlimit] eq {}} { skip "prlimit is not installed" }
        lassign [run_cmd 10 prlimit --nofile=100:200 $::cfg(server) -p 0 -l 127.0.0.1 -c 1000] status out
        list [expr {$status ne "0"}] [regexp {failed to set rlimit for open files} $out]
    } {1 1}

    test {operating.md:39-40: the soft descriptor limit is raised to -c plus 64} {
        if {[auto_execok prlimit] eq {}} { skip "prlimit is not installed" }
        set dir [tmpdir opfd]
        set pidfile [file join $dir p.pid]
        set port [free_port]
        lassign [run_cmd 10 prlimit --nofile=50:2000 $::cfg(server) -d -P $pidfile -p $port -l 127.0.0.1 -c 100] status out
        set pid [string trim [read_file $pidfile]]
        register_pid $pid
        set lim {}
        foreach line [split [read_file /proc/$pid/limits] \n] {
            if {[regexp {^Max open files\s+(\d+)\s+(\d+)} $line -> soft hard]} { set lim [list $soft $hard] }
        }
        kill_pid $pid TERM
        op_wait_gone $pid
        list $status $lim
    } {0 {164 2000}}
}

start_server {tags {operating mcds-only} args {-c 5}} {
    test {operating.md:44-45 + protocol.md: -c 5 accepts exactly 5 clients; the 6th is told ERROR Too many open connections and closed} {
        # the readiness probe of the harness may still be counted: settle
        after 200
        set cs {}
        for {set i 0} {$i < 5} {incr i} {
            set c [mc_connect]
            lappend cs [mc_cmd $c version]
        }
        set x [mc_connect]
        set r [mc_read_until_close $x 3000]
        list [lsort -unique $cs] $r
    } [list {{VERSION 1.6.18}} "ERROR Too many open connections\r\n"]

    test {the refused client counts in rejected_connections, and a freed slot serves again} {
        foreach fd $::srvinfo([srv_id 0],fds) { mc_close $fd }
        after 300
        set fd [mc_connect]
        list [mc_stat $fd rejected_connections] [mc_stat $fd curr_connections] [dict get [mc_stats $fd settings] maxconns]
    } {1 1 5}
}

start_server {tags {operating mcds-only} args {-R 5}} {
    test {README -R: 100 pipelined commands with -R 5 are all answered, yielding between; stats settings shows it} {
        set fd [mc_connect]
        mc_send $fd [string repeat "version\r\n" 100]
        set n 0
        for {set i 0} {$i < 100} {incr i} { if {[mc_readline $fd] eq "VERSION 1.6.18"} { incr n } }
        list $n [expr {[mc_stat $fd conn_yields] >= 10}] \
            [dict get [mc_stats $fd settings] reqs_per_event]
    } {100 1 5}
}

tags {operating mcds-only} {
    test {README: a bad -R, -a, -o hashpower or option exits 64 with the usage} {
        set r {}
        foreach args {{-R 0} {-R x} {-a 9} {-a 1000} {-o hashpower=11} {-o hashpower=33} {--no-such-option}} {
            lassign [run_server_cmd -p 0 -l 127.0.0.1 {*}$args] status out
            lappend r [list $status [regexp {usage: mcds-server} $out]]
        }
        lsort -unique $r
    } {{64 1}}
}

start_server {tags {operating mcds-only} args {--conn-output-max 64k}} {
    test {protocol.md Limits: a non-reading client's replies stay within --conn-output-max; then all arrive in order} {
        set fd [mc_connect]
        mc_exchange $fd "set v 0 0 1000\r\n[string repeat z 1000]\r\n"
        set slow [mc_connect]
        mc_send_bg $slow "get[string repeat { v} 5000]\r\nversion\r\n"
        after 800
        set held [mc_stat $fd response_obj_bytes]
        fconfigure $slow -blocking 1
        set n 0
        while {1} {
            set line [mc_readline $slow]
            if {$line eq "VERSION 1.6.18"} break
            if {[string match "VALUE v 0 1000" $line]} { incr n; mc_read_bytes $slow 1002 }
        }
        list [dict get [mc_stats $fd settings] conn_output_max] [expr {$held < 256 * 1024}] $n
    } {65536 1 5000}
}

start_server {tags {operating mcds-only} args {--conn-buffer-limit 40k -t 1}} {
    test {protocol.md Limits: past --conn-buffer-limit a connection is told SERVER_ERROR out of memory reading request and closed; the rest go on} {
        set a [mc_connect]
        mc_send $a "get aaaa"
        after 200
        set b [mc_connect]
        mc_send $b "get bbbb"
        after 200
        set c [mc_connect]
        mc_send $c "get cccc"
        set rc [mc_read_until_close $c 3000]
        mc_send $a "\r\n"
        set ra [mc_readline $a]
        mc_close $b
        mc_close $c
        after 200
        set d [mc_connect]
        list $rc $ra [mc_cmd $d version] [expr {[mc_stat $d read_buf_oom] >= 1}] [dict get [mc_stats $d settings] read_buf_mem_limit]
    } [list "SERVER_ERROR out of memory reading request\r\n" END {VERSION 1.6.18} 1 40960]
}

# ---------------------------------------------------------------------------
# The UNIX socket

tags {operating mcds-only} {
    test {operating.md:51-54: the socket's mode is -a (0700 by default), 0 to 777 octal; -a 9 exits 64} {
        set dir [open_tmpdir opsock]
        set r {}
        foreach mask {{} 0 660 777} {
            set path [file join $dir s$mask.sock]
            set args [list -s $path]
            if {$mask ne {}} { lappend args -a $mask }
            set pid [op_daemon [file join $dir p.pid] {*}$args]
            lappend r [format %o [expr {[file attributes $path -permissions] & 0777}]]
            kill_pid $pid TERM
            op_wait_gone $pid
        }
        lappend r [lindex [run_server_cmd -s [file join $dir bad.sock] -a 9] 0]
        set r
    } {700 0 660 777 64}

    test {operating.md:55-60: a leftover socket nobody answers on is replaced; the server removes its socket at a clean stop} {
        set dir [open_tmpdir opsock]
        set path [file join $dir s.sock]
        set pid [op_daemon [file join $dir p1.pid] -s $path]
        kill_pid $pid KILL
        op_wait_gone $pid
        set left [file exists $path]
        set pid [op_daemon [file join $dir p2.pid] -s $path]
        set v [op_unix_exchange $path "version\r\n"]
        kill_pid $pid TERM
        op_wait_gone $pid
        list $left $v [file exists $path]
    } {1 {VERSION 1.6.18} 0}

    test {operating.md:55-60: a regular file, a directory or a live server's socket is left alone and start-up refused} {
        set dir [open_tmpdir opsock]
        set file [file join $dir plain]
        set f [open $file w]; puts $f data; close $f
        set d [file join $dir adir]
        file mkdir $d
        set live [file join $dir live.sock]
        set pid [op_daemon [file join $dir p.pid] -s $live]
        set r {}
        foreach path [list $file $d $live] {
            lassign [run_server_cmd -s $path] status out
            lappend r [list [expr {$status ne "0"}] [regexp "refusing to listen on unix:[regsub -all {\W} $path {\\&}]" $out]]
        }
        lappend r [string trim [read_file $file]] [file isdirectory $d] [op_unix_exchange $live "version\r\n"]
        kill_pid $pid TERM
        op_wait_gone $pid
        set r
    } {{1 1} {1 1} {1 1} data 1 {VERSION 1.6.18}}

    test {operating.md:58-60: a server never removes another server's socket, even at its own clean stop} {
        # A's socket file is removed (by hand, a tmp cleaner); B starts on
        # the free path; then A stops cleanly. B's socket must survive.
        set dir [open_tmpdir opsock]
        set path [file join $dir shared.sock]
        set pida [op_daemon [file join $dir a.pid] -s $path]
        file delete $path
        set pidb [op_daemon [file join $dir b.pid] -s $path]
        kill_pid $pida TERM
        op_wait_gone $pida
        set r [list [file exists $path] [op_unix_exchange $path "version\r\n"]]
        kill_pid $pidb TERM
        op_wait_gone $pidb
        set r
    } {1 {VERSION 1.6.18}}
}

# ---------------------------------------------------------------------------
# -d, -P, -u

tags {operating mcds-only} {
    # "-P ... removed at a clean exit, if the server's user may: with -u, in
    # a directory that user can write"
    test {README -u/-P: started as root with -u nobody, the server runs as nobody and its pid file, in a directory nobody may write, is removed at a clean exit} {
        if {![running_as_root]} { skip "not root" }
        set dir [open_tmpdir opu]
        file attributes $dir -permissions 0777
        set pidfile [file join $dir u.pid]
        set port [free_port]
        set pid [op_daemon $pidfile -u nobody -p $port -l 127.0.0.1]
        set uid [lindex [op_proc_status $pid Uid] 0]
        kill_pid $pid TERM
        op_wait_gone $pid
        list $uid [file exists $pidfile]
    } {65534 0}

    test {README -d: a server that fails after forking (bad certificate, -u of an unknown user, a refused socket) makes -d exit 1} {
        set dir [tmpdir opd]
        set f [file join $dir regular]
        set fh [open $f w]; close $fh
        set r {}
        lappend r [lindex [run_server_cmd -d -p 0 -l 127.0.0.1 -u no-such-user-xyz] 0]
        lappend r [lindex [run_server_cmd -d -s $f] 0]
        set r
    } {1 1}
}

# ---------------------------------------------------------------------------
# TLS (operating.md "TLS", protocol.md "TLS"). Certificates made with the
# commands operating.md gives (lines 73-79), in the unit's scratch space.

set ::optls_dir [tmpdir optls]
set ::optls_why {}
if {![built_with_tls]} {
    set ::optls_why "mcds-server was built without TLS"
} elseif {[auto_execok openssl] eq {}} {
    set ::optls_why "the openssl command is not installed"
} elseif {[catch {package require tls}]} {
    set ::optls_why "Tcl's tls package is not installed (apt-get install tcl-tls)"
} else {
    set d $::optls_dir
    set f [open $d/san.ext w]; puts $f "subjectAltName=DNS:cache1.example"; close $f
    foreach cmd [list \
        [list req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $d/ca.key -out $d/ca.crt -days 365 -subj /CN=my-ca] \
        [list req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $d/server.key -out $d/server.csr -subj /CN=cache1.example] \
        [list x509 -req -in $d/server.csr -CA $d/ca.crt -CAkey $d/ca.key -CAcreateserial -out $d/server.crt -days 365 -extfile $d/san.ext]] {
        lassign [run_cmd 60 openssl {*}$cmd] status out
        if {$status ne "0"} { set ::optls_why "openssl $cmd: $out"; break }
    }
}

proc optls_need {} { if {$::optls_why ne {}} { skip $::optls_why } }

proc optls__callback {what args} {
    if {$what eq "verify"} { return [lindex $args 3] }
    return
}

# optls_connect port ?tls options? -> a TLS channel after its handshake
proc optls_connect {port args} {
    set fd [tls::socket -cafile $::optls_dir/ca.crt -require 1 -servername cache1.example \
        -command optls__callback {*}$args 127.0.0.1 $port]
    lappend ::srvinfo([srv_id 0],fds) $fd
    fconfigure $fd -translation binary -encoding binary -blocking 1 -buffering full
    tls::handshake $fd
    return $fd
}

proc optls_args {dir {more {}}} {
    set o "ssl_chain_cert=$dir/server.crt,ssl_key=$dir/server.key"
    if {$more ne {}} { append o ,$more }
    return [list -Z -o $o]
}

if {$::optls_why eq {}} {
    set ::optls_live [tmpdir optlslive]
    foreach n {server.crt server.key ca.key} { file copy -force $::optls_dir/$n $::optls_live/$n }
}
start_server [list tags {operating tls mcds-only} args [concat [optls_args [expr {$::optls_why eq {} ? $::optls_live : $::optls_dir}]] \
        [list -l notls:127.0.0.1:[set ::optls_plain [free_port]]]]] {
    test {operating.md:86-88: the start-up lines say which listener is TLS; the notls: one serves plain text} {
        optls_need
        # the lines come one after the other once every listener is bound:
        # the harness went on at the first (slow under valgrind)
        catch {wait_for {[regexp -line "listening on 127\\.0\\.0\\.1:$::optls_plain\$" [read_file [srv stderr]]]} 50 100}
        set log [read_file [srv stderr]]
        set fd [mc_connect_addr 127.0.0.1 $::optls_plain]
        lappend ::srvinfo([srv_id 0],fds) $fd
        list [regexp "listening on 127\\.0\\.0\\.1:[srv port] \\(TLS\\)" $log] \
            [regexp -line "listening on 127\\.0\\.0\\.1:$::optls_plain\$" $log] [mc_cmd $fd version]
    } {1 1 {VERSION 1.6.18}}

    test {operating.md:70-79,107-108: the doc's throwaway certificates serve a TLS client checking cache1.example} {
        optls_need
        set fd [optls_connect [srv port]]
        mc_exchange $fd "set k 0 0 2\r\nok\r\nget k\r\nstats settings\r\n"
    } "STORED\r\nVALUE k 0 2\r\nok\r\nEND\r\n*STAT ssl_enabled yes\r\n*"

    test {operating.md:116-118: stats shows time_since_server_cert_refresh and ssl_handshake_errors; plain text to the TLS port counts} {
        optls_need
        set p [mc_connect_addr 127.0.0.1 [srv port]]
        lappend ::srvinfo([srv_id 0],fds) $p
        mc_send $p "version\r\n"
        set got [mc_read_until_close $p]
        set fd [mc_connect_addr 127.0.0.1 $::optls_plain]
        lappend ::srvinfo([srv_id 0],fds) $fd
        wait_for {[mc_stat $fd ssl_handshake_errors] >= 1} 20 100
        set s [mc_stats $fd]
        list [string match *VERSION* $got] [dict get $s ssl_handshake_errors] [string is integer -strict [dict get $s time_since_server_cert_refresh]]
    } {0 1 1}

    test {protocol.md TLS table: refresh_certs with a key that does not match the certificate answers Error loading the key ... key values mismatch} {
        optls_need
        file copy -force $::optls_live/ca.key $::optls_live/server.key
        set fd [mc_connect_addr 127.0.0.1 $::optls_plain]
        lappend ::srvinfo([srv_id 0],fds) $fd
        set r [mc_cmd $fd refresh_certs]
        file copy -force $::optls_dir/server.key $::optls_live/server.key
        list [string match "Error loading the key: $::optls_live/server.key : *key values mismatch*" $r] $r
    } {1 *}

    test {operating.md:111-116: a file that does not load keeps the old certificate serving; OK after the fix} {
        optls_need
        set f [open $::optls_live/server.crt w]; puts $f garbage; close $f
        set fd [mc_connect_addr 127.0.0.1 $::optls_plain]
        lappend ::srvinfo([srv_id 0],fds) $fd
        set bad [mc_cmd $fd refresh_certs]
        set t [optls_connect [srv port]]
        set v [mc_cmd $t version]
        file copy -force $::optls_dir/server.crt $::optls_live/server.crt
        list [string match "Error loading the certificate chain: $::optls_live/server.crt : *" $bad] $v [mc_cmd $fd refresh_certs] \
            [expr {[mc_stat $fd time_since_server_cert_refresh] <= 1}]
    } {1 {VERSION 1.6.18} OK 1}
}

tags {operating tls mcds-only} {
    test {operating.md:88-90: -Z without ssl_chain_cert exits 64; a certificate or key that does not load exits 1 with OpenSSL's reason} {
        optls_need
        set d $::optls_dir
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z] s1
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z -o ssl_chain_cert=$d/no-such.crt,ssl_key=$d/server.key] s2 o2
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z -o ssl_chain_cert=$d/server.crt,ssl_key=$d/san.ext] s3 o3
        list $s1 $s2 [regexp {no-such.crt.*No such file} $o2] $s3 [regexp {san.ext} $o3]
    } {64 1 1 1 1}
}

if {$::optls_why eq {}} {
    set ::optls_root [tmpdir optlsroot]
    foreach n {server.crt server.key} {
        file copy -force $::optls_dir/$n $::optls_root/$n
        file attributes $::optls_root/$n -permissions 0600
    }
    file attributes $::optls_root -permissions 0755
}
if {[running_as_root] && $::optls_why eq {}} {
    start_server [list tags {operating tls mcds-only} args [concat [optls_args $::optls_root] \
            [list -u nobody -l notls:127.0.0.1:[set ::optls_plain2 [free_port]]]]] {
        test {operating.md:90-92: files only root can read load at start-up under -u; refresh_certs rereads them as that user and fails, the old certificate serving} {
            set fd [mc_connect_addr 127.0.0.1 $::optls_plain2]
            lappend ::srvinfo([srv_id 0],fds) $fd
            set r [mc_cmd $fd refresh_certs]
            set t [optls_connect [srv port]]
            list [string match "Error loading the certificate chain: $::optls_root/server.crt : *ermission*" $r] [mc_cmd $t version]
        } {1 {VERSION 1.6.18}}
    }
}

start_server [list tags {operating tls mcds-only} args [optls_args $::optls_dir ssl_min_version=3]] {
    test {operating.md:95: ssl_min_version=3 serves TLS 1.3 and refuses a TLS 1.2 client (python3's ssl as the client)} {
        optls_need
        set py {
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
ctx.maximum_version = ssl.TLSVersion.TLSv1_3 if sys.argv[3] == '3' else ssl.TLSVersion.TLSv1_2
try:
    s = ctx.wrap_socket(socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3), server_hostname='cache1.example')
    s.sendall(b'version\r\n')
    print(s.version(), s.recv(100).decode().strip())
except ssl.SSLError as e:
    print('refused', e.reason)
}
        set r {}
        foreach v {3 2} { lappend r [string trim [lindex [run_cmd 10 python3 -c $py [srv port] $::optls_dir/ca.crt $v] 1]] }
        set fd [mc_connect]
        set r
    } {{TLSv1.3 VERSION 1.6.18} {refused TLSV1_ALERT_PROTOCOL_VERSION}}
}
