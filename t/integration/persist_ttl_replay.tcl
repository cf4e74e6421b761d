# TTLs across a restart (doc/persistence.md, "Recovery"): a log record was
# made while its key lived, so the replay applies it whatever the clock
# says at the restart; a key whose TTL passed while the server was down
# goes once the replay is over. (Found by the torture test: a list whose
# TTL passed between its snapshot and the restart stopped every start-up,
# and a TTL extended before the crash was lost if the first one had passed
# by the restart.)

set dir [tmpdir ttlsnap]
with_data_dir $dir {--persist-items} {
    test {a list, a queue and a value with a 2 s TTL in a snapshot, then kill -9} {
        set fd [mc_connect]
        l_push $fd rpush TL {a b c}
        q_push $fd TQ m1
        mc_set $fd TK v
        assert_equal [mc_exchange $fd "touch TL 2\r\ntouch TQ 2\r\ntouch TK 2\r\n"] "TOUCHED\r\nTOUCHED\r\nTOUCHED\r\n"
        assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 300 20
        mc_stat $fd persist_snapshots
    } 1
}
after 3000
with_data_dir $dir {--persist-items} {
    test {their TTL passed while the server was down: it starts, and they are gone} {
        set fd [mc_connect]
        list [mc_exchange $fd "llen TL\r\n"] [mc_exchange $fd "qstats TQ\r\n"] [mc_get $fd TK] \
            [mc_stat $fd persist_replay_skipped]
    } [list "NOT_FOUND\r\n" "NOT_FOUND\r\n" {} 0]
}

set dir [tmpdir ttllog]
with_data_dir $dir {--persist-items} {
    test {keys given a 2 s TTL, changed, then kept with a TTL of an hour, then kill -9 (all in the log)} {
        set fd [mc_connect]
        l_push $fd rpush XL {a}
        q_push $fd XQ m1
        mc_set $fd XK v 0 2
        assert_equal [mc_exchange $fd "touch XL 2\r\ntouch XQ 2\r\n"] "TOUCHED\r\nTOUCHED\r\n"
        l_push $fd rpush XL {b}
        q_push $fd XQ m2
        assert_equal [mc_exchange $fd "append XK 0 0 1\r\nw\r\n"] "STORED\r\n"
        mc_exchange $fd "touch XL 3600\r\ntouch XQ 3600\r\ntouch XK 3600\r\n"
    } "TOUCHED\r\nTOUCHED\r\nTOUCHED\r\n"
}
after 3000
with_data_dir $dir {--persist-items} {
    test {the first TTL passed while the server was down: every change made before it is back, with the hour's TTL} {
        set fd [mc_connect]
        list [l_all $fd XL] [q_stat $fd XQ ready] [mc_get $fd XK] [mc_stat $fd persist_replay_skipped]
    } {{a b} 2 vw 0}
}

# A TTL set right before a kill -9 is never longer after the restart than
# it was set: a key's expiry is logged as a Unix second (the start's plus
# the server's seconds), and each server turns it back into its own
# seconds. Those seconds counted from the process's start on the
# monotonic clock, so they could run up to a second ahead of the wall
# clock's (when the start fell late in a monotonic second and early in a
# wall-clock one, and the clock's timer began after the replay): an expiry
# logged then was a second late, and a list touched for 3600 s had 3601
# left after the restart (found by the torture test). The server's
# seconds are now the wall clock's whole seconds. Five restarts, each at
# its own point of a second (a check that the bound holds; the old clock
# failed it only now and then).
set dir [tmpdir ttlphase]
set ::ttl_after {}
for {set i 0} {$i < 5} {incr i} {
    with_data_dir $dir {} {
        set fd [mc_connect]
        if {$i > 0} { lappend ::ttl_after [lindex [mc_exchange $fd "kscan 0 match=PL\r\n"] 3] }
        l_push $fd rpush PL {a}
        after [expr {int(rand() * 1000)}]   ;# the touch at any point of a second
        assert_equal [mc_exchange $fd "touch PL 3600\r\n"] "TOUCHED\r\n"
    }
    after [expr {int(rand() * 1000)}]
}
with_data_dir $dir {} {
    test {a TTL of 3600 s set right before kill -9 has at most 3600 s left after each restart} {
        set fd [mc_connect]
        lappend ::ttl_after [lindex [mc_exchange $fd "kscan 0 match=PL\r\n"] 3]
        list [llength $::ttl_after] [lsort -unique [lmap t $::ttl_after {expr {$t > 3000 && $t <= 3600}}]]
    } {5 1}
}

# The same bound seen from one server: its seconds (stats time, the
# start's Unix second plus the seconds since) are the wall clock's second,
# or the one before it between two ticks, never the one after. Three
# starts, each sampled through a second and a half.
set ::ahead {}
for {set i 0} {$i < 3} {incr i} {
    start_server {tags {mcds-only}} {
        set fd [mc_connect]
        for {set k 0} {$k < 25} {incr k} {
            set t [mc_stat $fd time]
            set wall [clock seconds]
            if {$t > $wall || $t < $wall - 2} { lappend ::ahead "$t/$wall" }
            after 61
        }
    }
    after [expr {int(rand() * 1000)}]
}
test {stats time is the wall clock's second, never ahead of it} {
    set ::ahead
} {}
