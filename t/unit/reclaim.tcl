# What memory holds after items die: flush_all takes its items out before
# it answers (curr_items, bytes and the queue totals drop at once), and
# expired items are reclaimed before any live item is evicted.

start_server {tags {flush mcds-only}} {
    set fd [mc_connect]

    test {flush_all: curr_items and bytes drop before OK} {
        for {set i 0} {$i < 50} {incr i} {
            mc_exchange $fd "set fl$i 0 0 10\r\n0123456789\r\n"
        }
        set before [mc_stat $fd curr_items]
        mc_cmd $fd flush_all
        list $before [mc_stat $fd curr_items] [mc_stat $fd bytes]
    } {50 0 0}

    test {flush_all: the queue totals drop before OK} {
        mc_exchange $fd "qpush fq 0 0 1\r\na\r\nqpush fq 0 0 1\r\nb\r\n"
        set before [mc_stat $fd queue_ready]
        mc_cmd $fd flush_all
        list $before [mc_stat $fd queue_ready] [mc_stat $fd curr_items]
    } {2 0 0}

    test {an immediate flush_all leaves nothing for get_flushed to count} {
        set before [mc_stat $fd get_flushed]
        mc_exchange $fd "set gf 0 0 1\r\nx\r\nflush_all\r\nget gf\r\n"
        expr {[mc_stat $fd get_flushed] - $before}
    } 0

    test {a fetch of an item a delayed flush_all covered counts in get_flushed} {
        set before [mc_stat $fd get_flushed]
        mc_exchange $fd "set gd 0 0 1\r\nx\r\nflush_all 2\r\ndebugtime 3\r\nget gd\r\n"
        expr {[mc_stat $fd get_flushed] - $before}
    } 1 {debugtime}

    test {flush_all with a delay leaves items counted until it takes effect} {
        mc_exchange $fd "set fd1 0 0 1\r\nx\r\n"
        mc_cmd $fd "flush_all 100"
        mc_stat $fd curr_items
    } 1
}

start_server {tags {expiry debugtime} args {-m 8}} {
    set fd [mc_connect]
    set v [string repeat x 100000]

    test {expired items are reclaimed before a live item is evicted} {
        mc_exchange $fd "set live 0 0 100000\r\n$v\r\n"
        for {set i 0} {$i < 60} {incr i} {
            mc_exchange $fd "set short$i 0 2 100000\r\n$v\r\n"
        }
        set full [dict get [mc_stats $fd slabs] total_malloced]
        mc_cmd $fd "debugtime 5"
        for {set i 0} {$i < 60} {incr i} {
            mc_exchange $fd "set next$i 0 0 100000\r\n$v\r\n"
        }
        list [mc_stat $fd evictions] [string length [mc_exchange $fd "get live\r\n"]] \
            [expr {[dict get [mc_stats $fd slabs] total_malloced] < $full * 3 / 2}]
    } [list 0 100028 1]
}

# A store that needs room may hold its key's stripe lock (append builds the
# new value under it): reclaiming expired items from there must not wait
# for a stripe, its own above all. The appended data fits in memory, the
# appended value does not, so the sweep runs under the key's stripe; with
# 12,000 expired keys over 4096 stripes, some share it (each round: 95%).
start_server {tags {expiry debugtime mcds-only} args {-m 2}} {
    test {an append that needs room reclaims expired items without deadlock} {
        set fd [mc_connect]
        set v [string repeat e 40]
        set big [string repeat a 500000]
        set r {}
        for {set round 0} {$round < 3} {incr round} {
            set batch {}
            for {set i 0} {$i < 12000} {incr i} { append batch "set e$i 0 1 40 noreply\r\n$v\r\n" }
            mc_send $fd $batch
            mc_exchange $fd "set k$round 0 0 1\r\nx\r\n"
            mc_cmd $fd "debugtime 5"
            lappend r [mc_exchange $fd "append k$round 0 0 500000\r\n$big\r\n"]
            mc_exchange $fd "delete k$round\r\n"
        }
        list [lsort -unique $r] [mc_stat $fd evictions]
    } [list [list "STORED\r\n"] 0]
}
