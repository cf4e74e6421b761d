# A small, binary-safe memcached text-protocol client for tests.
#
# Channels are binary (no translation, no encoding) and blocking for writes.
# Reads wait for data with a deadline (reply_timeout_ms), so a server that
# never answers fails the test instead of hanging the unit. Reply lines must
# end in \r\n; mc_readline returns them without it.
#
# This file depends only on util.tcl (reply_timeout_ms, visible) and, for
# mc_connect, on server.tcl; helpers in t/helpers source it on its own and
# use mc_connect_addr.

# mc_connect ?level? -> channel to that server (closed when its block ends).
proc mc_connect {{level 0}} {
    set id [srv_id $level]
    set fd [mc_connect_addr $::srvinfo($id,host) $::srvinfo($id,port)]
    lappend ::srvinfo($id,fds) $fd
    return $fd
}

proc mc_connect_addr {host port} {
    set fd [socket $host $port]
    fconfigure $fd -translation binary -encoding binary -blocking 1 -buffering full \
        -buffersize 1048576
    return $fd
}

proc mc_close {fd} {
    catch {close $fd}
    foreach key [array names ::srvinfo *,fds] {
        set i [lsearch -exact $::srvinfo($key) $fd]
        if {$i >= 0} { set ::srvinfo($key) [lreplace $::srvinfo($key) $i $i] }
    }
}

# mc_send fd bytes: write raw bytes and flush.
proc mc_send {fd bytes} {
    puts -nonewline $fd $bytes
    flush $fd
}

# mc_send_bg fd bytes: writes bytes in the background (the event loop
# flushes them while the test waits for replies), for requests whose
# replies must be read before the request has been sent in full.
proc mc_send_bg {fd bytes} {
    fconfigure $fd -blocking 0
    puts -nonewline $fd $bytes
    flush $fd
}

# Wait until fd is readable or the deadline (ms clock) passes.
proc mc__wait_readable {fd deadline what} {
    set remaining [expr {$deadline - [clock milliseconds]}]
    if {$remaining <= 0} {
        fail "timeout waiting for $what from the server"
    }
    set var ::mc__ev($fd)
    set $var {}
    fileevent $fd readable [list set $var readable]
    set id [after $remaining [list set $var timeout]]
    vwait $var
    after cancel $id
    fileevent $fd readable {}
    set ev [set $var]
    unset $var
    if {$ev eq "timeout"} {
        fail "timeout waiting for $what from the server"
    }
}

# mc_readline fd -> one reply line without its \r\n. Fails on timeout, on a
# line not ending in \r\n, and when the server closes the connection.
proc mc_readline {fd} {
    set deadline [expr {[clock milliseconds] + [reply_timeout_ms]}]
    fconfigure $fd -blocking 0
    try {
        while 1 {
            set n [gets $fd line]
            if {$n >= 0 && ![eof $fd]} break
            if {[eof $fd]} {
                if {$n > 0} {
                    fail "connection closed after a partial line '[visible $line]'"
                }
                fail "connection closed by the server while waiting for a reply line"
            }
            mc__wait_readable $fd $deadline "a reply line"
        }
    } finally {
        fconfigure $fd -blocking 1
    }
    if {[string index $line end] ne "\r"} {
        fail "reply line not terminated by \\r\\n: '[visible $line]\\n'"
    }
    return [string range $line 0 end-1]
}

# mc_read_bytes fd n -> exactly n bytes.
proc mc_read_bytes {fd n} {
    set deadline [expr {[clock milliseconds] + [reply_timeout_ms]}]
    set buf {}
    fconfigure $fd -blocking 0
    try {
        while {[string length $buf] < $n} {
            set chunk [read $fd [expr {$n - [string length $buf]}]]
            append buf $chunk
            if {[string length $buf] >= $n} break
            if {[eof $fd]} {
                fail "connection closed after [string length $buf] of $n bytes: '[visible $buf]'"
            }
            if {$chunk eq {}} {
                mc__wait_readable $fd $deadline "$n bytes (have [string length $buf]: '[visible $buf]')"
            }
        }
    } finally {
        fconfigure $fd -blocking 1
    }
    return $buf
}

# mc_expect fd bytes: read as many bytes as expected and compare exactly.
proc mc_expect {fd expected} {
    set got [mc_read_bytes $fd [string length $expected]]
    assert_equal $got $expected
}

