# Queue helpers shared by every unit that speaks the queue verbs
# (doc/protocol.md, "3. Queues"). Ids are unique across the whole server,
# so tests read them from PUSHED replies and build expected bytes from them.

# q_push fd queue data ?flags? ?delay? ?priority? -> the id of "PUSHED <id>".
proc q_push {fd q data {flags 0} {delay 0} {pri {}}} {
    set line "qpush $q $flags $delay [string length $data]"
    if {$pri ne {}} { append line " $pri" }
    set r [mc_exchange $fd "$line\r\n$data\r\n"]
    if {![regexp {^PUSHED (\d+)\r\n$} $r -> id]} { fail "$line answered '[visible $r]'" }
    return $id
}

# q_item id flags data deliveries -> the bytes of one ITEM of qpop/qpeek.
proc q_item {id flags data n} {
    return "ITEM $id $flags [string length $data] $n\r\n$data\r\n"
}

# q_parse bytes -> list of {id flags data deliveries} from ITEM ... END
# (fails on anything else, or on bytes after END); an ITEM line that names
# its queue (qpopany) adds the queue: {id flags data deliveries queue}.
proc q_parse {bytes} {
    set out {}
    set pos 0
    while 1 {
        set eol [string first "\r\n" $bytes $pos]
        if {$eol < 0} { fail "no END line in '[visible $bytes]'" }
        set line [string range $bytes $pos [expr {$eol - 1}]]
        set pos [expr {$eol + 2}]
        if {$line eq "END"} {
            if {$pos != [string length $bytes]} { fail "bytes after END: '[visible $bytes]'" }
            return $out
        }
        if {![regexp {^ITEM (\d+) (\d+) (\d+) (\d+)( \S+)?$} $line -> id flags len n q]} {
            fail "unexpected line '[visible $line]' in '[visible $bytes]'"
        }
        set data [string range $bytes $pos [expr {$pos + $len - 1}]]
        if {[string range $bytes [expr {$pos + $len}] [expr {$pos + $len + 1}]] ne "\r\n"} {
            fail "data block of ITEM $id not terminated in '[visible $bytes]'"
        }
        set pos [expr {$pos + $len + 2}]
        set it [list $id $flags $data $n]
        if {$q ne {}} { lappend it [string range $q 1 end] }
        lappend out $it
    }
}

# q_pop fd queue ?args? -> parsed items of "qpop queue args".
proc q_pop {fd q args} {
    return [q_parse [mc_exchange $fd "[join [list qpop $q {*}$args]]\r\n"]]
}

# q_stats fd queue -> dict of qstats (fails on NOT_FOUND).
proc q_stats {fd q} {
    return [q_stat_lines $fd "qstats $q"]
}

# q_stat_lines fd line -> dict of the STAT lines a request answers before
# END (qstats, qinfo); fails on any other reply.
proc q_stat_lines {fd request} {
    set r [mc_exchange $fd "$request\r\n"]
    set d [dict create]
    foreach line [split [string trimright $r \n] \n] {
        if {$line eq "END\r"} { return $d }
        if {![regexp {^STAT (\S+) (.*)\r$} $line -> k v]} { fail "$request: '[visible $r]'" }
        dict set d $k $v
    }
    fail "$request: '[visible $r]'"
}

# q_stat fd queue name -> one qstats value ("" when the queue is missing).
proc q_stat {fd q name} {
    set r [mc_exchange $fd "qstats $q\r\n"]
    if {$r eq "NOT_FOUND\r\n"} { return {} }
    if {![regexp "STAT $name (\\S+)\r\n" $r -> v]} { fail "qstats $q: '[visible $r]'" }
    return $v
}

# q_counts fd queue -> {ready delayed in_flight}
proc q_counts {fd q} {
    set s [q_stats $fd $q]
    return [list [dict get $s ready] [dict get $s delayed] [dict get $s in_flight]]
}

# q_pending fd queue -> list of {id flags bytes deliveries lease_ms_left}.
proc q_pending {fd q} {
    set r [mc_exchange $fd "qpending $q\r\n"]
    set out {}
    foreach line [split [string trimright $r \n] \n] {
        if {$line eq "END\r"} { return $out }
        if {![regexp {^PENDING (\d+) (\d+) (\d+) (\d+) (-?\d+)\r$} $line -> id fl len n left]} {
            fail "qpending $q: '[visible $r]'"
        }
        lappend out [list $id $fl $len $n $left]
    }
    fail "qpending $q: no END in '[visible $r]'"
}

# The full qstats reply for the given values, in the documented order.
proc q_stats_reply {args} {
    set names {ready delayed in_flight buried waiters pushed popped acked released lease_expired
        dead purged age_oldest_ready lease_ms max_deliveries max_length dlq max_age_ms expired_age
        redriven kicked dedup_window_ms dedup_entries deduplicated paused_ms_left grouped groups
        expired expired_ttl dropped}
    set out {}
    # max_age_ms, expired_age, redriven and kicked default to 0, then
    # dedup_window_ms to 300000, dedup_entries, deduplicated,
    # paused_ms_left, grouped and groups to 0, expired to dead, expired_ttl
    # and dropped to 0.
    foreach name $names value [concat $args [lrange {0 0 0 0 300000 0 0 0 0 0 dead 0 0} [expr {[llength $args] - 17}] end]] {
        append out "STAT $name $value\r\n"
    }
    return "${out}END\r\n"
}

# q_balanced fd queue -> whether every message the queue was pushed is
# accounted for: pushed = acked + dead + dropped + purged + the messages
# still in it (ready, delayed, in flight, buried).
proc q_balanced {fd q} {
    set s [q_stats $fd $q]
    set in [expr {[dict get $s ready] + [dict get $s delayed] + [dict get $s in_flight] + [dict get $s buried]}]
    expr {[dict get $s pushed] == [dict get $s acked] + [dict get $s dead] + [dict get $s dropped] \
              + [dict get $s purged] + $in}
}

# Wait until the queue has n parked consumers.
proc q_wait_waiters {fd q n} {
    wait_for {[q_stat $fd $q waiters] == $n} 100 50
}

# q_fill fd queue size max -> number of messages pushed before the first
# refusal; the refusal must be "SERVER_ERROR out of memory storing object".
proc q_fill {fd q size max {prefix m}} {
    for {set i 0} {$i < $max} {incr i} {
        set v [string range "$prefix$i:[string repeat . $size]" 0 [expr {$size - 1}]]
        set r [mc_exchange $fd "qpush $q 0 0 $size\r\n$v\r\n"]
        if {![string match "PUSHED *" $r]} {
            assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
            return $i
        }
    }
    fail "$max pushes of $size bytes all fitted"
}

# q_drain_check fd queue n size: exactly the messages m0..m(n-1) are ready,
# in order; they are popped and acked.
proc q_drain_check {fd q n size {prefix m}} {
    set got 0
    while 1 {
        set items [q_pop $fd $q 100]
        if {![llength $items]} break
        set acks {}
        foreach it $items {
            lassign $it id flags data deliveries
            set want [string range "$prefix$got:[string repeat . $size]" 0 [expr {$size - 1}]]
            if {$data ne $want} { fail "message $got: '[visible [string range $data 0 20]]...'" }
            incr got
            append acks "qack $q $id\r\n"
        }
        assert_equal [mc_exchange $fd $acks] [string repeat "ACKED\r\n" [llength $items]]
    }
    assert_equal $got $n
}
