# One client cannot make the server hold unbounded memory or slots
# (doc/protocol.md, "Limits a client meets"): replies queued within one
# command are bounded (a long multi-get pauses and resumes as the client
# reads), read buffers have a fixed size and idle connections hold none,
# a multi-get line longer than the read buffer is answered as it arrives,
# qpending answers a bounded count, a waiting command notices its client
# hanging up, and Kestrel reads in a multi-get are checked before anything
# is taken.

# VmRSS and VmHWM (peak) of a process, in kB.
proc proc_mem_kb {pid what} {
    set f [open /proc/$pid/status]
    set data [read $f]
    close $f
    if {![regexp "$what:\\s+(\\d+) kB" $data -> kb]} { error "no $what for $pid" }
    return $kb
}

# Reads n VALUE replies of key k with a 1-byte value "x" then END.
proc read_n_values {fd key n} {
    set one "VALUE $key 0 1\r\nx\r\n"
    set want [expr {[string length $one] * $n + 5}]
    set got [mc_read_bytes $fd $want]
    if {$got ne "[string repeat $one $n]END\r\n"} {
        fail "reply of [string length $got] bytes is not $n values"
    }
    return $n
}

start_server {tags {conn mcds-only valgrind:skip sanitizer:skip}} {
    set fd [mc_connect]

    test {a 2 MB multi-get of one small item: every value comes, the server's peak memory stays bounded} {
        assert_equal [mc_set $fd k x] STORED
        set base [proc_mem_kb [srv pid] VmRSS]
        set n 1000000
        mc_send_bg $fd "get[string repeat { k} $n]\r\n"
        read_n_values $fd k $n
        set peak [expr {[proc_mem_kb [srv pid] VmHWM] - $base}]
        assert_true {$peak < 40 * 1024} "peak memory grew by $peak kB for a 2 MB get"
        mc_exchange $fd "get k\r\n"
    } "VALUE k 0 1\r\nx\r\nEND\r\n"
}

