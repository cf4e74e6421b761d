# stats, stats settings/items/slabs/reset and unknown stats groups.

# General stats that every memcached tool reads, in memcached's order.
set core_stats {
    pid uptime time version pointer_size rusage_user rusage_system
    max_connections curr_connections total_connections
    cmd_get cmd_set cmd_flush cmd_touch get_hits get_misses get_expired
    get_flushed delete_misses delete_hits incr_misses incr_hits decr_misses
    decr_hits cas_misses cas_hits cas_badval touch_hits touch_misses
    store_too_large store_no_memory bytes_read bytes_written limit_maxbytes
    threads bytes curr_items total_items evictions
}

start_server {tags {stats} args {-m 16 -c 50 -t 2}} {
    set fd [mc_connect]

    test {stats lists the core fields, in memcached's order} {
        set names [dict keys [mc_stats $fd]]
        set missing {}
        set pos -1
        foreach s $::core_stats {
            set i [lsearch -exact $names $s]
            if {$i < 0} { lappend missing $s; continue }
            if {$i < $pos} { fail "stat $s is out of order" }
            set pos $i
        }
        set missing
    } {}

    test {every stats line is "STAT <name> <value>" and the list ends with END} {
        mc_send $fd "stats\r\n"
        set n 0
        while {[set line [mc_readline $fd]] ne "END"} {
            assert_match {STAT [a-z_]* ?*} $line
            assert_true {[llength [split $line " "]] == 3} "line '$line'"
            incr n
        }
        assert_true {$n >= [llength $::core_stats]}
    }

    test {stats pid is the server's pid} {
        mc_stat $fd pid
    } [srv pid]

    test {stats version, pointer_size, threads, max_connections, limit_maxbytes} {
        set s [mc_stats $fd]
        list [dict get $s version] [dict get $s pointer_size] [dict get $s threads] \
            [dict get $s max_connections] [dict get $s limit_maxbytes]
    } {1.6.18 64 2 50 16777216}

    test {stats time is the current Unix time and uptime is small} {
        set s [mc_stats $fd]
        assert_range [expr {[dict get $s time] - [clock seconds]}] -3 3
        assert_range [dict get $s uptime] 0 600
    }

    test {rusage values are decimal numbers} {
        set s [mc_stats $fd]
        assert_match {*[0-9].[0-9]*} [dict get $s rusage_user]
        assert_true {[string is double -strict [dict get $s rusage_user]]}
        assert_true {[string is double -strict [dict get $s rusage_system]]}
    }

    test {curr_connections and total_connections count connections} {
        set before [mc_stats $fd]
        set c1 [mc_connect]
        set c2 [mc_connect]
        mc_cmd $c1 version
        mc_cmd $c2 version
        set during [mc_stats $fd]
        assert_equal [dict get $during curr_connections] \
            [expr {[dict get $before curr_connections] + 2}]
        assert_equal [dict get $during total_connections] \
            [expr {[dict get $before total_connections] + 2}]
        mc_close $c1
        mc_close $c2
        wait_for {[mc_stat $fd curr_connections] == [dict get $before curr_connections]}
    }

    test {storing items moves curr_items, total_items, bytes, cmd_set} {
        set before [mc_stats $fd]
        assert_equal [mc_set $fd st1 [string repeat x 100]] STORED
        assert_equal [mc_set $fd st2 [string repeat x 100]] STORED
        assert_equal [mc_set $fd st2 [string repeat y 100]] STORED
        set after [mc_stats $fd]
        assert_equal [expr {[dict get $after curr_items] - [dict get $before curr_items]}] 2
        assert_equal [expr {[dict get $after total_items] - [dict get $before total_items]}] 3
        assert_equal [expr {[dict get $after cmd_set] - [dict get $before cmd_set]}] 3
        assert_true {[dict get $after bytes] >= [dict get $before bytes] + 200}
    }

    test {deleting items brings curr_items and bytes back} {
        set before [mc_stats $fd]
        assert_equal [mc_set $fd st3 [string repeat z 1000]] STORED
        set mid [mc_stats $fd]
        assert_true {[dict get $mid bytes] > [dict get $before bytes] + 1000}
        assert_equal [mc_cmd $fd "delete st3"] DELETED
        set after [mc_stats $fd]
        assert_equal [dict get $after curr_items] [dict get $before curr_items]
        assert_equal [dict get $after bytes] [dict get $before bytes]
    }

    test {get moves cmd_get, get_hits, get_misses} {
        set before [mc_stats $fd]
        mc_exchange $fd "get st1\r\nget st1 nokey st2\r\n"
        set after [mc_stats $fd]
        set out {}
        foreach s {cmd_get get_hits get_misses} {
            lappend out [expr {[dict get $after $s] - [dict get $before $s]}]
        }
        set out
    } {4 3 1}

    test {bytes_read and bytes_written grow with traffic} {
        set before [mc_stats $fd]
        mc_exchange $fd "set brw 0 0 1000\r\n[string repeat a 1000]\r\nget brw\r\n"
        set after [mc_stats $fd]
        assert_true {[dict get $after bytes_read] >= [dict get $before bytes_read] + 1000}
        assert_true {[dict get $after bytes_written] >= [dict get $before bytes_written] + 1000}
    }

    test {stats with trailing spaces is the general group} {
        mc_send $fd "stats   \r\n"
        set line [mc_readline $fd]
        while {[mc_readline $fd] ne "END"} {}
        set line
    } "STAT pid [srv pid]"

    # ---- stats settings -----------------------------------------------

    test {stats settings shows the options} {
        set s [mc_stats $fd settings]
        list [dict get $s maxbytes] [dict get $s maxconns] [dict get $s tcpport] \
            [dict get $s num_threads] [dict get $s item_size_max] \
            [dict get $s cas_enabled] [dict get $s evictions]
    } [list 16777216 50 [srv port] 2 1048576 yes on]

    test {stats settings ignores extra tokens} {
        dict get [mc_stats $fd "settings extra"] maxconns
    } 50

    # ---- stats items / slabs --------------------------------------------

    test {stats items: item counts per class add up to curr_items} {
        set items [mc_stats $fd items]
        set total 0
        dict for {k v} $items {
            if {[regexp {^items:(\d+):number$} $k]} { incr total $v }
        }
        assert_true {$total > 0}
        assert_equal $total [mc_stat $fd curr_items]
    }

    test {stats items has number, age, evicted, outofmemory per class} {
        set items [mc_stats $fd items]
        set classes {}
        dict for {k v} $items {
            if {[regexp {^items:(\d+):number$} $k -> c]} { lappend classes $c }
        }
        foreach c $classes {
            foreach f {number age evicted outofmemory} {
                if {![dict exists $items items:$c:$f]} { fail "no items:$c:$f" }
            }
        }
        llength $classes
    } {*[1-9]*}

    test {stats slabs: classes with chunk_size and used_chunks, then active_slabs and total_malloced} {
        set slabs [mc_stats $fd slabs]
        set used 0
        dict for {k v} $slabs {
            if {[regexp {^(\d+):used_chunks$} $k -> c]} {
                incr used $v
                if {![dict exists $slabs $c:chunk_size]} { fail "no $c:chunk_size" }
            }
        }
        assert_true {$used >= [mc_stat $fd curr_items]}
        assert_true {[dict get $slabs active_slabs] >= 1}
        assert_true {[dict get $slabs total_malloced] > 0}
        lrange [dict keys $slabs] end-1 end
    } {active_slabs total_malloced}

    # ---- stats reset / unknown --------------------------------------------

    test {stats reset answers RESET and zeroes the counters} {
        mc_exchange $fd "set r1 0 0 1\r\nx\r\nget r1\r\nget nokey\r\n"
        set before [mc_stats $fd]
        assert_equal [mc_cmd $fd "stats reset"] RESET
        set after [mc_stats $fd]
        foreach s {cmd_get cmd_set get_hits get_misses total_items delete_hits
                   incr_hits touch_hits} {
            assert_equal [dict get $after $s] 0 $s
        }
        assert_equal [dict get $after curr_items] [dict get $before curr_items]
        assert_equal [dict get $after bytes] [dict get $before bytes]
    }

    test {stats reset ignores extra tokens} {
        mc_cmd $fd "stats reset now"
    } RESET

    test {an unknown stats group is ERROR} {
        mc_exchange $fd "stats bogus\r\nstats items2\r\n"
    } "ERROR\r\nERROR\r\n"

    test {STATS in capitals is ERROR} {
        mc_exchange $fd "STATS\r\n"
    } "ERROR\r\n"
}

start_server {tags {stats}} {
    test {stats items is empty and stats slabs has only totals on an empty cache} {
        set fd [mc_connect]
        list [mc_stats $fd items] [dict keys [mc_stats $fd slabs]]
    } {{} {active_slabs total_malloced}}

    test {stats items and stats slabs after flush_all still parse} {
        set fd [mc_connect]
        mc_set $fd a b
        mc_cmd $fd flush_all
        # Flushed items may linger until they are reclaimed: only check that
        # the replies are well formed.
        mc_stats $fd items
        mc_stats $fd slabs
        set {} ok
    } ok
}
