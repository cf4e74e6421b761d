# Black-box tests of doc/protocol.md "Queues through classic commands
# (Kestrel's dialect)": get <queue>/open, /close, /abort, /peek, /t=, the
# error table, what a dropped connection gives back, and that hang-ups
# leave no connection, waiter or descriptor behind.

proc kd_fds {} { llength [glob -nocomplain /proc/[srv pid]/fd/*] }
proc kd_counts {fd q} { lmap n {ready in_flight} { q_stat $fd $q $n } }

start_server {tags {kestrel mcds-only}} {
    set fd [mc_connect]

    test {protocol.md, Kestrel's dialect and queues: an open read is held by its connection alone: qinfo names it kestrel, no lease time; others get NOT_FOUND} {
        set k [mc_connect]
        mc_exchange $fd "qcreate ko lease=1\r\nset ko 0 0 2\r\nm1\r\n"
        assert_equal [mc_exchange $k "get ko/open\r\n"] "VALUE ko/open 0 2\r\nm1\r\nEND\r\n"
        regexp {PENDING (\d+) } [mc_exchange $fd "qpending ko\r\n"] -> id
        set info [mc_exchange $fd "qinfo ko $id\r\n"]
        # lease=1 of the queue does not apply: still held after 1.5 s
        after 1500
        list [regexp {STAT lease_ms_left -1\r\n} $info] [regexp {STAT holder kestrel \d+ tcp:127\.0\.0\.1:\d+\r\n} $info] \
            [mc_exchange $fd "qack ko $id\r\nqrelease ko $id\r\nqtouch ko $id\r\nqpop ko ack=$id\r\n"] \
            [kd_counts $fd ko] [mc_exchange $k "get ko/close\r\n"] [kd_counts $fd ko]
    } [list 1 1 "NOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nEND\r\n" {0 1} "END\r\n" {0 0}]

    test {protocol.md, Kestrel's dialect: the VALUE line repeats the key as asked, /t= and /open/t= included} {
        mc_exchange $fd "qcreate kv\r\nset kv 3 0 1\r\na\r\nset kv 4 0 1\r\nb\r\n"
        set k [mc_connect]
        mc_exchange $k "get kv/t=100\r\nget kv/open/t=100\r\nget kv/close\r\n"
    } "VALUE kv/t=100 3 1\r\na\r\nEND\r\nVALUE kv/open/t=100 4 1\r\nb\r\nEND\r\nEND\r\n"

    test {protocol.md, Kestrel's dialect: /t=100000000000 is a queue read that waits; one more is not a queue read (END at once)} {
        mc_exchange $fd "qcreate kt\r\n"
        set k [mc_connect]
        set t0 [clock milliseconds]
        set quick [mc_exchange $k "get kt/t=100000000001\r\n"]
        set ms [expr {[clock milliseconds] - $t0}]
        mc_send $k "get kt/t=100000000000\r\n"
        after 300
        set waiters [q_stat $fd kt waiters]
        mc_exchange $fd "set kt 0 0 1\r\nz\r\n"
        list $quick [expr {$ms < 1000}] $waiters [mc_readline $k] [mc_readline $k]
    } [list "END\r\n" 1 1 {VALUE kt/t=100000000000 0 1} z]

    test {protocol.md, Kestrel's dialect, errors: each error answers one line, nothing taken, the connection and its open read stay} {
        mc_exchange $fd "qcreate ke\r\nqcreate ke2\r\n"
        foreach i {1 2 3} { mc_exchange $fd "set ke 0 0 1\r\n$i\r\nset ke2 0 0 1\r\n$i\r\n" }
        set k [mc_connect]
        assert_equal [mc_exchange $k "get ke/open\r\n"] "VALUE ke/open 0 1\r\n1\r\nEND\r\n"
        set long [string repeat x 251]
        set r [mc_exchange $k [string cat "get ke/open\r\nget ke2/open\r\nget ke\r\nget ke/peek/open\r\n" \
            "get ke2/close other\r\nget ke2 $long\r\n"]]
        list $r [kd_counts $fd ke] [kd_counts $fd ke2] [mc_exchange $k "get ke/close\r\n"] [kd_counts $fd ke]
    } [list [string cat "CLIENT_ERROR a read is already open on this connection\r\n" \
                 "CLIENT_ERROR a read is already open on this connection\r\n" \
                 "CLIENT_ERROR this connection has a read open on that queue\r\n" \
                 "CLIENT_ERROR /peek cannot be combined with /open, /close or /abort\r\n" \
                 "CLIENT_ERROR /open, /close and /abort need a get of that key alone\r\n" \
                 "CLIENT_ERROR bad command line format\r\n"] \
         {2 1} {3 0} "END\r\n" {2 0}]

    test {protocol.md, binary, keys that hold a queue: binary GET of <queue>/open is a miss; nothing is taken} {
        mc_exchange $fd "qcreate kb\r\nset kb 0 0 1\r\nq\r\n"
        set b [mc_connect]
        mc_send $b [bin_pkt GET -key kb/open]
        set r [bin_read $b]
        mc_send $b [bin_pkt GET -key kb]
        set r2 [bin_read $b]
        list [dict get $r status] [dict get $r2 status] [kd_counts $fd kb]
    } {1 1 {1 0}}

    test {protocol.md, Kestrel's dialect: 40 connections that /open and drop give every message back; no descriptor is kept} {
        mc_exchange $fd "qcreate kd\r\n"
        for {set i 0} {$i < 50} {incr i} { mc_send $fd "set kd 0 0 2\r\n[format %02d $i]\r\n" }
        mc_exchange $fd ""
        set base [kd_fds]
        set cs {}
        for {set i 0} {$i < 40} {incr i} {
            set c [mc_connect]
            mc_send $c "get kd/open\r\n"
            lappend cs $c
        }
        set opened 0
        foreach c $cs { if {[string match "VALUE kd/open *" [mc_readline $c]]} { incr opened } }
        set held [kd_counts $fd kd]
        foreach c $cs { mc_close $c }
        wait_for {[q_stat $fd kd in_flight] == 0} 50 100
        # every message is there, read once each
        set got {}
        for {set i 0} {$i < 50} {incr i} { lappend got [lindex [split [mc_exchange $fd "get kd\r\n"] \n] 1] }
        list $opened $held [kd_counts $fd kd] [llength [lsort -unique $got]] [expr {[kd_fds] <= $base}]
    } {40 {10 40} {0 0} 50 1}

    test {protocol.md, limits a client meets: 40 /t= waiters that hang up (half close or close) free their slots; a later set stays ready} {
        mc_exchange $fd "qcreate kw\r\n"
        set base [kd_fds]
        set conns [mc_stat $fd curr_connections]
        set cs {}
        for {set i 0} {$i < 40} {incr i} {
            set c [mc_connect]
            mc_send $c "get kw/t=60000\r\nversion\r\n"
            lappend cs $c
        }
        wait_for {[q_stat $fd kw waiters] == 40} 50 100
        set half {}
        foreach c [lrange $cs 0 19] { lappend half [catch {chan close $c write}] }
        foreach c [lrange $cs 20 end] { mc_close $c }
        set first [mc_read_until_close [lindex $cs 0] 3000]
        foreach c [lrange $cs 1 19] { mc_read_until_close $c 3000; mc_close $c }
        mc_close [lindex $cs 0]
        wait_for {[mc_stat $fd curr_connections] == $conns} 50 100
        mc_exchange $fd "set kw 0 0 1\r\nw\r\n"
        list $first [q_stat $fd kw waiters] [expr {[mc_stat $fd curr_connections] - $conns}] [kd_counts $fd kw] [expr {[kd_fds] <= $base}]
    } [list "END\r\nVERSION 1.6.18\r\n" 0 0 {1 0} 1]
}

start_server {tags {kestrel mcds-only}} {
    test {operating.md:11: SIGTERM with open reads and /t= waiters exits 0 at once} {
        set fd [mc_connect]
        mc_exchange $fd "qcreate ks\r\nset ks 0 0 1\r\na\r\nset ks 0 0 1\r\nb\r\nqcreate ks2\r\n"
        set o1 [mc_connect]
        mc_exchange $o1 "get ks/open\r\n"
        set w1 [mc_connect]
        mc_send $w1 "get ks2/t=100000\r\n"
        set w2 [mc_connect]
        mc_send $w2 "get ks2/open/t=100000\r\n"
        after 300
        set t0 [clock milliseconds]
        kill_pid [srv pid] TERM
        set st [wait_server_exit 0 10]
        list $st [expr {[clock milliseconds] - $t0 < 3000}] [mc_is_closed $o1] [mc_is_closed $w1] [mc_is_closed $w2]
    } {0 1 1 1 1}
}
