# Differential check: the same pseudo-random stream of classic commands
# (hits, misses, bad numbers, noreply, long keys, expired items, flushes)
# sent to mcds and to Debian's memcached 1.6.18 side by side; every reply
# must be byte-for-byte the same. Each command is fenced on its own, so
# memcached's pipeline batching plays no part. Left out on purpose: gets
# (cas values differ between servers), stats, and malformed storage lines
# whose length parses (mcds swallows their data block, 1.6.18 does not).

set ::K250 [string repeat k 250]
set ::K251 [string repeat k 251]

# memcached updates an incr/decr result in place (padded with spaces) only
# when no other thread holds the item at that moment; its LRU maintainer
# sometimes does, and then the result is a new unpadded item. Padding has
# its own deterministic tests (incrdecr.tcl), so here a value of digits
# followed by spaces is compared without the spaces.
proc diff_normalize {reply} {
    set out {}
    set pos 0
    while {[regexp -start $pos -indices {VALUE \S+ \d+ (\d+)\r\n} $reply m nidx]} {
        set n [string range $reply {*}$nidx]
        set eol [lindex $m 1]
        append out [string range $reply $pos [expr {[lindex $m 0] - 1}]]
        set header [string range $reply [lindex $m 0] [expr {[lindex $nidx 0] - 1}]]
        set data [string range $reply [expr {$eol + 1}] [expr {$eol + $n}]]
        if {[regexp {^(\d+) +$} $data -> digits]} { set data $digits }
        append out "$header[string length $data]\r\n$data"
        set pos [expr {$eol + 1 + $n}]
    }
    append out [string range $reply $pos end]
    return $out
}

proc diff_pick {l} { lindex $l [expr {int(rand() * [llength $l])}] }

# One random command (with its data block, if any).
proc diff_command {} {
    set k [diff_pick [list a b c n1 n2 big $::K250 $::K250 $::K251]]
    set nr [diff_pick {"" "" "" " noreply"}]
    set verb [diff_pick {set add replace append prepend get get delete incr decr
                         incr decr touch gat cas flush_all verbosity}]
    switch -- $verb {
        set - add - replace - append - prepend {
            if {$k eq $::K251} { set k a }
            set v [diff_pick {1 12 100 99 abc "" 18446744073709551615 0 " 5" "9 5" xyz12 007}]
            set fl [diff_pick {0 1 4294967295 4294967296 77}]
            set ex [diff_pick {0 0 0 -1 100 2592001}]
            return "$verb $k $fl $ex [string length $v]$nr\r\n$v\r\n"
        }
        get {
            if {$k eq $::K251} { set k b }
            return "get $k [diff_pick {a b c n1 n2}]\r\n"
        }
        gat { return "gat [diff_pick {0 100 -1 abc}] $k [diff_pick {a b}]\r\n" }
        delete { return "delete $k[diff_pick {"" "" " 0" " 5"}]$nr\r\n" }
        incr - decr {
            set d [diff_pick {0 1 5 -1 10 100 18446744073709551615 18446744073709551616
                              abc 1x 007 4294967295 -0 +3}]
            return "$verb $k $d$nr\r\n"
        }
        touch { return "touch $k [diff_pick {0 100 -1 abc}]$nr\r\n" }
        cas {
            if {$k eq $::K251} { set k c }
            return "cas $k 0 0 1 [diff_pick {0 1 5 99999}]$nr\r\nz\r\n"
        }
        flush_all {
            if {rand() < 0.2} { return "flush_all[diff_pick {"" " 0" " -1" " abc"}]$nr\r\n" }
            return "get a\r\n"
        }
        verbosity { return "verbosity [diff_pick {0 1 abc}]$nr\r\n" }
    }
}

start_server {tags {differential mcds-only}} {
    start_memcached {} {
        test {600 random classic commands: mcds answers exactly as memcached 1.6.18} {
            set mc [mc_connect 0]
            set md [mc_connect -1]
            expr {srand(20240601)}
            set diffs {}
            for {set i 0} {$i < 600 && [llength $diffs] < 5} {incr i} {
                set cmd [diff_command]
                set want [diff_normalize [mc_exchange $mc $cmd]]
                set got [diff_normalize [mc_exchange $md $cmd]]
                if {$want ne $got} {
                    lappend diffs "#$i [visible $cmd]\n  memcached: [visible $want]\n  mcds:      [visible $got]"
                }
            }
            if {[llength $diffs]} { fail [join $diffs \n] }
        }

        test {the final state matches: every key reads back the same} {
            set mc [mc_connect 0]
            set md [mc_connect -1]
            set line "get a b c n1 n2 big $::K250\r\n"
            assert_equal [diff_normalize [mc_exchange $md $line]] \
                [diff_normalize [mc_exchange $mc $line]]
        }
    }
}
