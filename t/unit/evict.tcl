# Eviction under -m: which live cache items go when a store needs room,
# and that a store always finds room while evictable items hold memory.

start_server {tags {evict} args {-m 8}} {
    set fd [mc_connect]

    # 150,000 small items (80 bytes each in a segment) fill 8 MB about one
    # and a half times over; every one left is then read, so the whole LRU
    # carries the active mark.
    proc evict_fill_and_read {fd n} {
        set v [string repeat x 40]
        for {set i 0} {$i < $n} {incr i 1000} {
            set batch ""
            for {set j $i} {$j < $i + 1000} {incr j} {
                append batch "set k$j 0 0 40 noreply\r\n$v\r\n"
            }
            mc_send $fd $batch
        }
        assert_equal [mc_exchange $fd "mn\r\n"] "MN\r\n"
        for {set i 0} {$i < $n} {incr i 100} {
            set keys ""
            for {set j $i} {$j < $i + 100} {incr j} { append keys " k$j" }
            mc_exchange $fd "get$keys\r\n"
        }
    }

    # 3,000 new items (about 290 KB): more than the room the last eviction
    # of the fill may have left over, which is at most one segment (128 KB
    # under -m 8), so the sets must evict; the last ten are read back.
    test {a set finds room when every item was read since its last trip through the LRU} {
        evict_fill_and_read $fd 150000
        set before [mc_stat $fd evictions]
        set sets ""
        for {set i 0} {$i < 3000} {incr i} {
            append sets "set fresh$i 0 0 40\r\n[string repeat f 40]\r\n"
        }
        set gets "get"
        set want ""
        for {set i 2990} {$i < 3000} {incr i} {
            append gets " fresh$i"
            append want "VALUE fresh$i 0 40\r\n[string repeat f 40]\r\n"
        }
        set r [mc_exchange $fd "$sets$gets\r\n"]
        list [expr {$r eq "[string repeat "STORED\r\n" 3000]${want}END\r\n"}] \
            [expr {[mc_stat $fd evictions] > $before}]
    } {1 1}
}