# Multi-gets longer than the read buffer (answered as they arrive).
start_server {tags {conn mcds-only}} {
    set fd [mc_connect]
    mc_set $fd k x

    test {a multi-get longer than the read buffer, sent slowly in pieces, is answered in order} {
        set keys {}
        for {set i 0} {$i < 3000} {incr i} {
            mc_set $fd key:$i v$i
            lappend keys key:$i
        }
        set line "get [join $keys { }] nokey\r\n"
        for {set at 0} {$at < [string length $line]} {incr at 7001} {
            mc_send $fd [string range $line $at [expr {$at + 7000}]]
            after 5
        }
        set vals [mc_read_values $fd]
        assert_equal [llength $vals] 3000
        set bad 0
        for {set i 0} {$i < 3000} {incr i} {
            if {[lindex $vals $i 0] ne "key:$i" || [lindex $vals $i 2] ne "v$i"} { incr bad }
        }
        set bad
    } 0

    test {a long multi-get with a key over 250 bytes: CLIENT_ERROR, and the connection stays in step} {
        set line "get[string repeat { k} 20000] [string repeat z 251][string repeat { k} 100]\r\nget k\r\n"
        set r [mc_exchange $fd $line]
        # Values may have gone out before the bad key was met; the line
        # then ends with the error instead of END.
        regsub -all "VALUE k 0 1\r\nx\r\n" $r {} r
        set r
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {a key longer than 250 bytes that never ends: CLIENT_ERROR at once, the line is skipped to its end} {
        set c [mc_connect]
        mc_send $c "get k k [string repeat z 40000]"
        set r [mc_readline $c]
        # The values of k may have been sent before the error.
        while {$r ne "CLIENT_ERROR bad command line format"} {
            assert_equal $r "VALUE k 0 1"
            assert_equal [mc_readline $c] x
            set r [mc_readline $c]
        }
        mc_exchange $c "[string repeat z 40000] more keys\r\nget k\r\n"
    } "VALUE k 0 1\r\nx\r\nEND\r\n"
}

start_server {tags {conn mcds-only valgrind:skip sanitizer:skip}} {
    test {100 connections that send 1 MB of a get line and idle: memory stays bounded} {
        set base [proc_mem_kb [srv pid] VmRSS]
        set conns {}
        set keys [string repeat { somekey} 131072]
        for {set i 0} {$i < 100} {incr i} {
            set c [mc_connect]
            fconfigure $c -blocking 0
            puts -nonewline $c "get$keys"
            lappend conns $c
        }
        foreach c $conns { fconfigure $c -blocking 1; flush $c }
        set fd [mc_connect]
        mc_exchange $fd "version\r\n"
        set grown [expr {[proc_mem_kb [srv pid] VmRSS] - $base}]
        foreach c $conns { mc_close $c }
        assert_true {$grown < 30 * 1024} "RSS grew by $grown kB"
        set grown
    } * 
}

start_server {tags {conn mcds-only}} {
    set fd [mc_connect]

    test {idle connections hold no read buffer} {
        set conns {}
        for {set i 0} {$i < 20} {incr i} {
            set c [mc_connect]
            mc_exchange $c "set idle$i 0 0 1\r\nx\r\n"
            lappend conns $c
        }
        set s [mc_stats $fd]
        foreach c $conns { mc_close $c }
        # Only the connection asking holds one, while it asks.
        expr {[dict get $s read_buf_bytes] - [dict get $s read_buf_bytes_free] <= 16384}
    } 1

    test {qpending answers at most 1000 messages by default, or the count asked (up to 10000)} {
        for {set i 0} {$i < 1100} {incr i} {
            append pushes "qpush pq 0 0 1\r\nx\r\n"
        }
        mc_exchange $fd $pushes
        q_pop $fd pq 100
        for {set i 0} {$i < 10} {incr i} { q_pop $fd pq 100 }
        set all [q_pending $fd pq]
        set some [regexp -all {PENDING } [mc_exchange $fd "qpending pq 7\r\n"]]
        set vals [regexp -all {PENDING } [mc_exchange $fd "qpending pq values 1100\r\n"]]
        list [llength $all] $some $vals [mc_exchange $fd "qpending pq 0\r\nqpending pq 10001\r\nqpending pq values x\r\n"]
    } [list 1000 7 1100 [string repeat "CLIENT_ERROR count must be 1..10000\r\n" 3]]

    # ---- Kestrel reads in a multi-get are checked before anything is taken ----

    test {get of a queue with a 251-byte key after it: CLIENT_ERROR, the message is not taken} {
        set fd [mc_connect]
        mc_exchange $fd "qcreate kq1\r\nset kq1 0 0 3\r\njob\r\n"
        assert_equal [mc_exchange $fd "get kq1 [string repeat z 251]\r\n"] "CLIENT_ERROR bad command line format\r\n"
        list [q_counts $fd kq1] [mc_exchange $fd "get kq1\r\n"]
    } [list {1 0 0} "VALUE kq1 0 3\r\njob\r\nEND\r\n"]

    test {/peek with /open, /close or /abort anywhere in a get: CLIENT_ERROR, nothing taken, still connected} {
        set fd [mc_connect]
        mc_exchange $fd "qcreate kq2\r\nset kq2 0 0 3\r\njob\r\n"
        set r [mc_exchange $fd "get kq2 kq2/open/peek\r\nget kq2/peek/close\r\n"]
        list $r [q_counts $fd kq2]
    } [list [string repeat "CLIENT_ERROR /peek cannot be combined with /open, /close or /abort\r\n" 2] {1 0 0}]

    test {/open with another key in the same get: CLIENT_ERROR, no read is opened} {
        set fd [mc_connect]
        mc_exchange $fd "qcreate kq3\r\nset kq3 0 0 3\r\njob\r\n"
        set r [mc_exchange $fd "get kq3/open [string repeat z 251]\r\nget kq3/open other\r\n"]
        list $r [q_counts $fd kq3] [mc_exchange $fd "get kq3/close\r\nget kq3\r\n"]
    } [list "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR /open, /close and /abort need a get of that key alone\r\n" \
           {1 0 0} "END\r\nVALUE kq3 0 3\r\njob\r\nEND\r\n"]

    test {gets of a queue answers the full VALUE line (CAS 0): a client that parses it loses nothing} {
        mc_exchange $fd "qcreate kq4\r\nset kq4 5 0 3\r\njob\r\n"
        mc_exchange $fd "gets kq4\r\n"
    } "VALUE kq4 5 3 0\r\njob\r\nEND\r\n"

    test {get <queue>/t= beyond the longest wait is not a queue read: END at once} {
        mc_exchange $fd "qcreate kq5\r\nget kq5/t=100000000001\r\n"
    } "CREATED\r\nEND\r\n"

    # ---- hang-ups while a command waits ----

    test {a client that shuts down its side while its qpop waits: END, then its pipelined get, then close} {
        mc_set $fd hc1 v
        set c [mc_connect]
        mc_send $c "qpop hcq wait=100\r\nget hc1\r\n"
        q_wait_waiters $fd hcq 1
        close $c write
        mc_read_until_close $c
    } "END\r\nVALUE hc1 0 1\r\nv\r\nEND\r\n"

    test {binary: a key length over 250 is refused without waiting for the key} {
        set c [mc_connect]
        mc_send $c [string range [bin_pkt GET -key [string repeat k 300]] 0 23]
        set r [bin_read $c]
        list [dict get $r status] [mc_is_closed $c]
    } {4 1}
}

# probe_alone -> 1 once a connection (kept in the caller's f) is served and
# is the only client connection the server counts.
proc probe_alone {} {
    upvar 1 f f
    if {$f eq "" && [catch {set f [mc_connect]; mc_cmd $f version} r]} { set f {}; return 0 }
    if {[catch {mc_stat $f curr_connections} n]} { catch {close $f}; set f {}; return 0 }
    return [expr {$n == 1}]
}

start_server {tags {conn mcds-only} args {-c 20}} {
    test {20 clients that wait and hang up after 20 KB of input free their slots} {
        set junk [string repeat "get x\r\n" 3000]
        set fd [mc_connect]
        mc_close $fd
        # 20 KB fit in the kernel's socket buffers: the writes complete.
        for {set i 0} {$i < 20} {incr i} {
            set c [mc_connect]
            mc_send $c "qpop slotq wait=100000000\r\n$junk"
            lappend cs $c
        }
        foreach c $cs { close $c }
        # Each hang-up is seen by its own worker thread, in its own time:
        # wait until one probe connection is the only one counted.
        set f {}
        wait_for {[probe_alone]} 100 100
        set waiters [q_stat $f slotq waiters]
        # Every slot is free again: the probe and 19 more clients are served.
        set served 0
        for {set i 0} {$i < 19} {incr i} {
            set c [mc_connect]
            if {[string match "VERSION*" [mc_cmd $c version]]} { incr served }
            lappend more $c
        }
        foreach c $more { close $c }
        list $waiters $served
    } {0 19}
}
