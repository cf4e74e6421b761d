# flush_all [delay] [noreply]

start_server {tags {flush}} {
    set fd [mc_connect]

    test {flush_all answers OK and invalidates every item} {
        mc_exchange $fd "set f1 0 0 1\r\nx\r\nset f2 0 0 1\r\ny\r\nflush_all\r\nget f1 f2\r\n"
    } "STORED\r\nSTORED\r\nOK\r\nEND\r\n"

    test {items stored right after flush_all are visible} {
        mc_exchange $fd "flush_all\r\nset f3 0 0 1\r\nz\r\nget f3\r\n"
    } "OK\r\nSTORED\r\nVALUE f3 0 1\r\nz\r\nEND\r\n"

    test {add succeeds on a flushed key, replace and append do not} {
        mc_exchange $fd "set f4 0 0 1\r\nx\r\nflush_all\r\nreplace f4 0 0 1\r\ny\r\nappend f4 0 0 1\r\ny\r\nadd f4 0 0 1\r\nz\r\nget f4\r\n"
    } "STORED\r\nOK\r\nNOT_STORED\r\nNOT_STORED\r\nSTORED\r\nVALUE f4 0 1\r\nz\r\nEND\r\n"

    test {flush_all 0 flushes at once} {
        mc_exchange $fd "set f5 0 0 1\r\nx\r\nflush_all 0\r\nget f5\r\n"
    } "STORED\r\nOK\r\nEND\r\n"

    test {flush_all -1 flushes at once} {
        mc_exchange $fd "set f6 0 0 1\r\nx\r\nflush_all -1\r\nget f6\r\n"
    } "STORED\r\nOK\r\nEND\r\n"

    test {flush_all noreply is silent and flushes} {
        mc_exchange $fd "set f7 0 0 1\r\nx\r\nflush_all noreply\r\nget f7\r\n"
    } "STORED\r\nEND\r\n"

    test {flush_all 0 noreply is silent and flushes} {
        mc_exchange $fd "set f8 0 0 1\r\nx\r\nflush_all 0 noreply\r\nget f8\r\n"
    } "STORED\r\nEND\r\n"

    test {flush_all with a non-numeric delay is CLIENT_ERROR and flushes nothing} {
        mc_exchange $fd "set f9 0 0 1\r\nx\r\nflush_all abc\r\nflush_all 1x\r\nget f9\r\n"
    } "STORED\r\nCLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\nVALUE f9 0 1\r\nx\r\nEND\r\n"

    test {flush_all abc noreply is silent and flushes nothing} {
        mc_exchange $fd "flush_all abc noreply\r\nget f9\r\n"
    } "VALUE f9 0 1\r\nx\r\nEND\r\n"

    test {flush_all ignores a third token that is not noreply} {
        mc_exchange $fd "flush_all 0 junk\r\nget f9\r\n"
    } "OK\r\nEND\r\n"

    test {flush_all with too many tokens is ERROR} {
        mc_exchange $fd "set f10 0 0 1\r\nx\r\nflush_all 0 noreply extra\r\nget f10\r\n"
    } "STORED\r\nERROR\r\nVALUE f10 0 1\r\nx\r\nEND\r\n"

    test {flush_all counts in cmd_flush} {
        set before [mc_stat $fd cmd_flush]
        mc_exchange $fd "flush_all\r\nflush_all noreply\r\n"
        expr {[mc_stat $fd cmd_flush] - $before}
    } 2

    test {a fetch of a flushed item counts in get_flushed} {
        stock_memcached_only "mcds takes flushed items out before OK (see the delayed variant in reclaim.tcl)"
        set before [mc_stat $fd get_flushed]
        mc_exchange $fd "set gf 0 0 1\r\nx\r\nflush_all\r\nget gf\r\n"
        expr {[mc_stat $fd get_flushed] - $before}
    } 1

    test {flush_all is seen by other connections} {
        set fd2 [mc_connect]
        assert_equal [mc_set $fd oc x] STORED
        assert_equal [mc_cmd $fd2 flush_all] OK
        mc_get $fd oc
    } {}

    # ---- delayed flush (debug clock) --------------------------------------

    test {flush_all with a delay keeps items until the delay has passed} {
        mc_exchange $fd [string cat \
            "set d1 0 0 1\r\nx\r\nflush_all 100\r\nget d1\r\n" \
            "debugtime 50\r\nset d2 0 0 1\r\ny\r\nget d1 d2\r\n" \
            "debugtime 60\r\nget d1 d2\r\n" \
            "set d3 0 0 1\r\nz\r\nget d3\r\n"]
    } [string cat \
        "STORED\r\nOK\r\nVALUE d1 0 1\r\nx\r\nEND\r\n" \
        "OK\r\nSTORED\r\nVALUE d1 0 1\r\nx\r\nVALUE d2 0 1\r\ny\r\nEND\r\n" \
        "OK\r\nEND\r\n" \
        "STORED\r\nVALUE d3 0 1\r\nz\r\nEND\r\n"] {debugtime}

    test {flush_all with a delay and noreply} {
        mc_exchange $fd "set d4 0 0 1\r\nx\r\nflush_all 100 noreply\r\nget d4\r\ndebugtime 110\r\nget d4\r\n"
    } "STORED\r\nVALUE d4 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {a later immediate flush_all overrides a pending delayed one} {
        mc_exchange $fd "set d5 0 0 1\r\nx\r\nflush_all 1000\r\nflush_all\r\nget d5\r\nset d6 0 0 1\r\ny\r\ndebugtime 2000\r\nget d6\r\n"
    } "STORED\r\nOK\r\nOK\r\nEND\r\nSTORED\r\nOK\r\nVALUE d6 0 1\r\ny\r\nEND\r\n" {debugtime}
}

