# Eviction under -m: which live cache items go when a store needs room,
# and that a store always finds room while evictable items hold memory.

start_server {tags {evict} args {-m 8}} {
    set fd [mc_connect]

    # 100,000 small items fill 8 MB about one and a half times over; every
    # one left is then read, so the whole LRU carries the active mark.
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

    test {a set finds room when every item was read since its last trip through the LRU} {
        evict_fill_and_read $fd 100000
        set before [mc_stat $fd evictions]
        set r [mc_exchange $fd "set fresh 0 0 5\r\nhello\r\nget fresh\r\n"]
        list $r [expr {[mc_stat $fd evictions] > $before}]
    } [list "STORED\r\nVALUE fresh 0 5\r\nhello\r\nEND\r\n" 1]
}

start_server {tags {evict mcds-only} args {-m 8}} {
    set fd [mc_connect]
    set big [string repeat b 100000]

    # About 80 values of 100 KB fit in 8 MB. A 5-byte value is a
    # thousandth of the mean size: unread, it takes 3 extra trips through
    # the LRU (about 80 sets each) before it goes; a 100 KB value stored
    # with it takes none.
    test {an unread small item outlives unread large items stored with it, for 3 more trips} {
        assert_equal [mc_set $fd first $big] STORED
        assert_equal [mc_set $fd small hello] STORED
        for {set i 0} {$i < 160} {incr i} { assert_equal [mc_set $fd b$i $big] STORED }
        set mid [list [mc_get $fd first] [mc_get $fd small] [mc_get $fd b0]]
        # The reads above gave small a new trip: 4 trips later it is gone.
        for {set i 160} {$i < 560} {incr i} { assert_equal [mc_set $fd b$i $big] STORED }
        list {*}$mid [mc_get $fd small]
    } [list {} hello {} {}]
}