# mc_read_until_close fd ?ms? -> every byte until the server closes the
# connection. Fails if it is still open after ms (default: reply timeout).
proc mc_read_until_close {fd {ms {}}} {
    if {$ms eq {}} { set ms [reply_timeout_ms] }
    set deadline [expr {[clock milliseconds] + $ms}]
    set buf {}
    fconfigure $fd -blocking 0
    try {
        while 1 {
            if {[catch {read $fd} chunk]} {
                # ECONNRESET and the like: closed too.
                break
            }
            append buf $chunk
            if {[eof $fd]} break
            if {$chunk eq {}} {
                mc__wait_readable $fd $deadline "the connection to close (got '[visible $buf]')"
            }
        }
    } finally {
        catch {fconfigure $fd -blocking 1}
    }
    return $buf
}

# mc_last_reply bytes -> on a new connection, everything the server sends
# for bytes before it closes the connection (fails if it stays open).
proc mc_last_reply {bytes} {
    set fd [mc_connect]
    mc_send $fd $bytes
    set r [mc_read_until_close $fd]
    mc_close $fd
    return $r
}

# mc_is_closed fd ?ms? -> 1 if the server closed the connection within ms
# (bytes received before the close are discarded), 0 if it stayed open.
proc mc_is_closed {fd {ms 2000}} {
    if {[catch {mc_read_until_close $fd [expr {$ms * [time_factor]}]}]} { return 0 }
    return 1
}

# mc_no_reply fd ?ms?: assert that nothing arrives within ms.
proc mc_no_reply {fd {ms 200}} {
    fconfigure $fd -blocking 0
    set var ::mc__quiet($fd)
    set $var {}
    fileevent $fd readable [list set $var readable]
    set id [after $ms [list set $var quiet]]
    vwait $var
    after cancel $id
    fileevent $fd readable {}
    set ev [set $var]
    unset $var
    set data {}
    if {$ev eq "readable"} { catch {set data [read $fd]} }
    fconfigure $fd -blocking 1
    if {$ev eq "readable"} {
        if {$data eq {} && [eof $fd]} { fail "connection closed, expected it to stay open and silent" }
        fail "expected no reply but got '[visible $data]'"
    }
}

# mc_exchange fd bytes -> every byte the server sends in reply to bytes.
# A "version" command is sent after them as a fence; the reply is read up
# to its "VERSION ..." line, which is not returned. Exact: a stray byte, a
# missing reply or a bare \n shows up in the result. Not for bytes that
# themselves contain a version command (use mc_send and mc_expect).
proc mc_exchange {fd bytes} {
    mc_send $fd "${bytes}version\r\n"
    set deadline [expr {[clock milliseconds] + [reply_timeout_ms]}]
    set out {}
    fconfigure $fd -blocking 0
    try {
        while 1 {
            set n [gets $fd line]
            if {$n >= 0 && ![eof $fd]} {
                if {[regexp {^VERSION [^ ]+\r$} $line]} break
                append out $line\n
                continue
            }
            if {[eof $fd]} {
                fail "connection closed before the version fence; got '[visible $out$line]'"
            }
            mc__wait_readable $fd $deadline "the version fence (got '[visible $out]')"
        }
    } finally {
        fconfigure $fd -blocking 1
    }
    return $out
}

# mc_cmd fd line -> first reply line of "line\r\n".
proc mc_cmd {fd line} {
    mc_send $fd "$line\r\n"
    return [mc_readline $fd]
}

# mc_set fd key value ?flags? ?exptime? ?verb? -> reply line.
proc mc_set {fd key value {flags 0} {exptime 0} {verb set}} {
    mc_send $fd "$verb $key $flags $exptime [string length $value]\r\n$value\r\n"
    return [mc_readline $fd]
}

# mc_cas fd key value cas ?flags? ?exptime? -> reply line.
proc mc_cas {fd key value cas {flags 0} {exptime 0}} {
    mc_send $fd "cas $key $flags $exptime [string length $value] $cas\r\n$value\r\n"
    return [mc_readline $fd]
}

# mc_read_values fd -> list of {key flags value ?cas?} read up to END.
# Any other reply line raises an error carrying that line.
proc mc_read_values {fd} {
    set out {}
    while 1 {
        set line [mc_readline $fd]
        if {$line eq "END"} break
        if {![regexp {^VALUE (\S+) (\d+) (\d+)(?: (\d+))?$} $line -> key flags len cas]} {
            error "unexpected reply: $line"
        }
        set data [mc_read_bytes $fd [expr {$len + 2}]]
        if {[string range $data end-1 end] ne "\r\n"} {
            fail "data block of $key not terminated by \\r\\n: '[visible $data]'"
        }
        set item [list $key $flags [string range $data 0 end-2]]
        if {$cas ne {}} { lappend item $cas }
        lappend out $item
    }
    return $out
}

