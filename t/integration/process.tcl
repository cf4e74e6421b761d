# mcds as a process: command-line options, the -p 0 port report, signals
# and clean exits, and back-pressure on a client that never reads.

start_server {tags {process mcds-only}} {
    test {-p 0: stderr reports the port actually bound} {
        set log [read_file [srv stderr]]
        assert_true {[regexp {listening on 127\.0\.0\.1:(\d+)} $log -> port]} "stderr: $log"
        assert_true {$port > 0}
        set port
    } [srv port]

    test {-p 0: the reported port speaks the protocol} {
        set fd [mc_connect]
        mc_cmd $fd version
    } {VERSION 1.6.18}

    test {stats settings tcpport is the bound port} {
        set fd [mc_connect]
        dict get [mc_stats $fd settings] tcpport
    } [srv port]

    test {debugtime with a non-numeric argument does not move the clock} {
        set fd [mc_connect]
        set t0 [mc_stat $fd time]
        set r [mc_cmd $fd "debugtime abc"]
        assert_true {$r ne "OK"} "reply $r"
        assert_range [expr {[mc_stat $fd time] - $t0}] 0 2
    }
}

tags {process mcds-only} {
    test {--help prints the usage and exits 0} {
        lassign [run_server_cmd --help] status out
        assert_equal $status 0 "output: $out"
        assert_match {*-p*} $out
        assert_match {*-m*} $out
        assert_match {*-I*} $out
    }

    test {-h is --help} {
        lindex [run_server_cmd -h] 0
    } 0

    test {-V prints the version and exits 0} {
        lassign [run_server_cmd -V] status out
        assert_equal $status 0
        assert_true {[regexp {\d+\.\d+\.\d+} $out]} "output: $out"
        llength [split [string trim $out] \n]
    } 1

    test {an unknown option exits non-zero with a message} {
        lassign [run_server_cmd --no-such-option] status out
        assert_true {$status ne "0" && $status ne "timeout"} "status $status"
        assert_match {*no-such-option*} $out
    }

    test {an option missing its argument exits non-zero} {
        lindex [run_server_cmd -p 0 -l 127.0.0.1 -m] 0
    } {[1-9]*}

    test {a bad -m value exits non-zero} {
        lindex [run_server_cmd -p 0 -l 127.0.0.1 -m abc] 0
    } {[1-9]*}

    test {a bad -I value exits non-zero} {
        lindex [run_server_cmd -p 0 -l 127.0.0.1 -I 12q] 0
    } {[1-9]*}

    test {a port that is already taken exits non-zero} {
        set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
        set port [lindex [fconfigure $s -sockname] 2]
        set r [run_server_cmd -p $port -l 127.0.0.1]
        close $s
        lindex $r 0
    } {[1-9]*}
}

start_server {tags {process mcds-only}} {
    test {SIGTERM: clean exit with status 0, with clients connected and items stored} {
        set fd [mc_connect]
        for {set i 0} {$i < 100} {incr i} { mc_set $fd k$i [string repeat x 1000] }
        set idle [mc_connect]
        mc_send $idle "set half 0 0 100\r\nabc"
        kill_pid [srv pid] TERM
        assert_equal [wait_server_exit] 0
        server_valgrind_check
    }
}

start_server {tags {process mcds-only}} {
    test {SIGINT: clean exit with status 0} {
        set fd [mc_connect]
        mc_set $fd a b
        kill_pid [srv pid] INT
        assert_equal [wait_server_exit] 0
        server_valgrind_check
    }
}

# VmRSS of a process in kB.
proc rss_kb {pid} {
    set f [open /proc/$pid/status]
    set data [read $f]
    close $f
    if {![regexp {VmRSS:\s+(\d+) kB} $data -> kb]} { error "no VmRSS for $pid" }
    return $kb
}

start_server {tags {process mcds-only slow valgrind:skip}} {
    test {a client that never reads: the server stays responsive and its memory bounded} {
        set fd [mc_connect]
        set v [randstring 500000]
        assert_equal [mc_set $fd big $v] STORED
        set base [rss_kb [srv pid]]

        # 4000 gets of 500 KB would be 2 GB of replies. Write them without
        # ever reading; the writes must not block this test.
        set hog [mc_connect]
        fconfigure $hog -blocking 0 -buffering full -buffersize 65536
        set line "get big\r\n"
        set sent 0
        set deadline [expr {[clock milliseconds] + 5000}]
        while {$sent < 4000 && [clock milliseconds] < $deadline} {
            puts -nonewline $hog $line
            incr sent
            if {$sent % 100 == 0} { flush $hog; after 10 }
        }
        flush $hog
        after 1000

        # Another client is served at once, big values included.
        set other [mc_connect]
        for {set i 0} {$i < 20} {incr i} {
            assert_equal [mc_exchange $other "set o$i 0 0 [string length $i]\r\n$i\r\nget nokey\r\n"] "STORED\r\nEND\r\n"
        }
        assert_equal [mc_get $other big] $v

        set grown [expr {[rss_kb [srv pid]] - $base}]
        assert_true {$grown < 200 * 1024} "server RSS grew by $grown kB"

        # The hog reads a little: its replies are intact and in order.
        fconfigure $hog -blocking 1
        mc_expect $hog "VALUE big 0 500000\r\n$v\r\nEND\r\n"
        mc_expect $hog "VALUE big 0 500000\r\n$v\r\nEND\r\n"
        set grown [expr {[rss_kb [srv pid]] - $base}]
        assert_true {$grown < 200 * 1024} "server RSS grew by $grown kB"
        # Drop the hog with replies still pending; the server must cope.
        fconfigure $hog -blocking 0
        mc_close $hog
        after 200
        mc_exchange $other "get nokey\r\n"
    } "END\r\n"
}