start_server {tags {flush} args {-F}} {
    test {-F: every flush_all is refused (silently with noreply), nothing is flushed} {
        set fd [mc_connect]
        mc_exchange $fd "set keep 0 0 1\r\nx\r\nflush_all\r\nflush_all 0\r\nflush_all noreply\r\nflush_all abc\r\nget keep\r\n"
    } [string cat "STORED\r\n" [string repeat "CLIENT_ERROR flush_all not allowed\r\n" 3] \
        "VALUE keep 0 1\r\nx\r\nEND\r\n"]
}

# An immediate flush of a large table takes its items out a slice of the
# table at a time, and the worker serves its other connections between
# slices: with one worker, a second client's stats show the count falling
# while the first waits for its OK. Nothing here is timed: the test only
# looks for a count between the full one and zero.

# Stores n one-byte values (fl:0 ...) and waits for the table to have grown
# to 2^power buckets (it grows past 1.5 items a bucket) and stopped: a
# flush while the table grows leaves the rest to the crawl.
proc fl_fill {fd n power} {
    set batch {}
    for {set i 0} {$i < $n} {incr i} {
        append batch "set fl:$i 0 0 1 noreply\r\nx\r\n"
        if {$i % 5000 == 4999} { mc_send $fd $batch; set batch {} }
    }
    mc_send $fd $batch
    wait_for {[mc_stat $fd curr_items] == $n && [mc_stat $fd hash_power_level] == $power &&
              [mc_stat $fd hash_is_expanding] == 0} 500 20
}

# Polls curr_items on fd until it reads floor or less (at most 20,000
# times); the counts seen.
proc fl_watch_count {fd {floor 0}} {
    set seen {}
    for {set i 0} {$i < 20000} {incr i} {
        set n [mc_stat $fd curr_items]
        if {[lindex $seen end] ne $n} { lappend seen $n }
        if {$n <= $floor} { return $seen }
    }
    fail "curr_items never fell to $floor: $seen"
}

# Whether a count strictly between floor and n was seen.
proc fl_between {seen n {floor 0}} {
    foreach v $seen { if {$v > $floor && $v < $n} { return 1 } }
    return 0
}