# mc_get fd key -> the value, or {} on a miss.
proc mc_get {fd key} {
    mc_send $fd "get $key\r\n"
    set vals [mc_read_values $fd]
    if {![llength $vals]} { return {} }
    return [lindex $vals 0 2]
}

# mc_gets fd key -> {value cas}, or {} on a miss.
proc mc_gets {fd key} {
    mc_send $fd "gets $key\r\n"
    set vals [mc_read_values $fd]
    if {![llength $vals]} { return {} }
    return [list [lindex $vals 0 2] [lindex $vals 0 3]]
}

# mc_fill fd prefix n len: stores values of len bytes under prefix0 ..
# prefix<n-1>, noreply, a thousand a round trip (a refused store still
# answers); returns what the server said.
proc mc_fill {fd prefix n len} {
    set v [string repeat f $len]
    set said ""
    for {set i 0} {$i < $n} {incr i 1000} {
        set batch ""
        for {set j $i} {$j < $i + 1000 && $j < $n} {incr j} {
            append batch "set $prefix$j 0 0 $len noreply\r\n$v\r\n"
        }
        append said [mc_exchange $fd $batch]
    }
    return $said
}

# mc_getflags fd key -> {flags value}, or {} on a miss.
proc mc_getflags {fd key} {
    mc_send $fd "get $key\r\n"
    set vals [mc_read_values $fd]
    if {![llength $vals]} { return {} }
    return [list [lindex $vals 0 1] [lindex $vals 0 2]]
}

# mc_stats fd ?sub? -> dict of the STAT lines.
proc mc_stats {fd {sub {}}} {
    if {$sub eq {}} { mc_send $fd "stats\r\n" } else { mc_send $fd "stats $sub\r\n" }
    set d [dict create]
    while 1 {
        set line [mc_readline $fd]
        if {$line eq "END"} break
        if {![regexp {^STAT (\S+) (.*)$} $line -> name value]} {
            error "unexpected stats line: $line"
        }
        dict set d $name $value
    }
    return $d
}

# mc_stat fd name -> one value of the general stats.
proc mc_stat {fd name} {
    set d [mc_stats $fd]
    if {![dict exists $d $name]} { error "no stat named $name" }
    return [dict get $d $name]
}

# mc_malloced fd -> the bytes counted against -m (stats slabs'
# total_malloced): what every structure holds, not only cache items.
proc mc_malloced {fd} {
    set r [mc_exchange $fd "stats slabs\r\n"]
    if {![regexp {STAT total_malloced (\d+)\r\n} $r -> v]} { fail "stats slabs: '[visible $r]'" }
    return $v
}

# mc_stats_delta fd request names -> {name change ...}: what sending request
# changed each of the named general stats by.
proc mc_stats_delta {fd request names} {
    set before [mc_stats $fd]
    mc_exchange $fd $request
    set after [mc_stats $fd]
    set out {}
    foreach n $names { lappend out $n [expr {[dict get $after $n] - [dict get $before $n]}] }
    return $out
}

# Key scans (doc/protocol.md, "Key scans").
# k_page fd line -> {keys next}: the KEY lines of one page as {key type
# ttl} triples, and the cursor to continue with.
proc k_page {fd line} {
    set r [mc_exchange $fd "$line\r\n"]
    set keys {}
    foreach l [split [string trimright $r "\n"] "\n"] {
        set l [string trimright $l "\r"]
        if {[regexp {^KEY (\S+) (\S+) (-?\d+)$} $l -> k t ttl]} {
            lappend keys [list $k $t $ttl]
        } elseif {[regexp {^CURSOR (\d+)$} $l -> next]} {
        } elseif {$l ne "END"} {
            fail "unexpected line '[visible $l]' in '[visible $r]'"
        }
    }
    list $keys $next
}

# k_all fd args -> every {key type ttl} of a whole scan with options args.
proc k_all {fd args} {
    lassign [k_page $fd "kscan 0 [join $args { }]"] all next
    while {$next != 0} {
        lassign [k_page $fd "kscan $next count=1000"] keys next
        lappend all {*}$keys
    }
    return $all
}
