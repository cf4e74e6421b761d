# The item account (total_malloced, and what -m limits) adds each item's
# block as malloc sized it and takes out exactly that when the block is
# freed. Most small blocks are not asked their size again when freed (the
# size is computed from the item's lengths; server/cache/item.c). Small values
# are copied into segments as they are linked, and a segment's bytes stay
# counted until the worker filling it has seen it empty (at the end of
# that worker's next turn) or it is given back. Whatever path an item
# leaves by, on whichever worker, the account must come back to where it
# started once every worker has run.

# account fd: the bytes items hold, kept blocks of large items left out.
proc account {fd} {
    expr {[dict get [mc_stats $fd slabs] total_malloced] - [mc_stat $fd item_kept_bytes]}
}

# value_len i: a length from 0 to 2,000 bytes, every 97th 16 KB to 300 KB
# (kept blocks, and malloc's own mmap'd blocks).
proc value_len {i} {
    if {$i % 97 == 0} { return [expr {16384 + int(rand() * 290000)}] }
    expr {int(rand() * 2001)}
}

# pipeline fd cmds: sends every line of cmds with noreply, then waits for
# the version reply after them.
proc pipeline {fd cmds} {
    mc_send $fd "[join $cmds {}]version\r\n"
}

# turn fds: every worker (one per connection) has ended a turn. A worker
# ends its turn after it has written the reply to the command it served,
# so two commands in a row are needed: the second reply comes from the
# next turn.
proc turn {fds} {
    foreach fd $fds {
        assert_match "VERSION *" [mc_cmd $fd version]
        assert_match "VERSION *" [mc_cmd $fd version]
    }
}

proc pipeline_wait {fd} {
    set line [mc_readline $fd]
    if {![string match "VERSION *" $line]} { fail "expected VERSION, got $line" }
}

# fill fds prefix count: each connection stores count values of value_len
# lengths under <prefix><its name><i>, both at once.
proc fill {fds prefix count} {
    foreach fd $fds name {a b} {
        set cmds {}
        for {set i 0} {$i < $count} {incr i} {
            set v [string repeat x [value_len $i]]
            lappend cmds "set $prefix$name$i 0 0 [string length $v] noreply\r\n$v\r\n"
        }
        pipeline $fd $cmds
    }
    foreach fd $fds { pipeline_wait $fd }
}

start_server {tags {item_account mcds-only} args {-t 2 -m 512}} {
    set a [mc_connect]
    set b [mc_connect]
    expr {srand(16)}
    set base [account $a]

    test {items of 0 B to 300 KB stored, replaced, grown and deleted by two workers: the account comes back to its start} {
        fill [list $a $b] {} 3000
        fill [list $a $b] {} 3000
        # Each connection grows the other's items, so blocks are freed on
        # the worker that did not make them.
        foreach fd [list $a $b] name {b a} {
            set cmds {}
            for {set i 0} {$i < 3000} {incr i 3} {
                lappend cmds "append $name$i 0 0 5 noreply\r\nyyyyy\r\n"
                lappend cmds "prepend $name[expr {$i + 1}] 0 0 17 noreply\r\nzzzzzzzzzzzzzzzzz\r\n"
                lappend cmds "set n$name$i 0 0 1 noreply\r\n9\r\nincr n$name$i 4294967296 noreply\r\n"
                lappend cmds "touch $name[expr {$i + 2}] 1000 noreply\r\n"
            }
            pipeline $fd $cmds
        }
        pipeline_wait $a
        pipeline_wait $b
        assert_true {[account $a] > $base + 3000 * 2 * 1000}
        foreach fd [list $a $b] name {b a} {
            set cmds {}
            for {set i 0} {$i < 3000} {incr i} {
                lappend cmds "delete $name$i noreply\r\n"
                if {$i % 3 == 0} { lappend cmds "delete n$name$i noreply\r\n" }
            }
            pipeline $fd $cmds
        }
        pipeline_wait $a
        pipeline_wait $b
        turn [list $a $b]
        list [mc_stat $a curr_items] [expr {[account $a] - $base}]
    } {0 0}

    test {flush_all gives back every block too} {
        fill [list $a $b] f 2000
        assert_equal [mc_cmd $a flush_all] OK
        turn [list $a $b]
        list [mc_stat $b curr_items] [expr {[account $b] - $base}]
    } {0 0}
}
