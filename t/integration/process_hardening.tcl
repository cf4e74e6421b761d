# The server as a process under hostile conditions (doc/operating.md): every signal that used to kill it by
# default is handled, the log file can be rotated, the UNIX socket never
# removes what is not a dead socket and is never reachable with wider
# permissions, the descriptor limit is raised to fit -c, debugtime stays in
# range, and no client can forge a log line.

# A python3 for the UNIX-socket client (the suite's setup installs it).
proc uds_python {} {
    set p [auto_execok python3]
    if {$p eq {}} { skip "python3 is not installed" }
    return $p
}

# uds_cmd path line -> the server's first reply line on the UNIX socket
# path, or "refused: <why>".
proc uds_cmd {path line} {
    set script {
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("refused:", e.strerror); sys.exit(0)
s.sendall(sys.argv[2].encode() + b"\r\n")
buf = b""
while b"\r\n" not in buf:
    d = s.recv(4096)
    if not d: break
    buf += d
print(buf.split(b"\r\n")[0].decode())
}
    lassign [run_cmd 10 [uds_python] -c $script $path $line] status out
    return [string trim $out]
}

# A small shell script that runs the server under other limits.
proc wrapper_script {name body} {
    set path [file join [tmpdir wrap] $name]
    set f [open $path w]
    puts $f "#!/bin/sh\n$body\nexec [list $::cfg(server)] \"\$@\""
    close $f
    file attributes $path -permissions 0755
    return $path
}

proc log_of {path} {
    if {![file exists $path]} { return {} }
    read_file $path
}

# ---- signals ----

# A server logging to a file reports its port there, not on stderr: it is
# started here on a port picked by the test.
tags {process mcds-only} {
    test {--log-file: lines go to the file with a UTC timestamp; SIGHUP reopens it; SIGUSR2 is ignored} {
        set dir [tmpdir logs]
        set log [file join $dir a.log]
        set port [free_port]
        set h [exec_bg $::cfg(server) -p $port -l 127.0.0.1 --log-file $log]
        set pid [lindex $::bg($h,pids) 0]
        wait_for {[string match "*ready*" [log_of $log]]} 100 50
        assert_true {[regexp -line {^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z mcds-server: .*ready} [log_of $log]]}
        # A rotation moves the file; SIGHUP makes the server write a new one.
        file rename $log $log.1
        kill_pid $pid HUP
        wait_for {[string match "*log file * reopened*" [log_of $log]]} 100 20
        kill_pid $pid USR2
        wait_for {[string match "*signal 12*ignored*" [log_of $log]]} 100 20
        set fd [mc_connect_addr 127.0.0.1 $port]
        set r [mc_cmd $fd version]
        mc_close $fd
        kill_pid $pid TERM
        set out [wait_bg $h]
        list $r $out [string match "*stopped*" [log_of $log]]
    } {{VERSION 1.6.18} {} 1}
}

start_server {tags {process mcds-only}} {
    test {SIGUSR1: a graceful stop, exit status 0, the queued messages and items are freed} {
        set fd [mc_connect]
        mc_set $fd a b
        mc_exchange $fd "qpush q1 0 0 1\r\nx\r\n"
        kill_pid [srv pid] USR1
        assert_equal [wait_server_exit] 0
        server_valgrind_check
        assert_match "*graceful stop*" [read_file [srv stderr]]
    }
}

start_server {tags {process mcds-only}} {
    test {SIGQUIT: a clean stop with exit status 0} {
        mc_set [mc_connect] a b
        kill_pid [srv pid] QUIT
        assert_equal [wait_server_exit] 0
        server_valgrind_check
    }
}