start_server {tags {flush mcds-only} args {-t 1}} {
    set n 200000
    set a [mc_connect]
    set b [mc_connect]

    test {flush_all of 200,000 items: another client of the same worker is served while it runs} {
        fl_fill $a $n 18
        mc_send $a "flush_all\r\nget fl:7\r\n"
        set seen [fl_watch_count $b]
        list [fl_between $seen $n] [mc_readline $a] [mc_readline $a] [mc_stat $b bytes]
    } {1 OK END 0}

    test {flush_all noreply: the commands pipelined after it run once it is over} {
        fl_fill $a $n 18
        mc_send $a "flush_all noreply\r\nset after 0 0 1\r\ny\r\nget fl:9 after\r\n"
        set seen [fl_watch_count $b 1]
        list [fl_between $seen $n 1] [mc_readline $a] [mc_read_values $a] [mc_stat $b curr_items]
    } {1 STORED {{after 0 y}} 1}

    test {binary flush of 200,000 items: answered with its opaque once over, others served meanwhile} {
        mc_cmd $a "delete after"
        fl_fill $a $n 18
        set bfd [mc_connect]
        mc_send $bfd [string cat [bin_pkt FLUSH -opaque 0xabcdef] [bin_pkt FLUSHQ] [bin_pkt GET -key fl:3 -opaque 7]]
        set seen [fl_watch_count $b]
        set r1 [bin_read $bfd]
        set r2 [bin_read $bfd]
        list [fl_between $seen $n] [bin_show $r1] [format 0x%x [dict get $r1 opaque]] \
            [bin_show $r2] [dict get $r2 opaque]
    } {1 {FLUSH OK} 0xabcdef {GET KEY_ENOENT {Not found}} 7}
}

# A flush that starts while the table grows waits for the growth to end,
# then walks the whole table: every item is out before OK, as when the
# table is still.
start_server {tags {flush mcds-only} args {-o hashpower=12 --debug}} {
    set a [mc_connect]
    set b [mc_connect]

    # 6,000 items fit 4,096 buckets; debughashpause then holds the growth
    # the next 1,000 begin, so the flush surely meets it, however fast the
    # machine or slow valgrind.
    test {flush_all while the table grows: curr_items and bytes are 0 when OK comes} {
        set batch {}
        for {set i 0} {$i < 7000} {incr i} {
            append batch "set g:$i 0 0 1 noreply\r\nx\r\n"
            if {$i == 5999} {
                mc_exchange $a $batch
                set batch {}
                wait_for {[mc_stat $b curr_items] == 6000} 200 20
                assert_equal [list [mc_stat $b hash_power_level] [mc_exchange $b "debughashpause 3000\r\n"]] [list 12 "OK\r\n"]
            }
        }
        mc_exchange $a $batch
        wait_for {[mc_stat $b hash_is_expanding] == 1} 100 20
        set seen [mc_stat $b hash_is_expanding]
        set r [mc_exchange $b "flush_all\r\n"]
        list $seen $r [mc_stat $b curr_items] [mc_stat $b bytes] [mc_exchange $b "get g:0 g:6999\r\n"]
    } [list 1 "OK\r\n" 0 0 "END\r\n"]
}

# Delays as memcached reads them: one that arrives within the next second
# flushes at once; an absolute time before the server started flushes
# nothing and ends a delayed flush still to come.
start_server {tags {flush}} {
    set fd [mc_connect]

    test {flush_all 1 flushes at once, as memcached} {
        mc_exchange $fd "set a 0 0 1\r\n1\r\nflush_all 1\r\nget a\r\n"
    } "STORED\r\nOK\r\nEND\r\n"

    test {flush_all with a time before the start flushes nothing and ends a delayed flush to come} {
        mc_exchange $fd "set b 0 0 1\r\n2\r\nflush_all 2\r\nflush_all 1000000000\r\n"
        after 2500
        mc_exchange $fd "get b\r\n"
    } "VALUE b 0 1\r\n2\r\nEND\r\n"
}