# The S3-FIFO order of doc/protocol.md, "Memory and eviction". About 80
# values of 100 KB fit in 8 MB; every key below has 4 characters, so all
# the 100 KB items are the same size (each takes one extra trip through
# its queue, the size rule for items no larger than the mean).
start_server {tags {evict mcds-only} args {-m 8}} {
    set fd [mc_connect]
    set big [string repeat b 100000]

    # Whether key is held, without reading it (mg u does not count a read).
    proc evict_has {fd key} {
        expr {[mc_exchange $fd "mg $key u\r\n"] eq "HD\r\n"}
    }

    # Stores key0, key1, ... of $value one at a time until the store that
    # evicts; returns how many were stored.
    proc evict_fill_until_eviction {fd prefix value} {
        set before [mc_stat $fd evictions]
        for {set i 0} {$i < 1000} {incr i} {
            assert_equal [mc_set $fd [format %s%03d $prefix $i] $value] STORED
            if {[mc_stat $fd evictions] > $before} { return [expr {$i + 1}] }
        }
        error "no eviction after 1000 stores"
    }

    test {items read once in the small queue outlive a scan of unread items stored after them} {
        for {set i 0} {$i < 20} {incr i} { assert_equal [mc_set $fd [format h%03d $i] $big] STORED }
        for {set i 0} {$i < 20} {incr i} { assert_equal [mc_get $fd [format h%03d $i]] $big }
        for {set i 0} {$i < 400} {incr i} { assert_equal [mc_set $fd [format s%03d $i] $big] STORED }
        set held 0
        for {set i 0} {$i < 20} {incr i} { incr held [evict_has $fd [format h%03d $i]] }
        list $held [evict_has $fd s000] [evict_has $fd s399]
    } {20 0 1}

    test {a key evicted unread from the small queue and stored again enters the main queue} {
        mc_exchange $fd "flush_all\r\n"
        assert_equal [mc_set $fd g000 $big] STORED
        evict_fill_until_eviction $fd f $big
        set gone [evict_has $fd g000]
        assert_equal [mc_set $fd g000 $big] STORED
        for {set i 0} {$i < 400} {incr i} { assert_equal [mc_set $fd [format y%03d $i] $big] STORED }
        list $gone [evict_has $fd g000] [evict_has $fd f000] [evict_has $fd y000]
    } {0 1 0 0}

    # 80 items read once move to the main queue at the first eviction (the
    # unread x000 goes instead); then the small queue holds a few items, far
    # below a tenth of the bytes, so the next stores take from the main
    # queue: a000 and a001 (after their extra trip), a002 and a003 go back
    # for their reads, then a004 and a005.
    test {the main queue sends items back once per read and evicts the rest in order} {
        mc_exchange $fd "flush_all\r\n"
        for {set i 0} {$i < 80} {incr i} { assert_equal [mc_set $fd [format a%03d $i] $big] STORED }
        for {set i 0} {$i < 80} {incr i} { assert_equal [mc_get $fd [format a%03d $i]] $big }
        set n [evict_fill_until_eviction $fd x $big]
        assert_equal [evict_has $fd x000] 0
        mc_get $fd a002
        mc_get $fd a002
        mc_get $fd a003
        set before [mc_stat $fd evictions]
        for {set i 0} {$i < 4} {incr i} { assert_equal [mc_set $fd [format z%03d $i] $big] STORED }
        set held {}
        foreach k {a000 a001 a002 a003 a004 a005 a006 a079} { lappend held [evict_has $fd $k] }
        list [expr {$n < 10}] [expr {[mc_stat $fd evictions] - $before}] $held
    } {1 4 {0 0 1 1 0 0 1 1}}

    # A 5-byte value is a thousandth of the mean size: unread, it takes 3
    # extra trips through the small queue (about 80 stores each) before it
    # goes; the 100 KB values stored with it are larger than the mean and
    # take none.
    test {an unread small item takes 3 extra trips through the small queue, large ones none} {
        mc_exchange $fd "flush_all\r\n"
        assert_equal [mc_set $fd tiny hello] STORED
        set cap [evict_fill_until_eviction $fd b $big]
        set trips 0
        set stored $cap
        while {[evict_has $fd tiny] && $stored < 1000} {
            assert_equal [mc_set $fd [format b%03d $stored] $big] STORED
            incr stored
        }
        # tiny left after 3 more passes of the queue (about cap stores
        # each), and every large value left after one.
        list [expr {$stored > 3 * ($cap - 2) && $stored < 4 * ($cap + 2)}] \
            [evict_has $fd [format b%03d [expr {$stored - $cap - 2}]]] \
            [evict_has $fd [format b%03d [expr {$stored - 1}]]]
    } {1 0 1}

    # A read item at the small queue's end moves to the main queue; there
    # it stays while the small queue, full of unread items, holds more
    # than a tenth of the bytes.
    test {a small item read once moves to the main queue and outlives unread stores} {
        mc_exchange $fd "flush_all\r\n"
        assert_equal [mc_set $fd tiny hello] STORED
        assert_equal [mc_get $fd tiny] hello
        for {set i 0} {$i < 600} {incr i} { assert_equal [mc_set $fd [format c%03d $i] $big] STORED }
        list [evict_has $fd tiny] [evict_has $fd c000]
    } {1 0}

    test {a store that replaces an item of the main queue keeps it there} {
        mc_exchange $fd "flush_all\r\n"
        assert_equal [mc_set $fd r000 $big] STORED
        assert_equal [mc_get $fd r000] $big
        evict_fill_until_eviction $fd d $big
        # r000 was read: it moved to the main queue instead of going.
        assert_equal [evict_has $fd r000] 1
        assert_equal [mc_set $fd r000 $big] STORED
        for {set i 0} {$i < 400} {incr i} { assert_equal [mc_set $fd [format e%03d $i] $big] STORED }
        list [evict_has $fd r000] [evict_has $fd e000]
    } {1 0}
}

# Replacements under memory pressure on four workers at once: a replaced
# item may stay in its queue (out of the table) until its worker ends its
# turn, and the eviction scan passes over it. Keys are rewritten in the
# order they were stored, so the items replaced are the oldest, at the
# queues' tail where the scan starts; no store may fail for want of room.
start_server {tags {evict mcds-only} args {-m 2 -t 4}} {
    test {four clients rewriting the oldest keys under -m 2: every store finds room} {
        set fds {}
        for {set c 0} {$c < 4} {incr c} { lappend fds [mc_connect] }
        set v [string repeat r 40]
        foreach round {0 1 2} {
            for {set i 0} {$i < 40000} {incr i 500} {
                set c 0
                foreach fd $fds {
                    set batch ""
                    for {set j $i} {$j < $i + 500} {incr j} {
                        append batch "set w$c:$j 0 0 40 noreply\r\n$v\r\n"
                    }
                    mc_send_bg $fd $batch
                    incr c
                }
            }
        }
        foreach fd $fds { assert_equal [mc_exchange $fd "mn\r\n"] "MN\r\n" }
        set fd [lindex $fds 0]
        list [dict get [mc_stats $fd items] items:1:outofmemory] [expr {[mc_stat $fd evictions] > 0}] \
            [expr {[mc_stat $fd total_items] == 3 * 4 * 40000}]
    } {0 1 1}
}