start_server {tags {process mcds-only}} {
    set fd [mc_connect]

    # ---- debugtime stays in range ----

    test {debugtime: shifts that would overflow or leave the clock's range are refused} {
        set t0 [mc_stat $fd time]
        set r [mc_exchange $fd [string cat "debugtime 9223372036854775807\r\ndebugtime -9223372036854775808\r\n" \
                                   "debugtime 99999999999999999999\r\ndebugtime 3153600001\r\ndebugtime -100000\r\n"]]
        assert_equal $r [string repeat "CLIENT_ERROR bad command line format\r\n" 5]
        assert_range [expr {[mc_stat $fd time] - $t0}] 0 2
        mc_cmd $fd "debugtime 100"
    } OK

    test {debugdeadpause: a bad or too long pause is refused, 0 and 60000 are OK} {
        mc_exchange $fd [string cat "debugdeadpause x\r\ndebugdeadpause -1\r\ndebugdeadpause 60001\r\n" \
                             "debugdeadpause 4294967296\r\ndebugdeadpause\r\ndebugdeadpause 60000\r\ndebugdeadpause 0\r\n"]
    } [string cat [string repeat "CLIENT_ERROR bad command line format\r\n" 4] "ERROR\r\nOK\r\nOK\r\n"]

    # ---- log injection ----

    test {a key with a line break is escaped in the -vv log: no forged line} {
        mc_cmd $fd "verbosity 2"
        set b [mc_connect]
        bin_exchange $b [bin_pkt GET -key "x\nmcds-server: forged line"]
        mc_close $b
        mc_cmd $fd "verbosity 0"
        set log [read_file [srv stderr]]
        assert_true {![regexp -line {^mcds-server: forged} $log]} "a forged line in the log"
        string match {*x\\x0amcds-server: forged line*} $log
    } 1
}

# ---- the descriptor limit ----

tags {process mcds-only} {
    test {the soft descriptor limit is raised to fit -c} {
        set w [wrapper_script lowsoft.sh "ulimit -Sn 256"]
        set soft {}
        start_server [list binary $w valgrind 0 args {-c 500}] {
            set f [open /proc/[srv pid]/limits]
            set limits [read $f]
            close $f
            regexp -line {^Max open files\s+(\d+)} $limits -> soft
        }
        set soft
    } 564

    test {a hard limit too low for -c: the server refuses to start and says why} {
        set w [wrapper_script lowhard.sh "ulimit -Sn 200; ulimit -Hn 300"]
        lassign [run_cmd 10 $w -p 0 -l 127.0.0.1 -c 500] status out
        list [expr {$status ne 0 && $status ne "timeout"}] [string match "*failed to set rlimit for open files*" $out]
    } {1 1}
}

tags {process mcds-only} {
    test {clients past -c are told "Too many open connections" even with a low starting limit} {
        set w [wrapper_script lowsoft2.sh "ulimit -Sn 64"]
        set r {}
        start_server [list binary $w valgrind 0 args {-c 80}] {
            set cs {}
            for {set i 0} {$i < 80} {incr i} {
                set c [mc_connect]
                assert_equal [mc_cmd $c version] {VERSION 1.6.18}
                lappend cs $c
            }
            set extra [mc_connect]
            set r [mc_read_until_close $extra]
            foreach c $cs { mc_close $c }
        }
        set r
    } "ERROR Too many open connections\r\n"
}

# ---- the UNIX socket ----

tags {process mcds-only} {
    test {-s on a path holding a regular file: refused, the file is kept} {
        set path [file join [open_tmpdir uds] notasocket]
        set f [open $path w]; puts -nonewline $f "precious"; close $f
        lassign [run_server_cmd -s $path] status out
        list [expr {$status ne 0}] [string match "*not a socket*" $out] [read_file $path]
    } {1 1 precious}

    test {-s: a second server on a live socket refuses; the first keeps its socket} {
        set path [file join [open_tmpdir uds] live.sock]
        set h [exec_bg $::cfg(server) -s $path -a 0700]
        wait_for {[file exists $path]} 100 50
        wait_for {[uds_cmd $path version] eq "VERSION 1.6.18"} 50 100
        lassign [run_server_cmd -s $path] status out
        assert_true {$status ne 0} "second server exit status $status"
        assert_match "*another server answers*" $out
        set r [uds_cmd $path version]
        set mode [format %04o [expr {[file attributes $path -permissions] & 0777}]]
        foreach p $::bg($h,pids) { kill_pid $p TERM }
        wait_bg $h
        list $r $mode [file exists $path]
    } {{VERSION 1.6.18} 0700 0}

    test {-s: a dead server's leftover socket is replaced} {
        set path [file join [open_tmpdir uds] stale.sock]
        exec [uds_python] -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv\[1\])" $path
        assert_true {[file exists $path]}
        set h [exec_bg $::cfg(server) -s $path]
        wait_for {[uds_cmd $path version] eq "VERSION 1.6.18"} 50 100
        foreach p $::bg($h,pids) { kill_pid $p TERM }
        wait_bg $h
        file exists $path
    } 0

    test {-a with a mask that is not octal is a bad option} {
        lindex [run_server_cmd -s /tmp/never.sock -a 9] 0
    } 64
}
