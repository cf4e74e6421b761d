# Segments (doc/design.md, "Memory"): a small value is copied into a
# segment as it is linked; the eviction scan walks a segment in order,
# copying the items it keeps to a queue's newest end, and a segment goes
# back to malloc once every item in it is gone. These tests count what
# survives those moves, byte for byte.

# slab_stat fd name: one figure of stats slabs.
proc seg_slab_stat {fd name} {
    dict get [mc_stats $fd slabs] $name
}

start_server {tags {seg mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # 500 values read once move to the main queue when the scan reaches
    # them: each is then a copy in another segment, and must be the same
    # item (value, flags, CAS, TTL).
    test {items the eviction scan moves keep their value, flags, CAS and TTL} {
        set want {}
        set stored_at [clock seconds]
        for {set i 0} {$i < 500} {incr i} {
            set v "keep$i-[randstring 60]"
            assert_equal [mc_exchange $fd "set keep$i $i 10000 [string length $v]\r\n$v\r\n"] "STORED\r\n"
        }
        for {set i 0} {$i < 500} {incr i} {
            set r [mc_exchange $fd "gets keep$i\r\n"]
            regexp {^VALUE \S+ (\d+) (\d+) (\d+)\r\n(.*)\r\nEND\r\n$} $r -> flags len cas v
            lappend want [list $flags $cas $v]
        }
        set ev [mc_stat $fd evictions]
        mc_fill $fd fill 150000 100
        set same 0
        for {set i 0} {$i < 500} {incr i} {
            set r [mc_exchange $fd "gets keep$i\r\n"]
            if {[regexp {^VALUE \S+ (\d+) (\d+) (\d+)\r\n(.*)\r\nEND\r\n$} $r -> flags len cas v] &&
                [list $flags $cas $v] eq [lindex $want $i]} {
                incr same
            }
        }
        # The TTL left is 10000 less the seconds gone since the store
        # (one more for the second boundaries), however slow the fill.
        set ttl [string range [lindex [mc_exchange $fd "mg keep499 t\r\n"] 1] 1 end]
        set gone [expr {[clock seconds] - $stored_at + 1}]
        list $same [expr {[mc_stat $fd evictions] - $ev > 50000}] \
            [expr {$ttl <= 10000 && $ttl >= 10000 - $gone}]
    } {500 1 1}
}

start_server {tags {seg mcds-only} args {-m 64 -t 1}} {
    set fd [mc_connect]

    # 50,000 rewrites of one key leave 50,000 holes (about 7 MB); a sealed
    # segment whose items are all gone goes back at once.
    test {rewriting one key 50,000 times holds at most two segments (1 MB each here)} {
        mc_set $fd hot [string repeat h 100]
        set base [seg_slab_stat $fd total_malloced]
        set v [string repeat r 100]
        for {set i 0} {$i < 50000} {incr i 1000} {
            set batch ""
            for {set j 0} {$j < 1000} {incr j} { append batch "set hot 0 0 100 noreply\r\n$v\r\n" }
            mc_send $fd $batch
        }
        assert_equal [mc_exchange $fd "mn\r\n"] "MN\r\n"
        set grew [expr {[seg_slab_stat $fd total_malloced] - $base}]
        list [expr {$grew <= 2 * 1048576}] [mc_get $fd hot]
    } [list 1 [string repeat r 100]]

    test {deleting every item gives every segment back} {
        mc_exchange $fd "flush_all\r\n"
        assert_equal [mc_cmd $fd version] [mc_cmd $fd version]
        set base [expr {[seg_slab_stat $fd total_malloced] - [mc_stat $fd item_kept_bytes]}]
        mc_fill $fd del 30000 100
        assert_true {[seg_slab_stat $fd total_malloced] - $base > 3000000}
        for {set i 0} {$i < 30000} {incr i 1000} {
            set batch ""
            for {set j $i} {$j < $i + 1000} {incr j} { append batch "delete del$j noreply\r\n" }
            mc_send $fd $batch
        }
        assert_equal [mc_exchange $fd "mn\r\n"] "MN\r\n"
        mc_cmd $fd version
        expr {[seg_slab_stat $fd total_malloced] - [mc_stat $fd item_kept_bytes] - $base}
    } 0
}

# -M: nothing live is evicted; the scan moves live items up instead, so
# the holes deletes leave are given back.
start_server {tags {seg mcds-only} args {-M -m 2}} {
    set fd [mc_connect]

    test {-M: the holes of deleted items are given back by moving live items, none evicted} {
        set v [string repeat m 100]
        for {set n 0} {$n < 100000} {incr n} {
            set r [mc_exchange $fd "set m$n 0 0 100\r\n$v\r\n"]
            if {$r ne "STORED\r\n"} break
        }
        assert_match "SERVER_ERROR out of memory*" $r
        for {set i 0} {$i < $n} {incr i 2} {
            assert_equal [mc_exchange $fd "delete m$i\r\n"] "DELETED\r\n"
        }
        # about half the room is free again
        set stored 0
        for {set i 0} {$i < $n / 2 - 500} {incr i} {
            if {[mc_exchange $fd "set new$i 0 0 100\r\n$v\r\n"] eq "STORED\r\n"} { incr stored }
        }
        set kept 0
        for {set i 1} {$i < $n} {incr i 2} {
            if {[mc_get $fd m$i] eq $v} { incr kept }
        }
        list [expr {$stored == $n / 2 - 500}] [expr {$kept == $n / 2}] [mc_stat $fd evictions]
    } {1 1 0}
}

start_server {tags {seg mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    # With no holes, moving a live item frees nothing (its copy takes what
    # its segment gives back): a refused store must not walk segments
    # copying item after item (it did, some 8 ms of its worker each).
    test {-M full of live items: 3,000 refused stores move no item} {
        mc_fill $fd m 20000 100
        set v [string repeat m 100]
        set moves [mc_stat $fd item_moves]
        set refused 0
        for {set i 0} {$i < 3000} {incr i 1000} {
            set batch ""
            for {set j $i} {$j < $i + 1000} {incr j} { append batch "set more$j 0 0 100\r\n$v\r\n" }
            incr refused [regexp -all {SERVER_ERROR out of memory} [mc_exchange $fd $batch]]
        }
        list $refused [expr {[mc_stat $fd item_moves] - $moves}]
    } {3000 0}

    # One hole in 200 items: emptying a segment would copy 199 items for
    # each item's room it gives back. Below one hole in 64 the store is
    # refused instead.
    test {-M with one hole in 200 items: 300 refused stores move no item} {
        for {set i 0} {$i < 14000} {incr i 200} {
            assert_equal [mc_exchange $fd "delete m$i\r\n"] "DELETED\r\n"
        }
        set moves [mc_stat $fd item_moves]
        set refused 0
        for {set i 0} {$i < 300} {incr i} {
            incr refused [regexp -all {SERVER_ERROR out of memory} \
                [mc_exchange $fd "set sparse$i 0 0 100\r\n[string repeat s 100]\r\n"]]
        }
        list $refused [expr {[mc_stat $fd item_moves] - $moves}]
    } {300 0}
}

# Four clients on four workers store, rewrite and read small keys under
# memory pressure at once: segments filled by several threads, scans
# sealing another thread's segment, moves and evictions race with reads.
# Every value names its key, so a value read under the wrong key, or torn,
# shows.
start_server {tags {seg mcds-only} args {-m 2 -t 4}} {
    test {four clients under -m 2: every value read is one written to its key} {
        set fds {}
        for {set c 0} {$c < 4} {incr c} { lappend fds [mc_connect] }
        foreach round {0 1 2 3} {
            set c 0
            foreach fd $fds {
                set batch ""
                for {set i 0} {$i < 3000} {incr i} {
                    set k "k[expr {($i * 7 + $c * 1000 + $round * 500) % 20000}]"
                    set v "$k:$round:$c:[string repeat x [expr {$i % 200}]]"
                    append batch "set $k 0 0 [string length $v] noreply\r\n$v\r\n"
                    if {$i % 3 == 0} { append batch "get k[expr {($i * 13) % 20000}]\r\n" }
                }
                mc_send $fd "${batch}mn\r\n"
                incr c
            }
            foreach fd $fds {
                set bad 0
                while {[set line [mc_readline $fd]] ne "MN"} {
                    if {[regexp {^VALUE (\S+) 0 (\d+)$} $line -> key len]} {
                        set v [mc_read_bytes $fd [expr {$len + 2}]]
                        if {![string match "$key:*" $v] || [string length $v] != $len + 2} { incr bad }
                    }
                }
                assert_equal $bad 0
            }
        }
        list [expr {[mc_stat [lindex $fds 0] evictions] > 0}] [expr {[mc_stat [lindex $fds 0] curr_items] > 0}]
    } {1 1}
}

# 64 workers each filling a segment of their own under -m 2: eviction
# passes over segments still being filled, so together they must leave
# room to evict from. Each worker first stores about 30 KB and stops; then
# one stores 300 KB more.
start_server {tags {seg mcds-only} args {-m 2 -t 64}} {
    test {64 workers each holding a part-filled segment under -m 2: one more store still finds room} {
        set fds {}
        for {set c 0} {$c < 64} {incr c} { lappend fds [mc_connect] }
        set v [string repeat w 100]
        set c 0
        foreach fd $fds {
            set batch ""
            for {set i 0} {$i < 200} {incr i} { append batch "set w$c:$i 0 0 100 noreply\r\n$v\r\n" }
            mc_send $fd "${batch}mn\r\n"
            incr c
        }
        foreach fd $fds { assert_equal [mc_readline $fd] MN }
        set fd [lindex $fds 0]
        set stored 0
        for {set i 0} {$i < 2000} {incr i} {
            if {[mc_exchange $fd "set more$i 0 0 100\r\n$v\r\n"] eq "STORED\r\n"} { incr stored }
        }
        list $stored [expr {[mc_stat $fd evictions] > 0}]
    } {2000 1}
}

# The same under every kind of change at once: sets, appends (a value
# that grows past 512 bytes leaves its segment for a block of its own),
# incr, touch, deletes, gets, gets with CAS and mg, on 20,000 keys shared
# by four clients on four workers, under -m 2. A text value always reads
# "<key>:" then only x and a; a counter only digits.
start_server {tags {seg mcds-only} args {-m 2 -t 4}} {
    test {four clients mixing every change under -m 2: no value is ever torn or another key's} {
        set fds {}
        for {set c 0} {$c < 4} {incr c} { lappend fds [mc_connect] }
        expr {srand(7)}
        set bad 0
        foreach round {0 1 2 3 4 5 6 7 8 9} {
            foreach fd $fds {
                set batch ""
                for {set i 0} {$i < 2000} {incr i} {
                    set k "s[expr {int(rand() * 20000)}]"
                    set n "n[expr {int(rand() * 300)}]"
                    switch [expr {int(rand() * 9)}] {
                        0 - 1 {
                            set v "$k:[string repeat x [expr {int(rand() * 400)}]]"
                            append batch "set $k 0 0 [string length $v] noreply\r\n$v\r\n"
                        }
                        2 { append batch "append $k 0 0 60 noreply\r\n[string repeat a 60]\r\n" }
                        3 { append batch "set $n 0 0 1 noreply\r\n7\r\nincr $n 5 noreply\r\n" }
                        4 { append batch "touch $k 1000 noreply\r\ndelete s[expr {int(rand() * 20000)}] noreply\r\n" }
                        5 { append batch "gets $k $n\r\n" }
                        6 { append batch "mg $k v k t f c\r\n" }
                        default { append batch "get $k s[expr {int(rand() * 20000)}]\r\n" }
                    }
                }
                mc_send $fd "${batch}mn\r\n"
            }
            foreach fd $fds {
                while {[set line [mc_readline $fd]] ne "MN"} {
                    if {[regexp {^VALUE (\S+) \d+ (\d+)} $line -> key len] ||
                        [regexp {^VA (\d+) .*k(\S+)} $line -> len key]} {
                        set v [string range [mc_read_bytes $fd [expr {$len + 2}]] 0 end-2]
                        if {[string index $key 0] eq "n"} {
                            if {![string is digit -strict $v]} { incr bad }
                        } elseif {![regexp "^[string map {. \\.} $key]:\[xa\]*\$" $v]} {
                            incr bad
                        }
                    } elseif {$line ne "END" && ![regexp {^EN( |$)} $line]} {
                        incr bad
                    }
                }
            }
        }
        list $bad [expr {[mc_stat [lindex $fds 0] evictions] > 0}]
    } {0 1}
}

# Rewrites leave holes: 20,000 keys of about 3 MB in all, then 100,000
# rewrites of keys drawn at random (15 MB of writes) under -m 8, so most
# segments keep a few live items among their holes. The live items fit
# more than twice over, so none may be evicted: the scan moves them out of
# the segments it walks instead, and the holes go.
start_server {tags {seg mcds-only} args {-m 8}} {
    test {rewriting keys that fit leaves holes, never evictions: every key is still held} {
        set fd [mc_connect]
        mc_fill $fd r 20000 100
        expr {srand(3)}
        set v [string repeat z 100]
        for {set i 0} {$i < 100000} {incr i 1000} {
            set batch ""
            for {set j 0} {$j < 1000} {incr j} {
                append batch "set r[expr {int(rand() * 20000)}] 0 0 100 noreply\r\n$v\r\n"
            }
            mc_send $fd $batch
        }
        assert_equal [mc_exchange $fd "mn\r\n"] "MN\r\n"
        set held 0
        for {set i 0} {$i < 20000} {incr i 500} {
            set keys ""
            for {set j $i} {$j < $i + 500} {incr j} { append keys " r$j" }
            mc_send $fd "get$keys\r\n"
            incr held [llength [mc_read_values $fd]]
        }
        list $held [mc_stat $fd evictions]
    } {20000 0}
}
