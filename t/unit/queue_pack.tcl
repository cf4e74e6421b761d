# Queues whose ready messages are many (doc/design.md, "Queued messages"):
# the delivery order at one priority mixed with other priorities, delays
# and releases; ready messages deep in a queue found by id (qinfo, qpeek
# id=); maxage, purge, delete, maxlen and blocking consumers on them;
# flags, empty and 1 MB values; a kill -9 and restart over a snapshot and
# a log tail; and a randomized check of push/pop/ack/release/qpeek/qinfo
# against a model in Tcl, every message accounted for.
# Helpers (q_push, q_pop, q_parse …) are in t/support/queue.tcl.

# qk_push_many fd queue n prefix ?pri? ?flags? -> the ids of n messages
# "<prefix><i>" pushed in one pipelined request.
proc qk_push_many {fd q n prefix {pri {}} {flags 0}} {
    set req {}
    for {set i 0} {$i < $n} {incr i} {
        set v $prefix$i
        append req "qpush $q $flags 0 [string length $v] $pri\r\n$v\r\n"
    }
    set r [mc_exchange $fd $req]
    set ids [regexp -all -inline {PUSHED (\d+)\r\n} $r]
    set ids [lmap {all id} $ids { set id }]
    if {[llength $ids] != $n} { fail "pushed [llength $ids] of $n: '[visible [string range $r 0 200]]'" }
    return $ids
}

# qk_drain fd queue -> every ready message popped (and acked), as a list
# of {id flags data deliveries} in delivery order.
proc qk_drain {fd q} {
    set out {}
    while 1 {
        set items [q_pop $fd $q 100]
        if {![llength $items]} { return $out }
        set acks {}
        foreach it $items { append acks "qack $q [lindex $it 0]\r\n" }
        assert_equal [mc_exchange $fd $acks] [string repeat "ACKED\r\n" [llength $items]]
        lappend out {*}$items
    }
}

# qk_ids items -> the ids of parsed items.
proc qk_ids {items} {
    return [lmap it $items { lindex $it 0 }]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {a burst of in-flight messages, once acked, gives its id map's memory back} {
        set before [mc_malloced $fd]
        qk_push_many $fd burst 20000 m
        set taken {}
        while {[llength [set items [q_pop $fd burst 100]]]} { lappend taken {*}[qk_ids $items] }
        assert_equal [llength $taken] 20000
        set inflight [mc_malloced $fd]
        for {set i 0} {$i < 20000} {incr i 100} {
            set acks {}
            foreach id [lrange $taken $i [expr {$i + 99}]] { append acks "qack burst $id\r\n" }
            assert_equal [mc_exchange $fd $acks] [string repeat "ACKED\r\n" 100]
        }
        assert_equal [q_stat $fd burst in_flight] 0
        set after [mc_malloced $fd]
        # The map held 20,000 ids in 32,768 buckets (256 KB) at its peak.
        assert_range [expr {$inflight - $before}] 262144 100000000 "in flight"
        assert_range [expr {$after - $before}] -100000000 16384 "after the acks"
    }

    test {the arrays of a queue's heaps are counted under -m, and given back after a burst} {
        # The delayed heap's array doubles from 16,384 pointers to 32,768
        # (128 KB more) with the 16,385th delayed message.
        set before [mc_malloced $fd]
        set req {}
        for {set i 0} {$i < 16384} {incr i} {
            set v [format d%05d $i]
            append req "qpush heaparr 0 1000 6\r\n$v\r\n"
        }
        set r [mc_exchange $fd $req]
        assert_equal [regexp -all {PUSHED \d+\r\n} $r] 16384
        set full [mc_malloced $fd]
        assert_match "PUSHED *" [mc_exchange $fd "qpush heaparr 0 1000 6\r\nd16384\r\n"]
        set grown [mc_malloced $fd]
        assert_equal [mc_exchange $fd "qpurge heaparr\r\n"] "PURGED 16385\r\n"
        wait_for {[mc_stat $fd queue_reclaiming] == 0}
        set purged [mc_malloced $fd]
        assert_range [expr {$grown - $full}] 131072 1000000 "the 16,385th message"
        assert_range [expr {$purged - $before}] -100000000 16384 "purged"
    }

    test {queue pack: FIFO at the default priority, mixed with other priorities, delays and releases} {
        set a [qk_push_many $fd pk1 30 a]
        set hi [q_push $fd pk1 hi 0 0 5]
        set lo [q_push $fd pk1 lo 0 0 2000]
        set d [q_push $fd pk1 late 0 10]
        set b [qk_push_many $fd pk1 20 b 1024]
        # Lease the first three, give the second back: it goes back to its place.
        set got [q_pop $fd pk1 3]
        assert_equal [qk_ids $got] [list $hi {*}[lrange $a 0 1]]
        assert_equal [mc_exchange $fd "qrelease pk1 [lindex $a 0]\r\n"] "RELEASED\r\n"
        set c [qk_push_many $fd pk1 10 c]
        assert_equal [mc_exchange $fd "debugtime 11\r\n"] "OK\r\n"
        set want [list [lindex $a 0] {*}[lrange $a 2 end] $d {*}$b {*}$c $lo]
        set got [qk_drain $fd pk1]
        assert_equal [lmap it $got { lindex $it 3 }] [concat 2 [lrepeat 60 1]]
        list [expr {[qk_ids $got] eq $want}] [q_counts $fd pk1]
    } {1 {0 0 2}} {debugtime}

    test {queue pack: qinfo and qpeek id= find ready messages deep in the queue} {
        set ids [qk_push_many $fd pk2 5000 deep- {} 77]
        set id [lindex $ids 3777]
        set info [q_stat_lines $fd "qinfo pk2 $id"]
        assert_equal [dict get $info state] ready
        assert_equal [dict get $info flags] 77
        assert_equal [dict get $info bytes] [string length deep-3777]
        assert_equal [dict get $info priority] 1024
        assert_equal [dict get $info deliveries] 0
        assert_equal [mc_exchange $fd "qpeek pk2 id=$id\r\n"] "[q_item $id 77 deep-3777 0]END\r\n"
        assert_equal [mc_exchange $fd "qpeek pk2 id=[lindex $ids end]\r\n"] "[q_item [lindex $ids end] 77 deep-4999 0]END\r\n"
        assert_equal [mc_exchange $fd "qpeek pk2 id=[lindex $ids 0]\r\n"] "[q_item [lindex $ids 0] 77 deep-0 0]END\r\n"
        # Nothing moved: the first three still come first.
        assert_equal [mc_exchange $fd "qpeek pk2 3\r\n"] \
            "[q_item [lindex $ids 0] 77 deep-0 0][q_item [lindex $ids 1] 77 deep-1 0][q_item [lindex $ids 2] 77 deep-2 0]END\r\n"
        # An id between two messages of the queue, and one past its end.
        list [mc_exchange $fd "qinfo pk2 [expr {[lindex $ids end] + 1000000}]\r\n"] \
            [mc_exchange $fd "qpeek pk2 id=[expr {[lindex $ids 0] - 1}]\r\n"] [q_stat $fd pk2 ready]
    } [list "NOT_FOUND\r\n" "END\r\n" 5000]

    test {queue pack: an acked message is not found by id; its neighbours are} {
        set ids [qk_push_many $fd pk3 50 n]
        set got [q_pop $fd pk3 2]
        assert_equal [mc_exchange $fd "qack pk3 [lindex $ids 0]\r\n"] "ACKED\r\n"
        list [mc_exchange $fd "qinfo pk3 [lindex $ids 0]\r\n"] \
            [dict get [q_stat_lines $fd "qinfo pk3 [lindex $ids 1]"] state] \
            [dict get [q_stat_lines $fd "qinfo pk3 [lindex $ids 2]"] state] \
            [mc_exchange $fd "qack pk3 [lindex $ids 5]\r\n"]
    } [list "NOT_FOUND\r\n" in_flight ready "NOT_FOUND\r\n"]

    test {queue pack: maxage sends ready messages to the dead-letter queue oldest first} {
        assert_equal [mc_exchange $fd "qcreate pk4 maxage=100 dlq=pk4d\r\n"] "CREATED\r\n"
        set old [qk_push_many $fd pk4 40 old]
        set hi [q_push $fd pk4 hi 0 0 1]
        assert_equal [mc_exchange $fd "debugtime 60\r\n"] "OK\r\n"
        set new [qk_push_many $fd pk4 10 new]
        assert_equal [mc_exchange $fd "debugtime 41\r\n"] "OK\r\n"
        set s [q_stats $fd pk4]
        list [dict get $s ready] [dict get $s expired_age] [dict get $s dead] \
            [expr {[qk_ids [qk_drain $fd pk4]] eq $new}] \
            [expr {[qk_ids [qk_drain $fd pk4d]] eq [linsert $old 0 $hi]}]
    } {10 41 41 1 1} {debugtime}

    test {queue pack: qpurge counts and drops every ready message; delete takes the rest} {
        qk_push_many $fd pk5 300 p
        q_push $fd pk5 d 0 100
        q_push $fd pk5 x 0 0 3
        set got [q_pop $fd pk5 2]
        assert_equal [mc_exchange $fd "qpurge pk5\r\n"] "PURGED 300\r\n"
        assert_equal [q_counts $fd pk5] {0 0 2}
        qk_push_many $fd pk5 100 again
        assert_equal [mc_exchange $fd "delete pk5\r\nqstats pk5\r\n"] "DELETED\r\nNOT_FOUND\r\n"
        set ids [qk_push_many $fd pk5 3 fresh]
        expr {[qk_ids [qk_drain $fd pk5]] eq $ids}
    } 1

    test {queue pack: maxlen counts ready messages} {
        assert_equal [mc_exchange $fd "qcreate pk6 maxlen=100\r\n"] "CREATED\r\n"
        qk_push_many $fd pk6 100 m
        set r [mc_exchange $fd "qpush pk6 0 0 1\r\nx\r\nqpushn pk6 0 0 1024 1 1\r\ny\r\nz\r\n"]
        assert_equal $r "NOT_STORED\r\nNOT_STORED\r\n"
        set got [q_pop $fd pk6 1]
        assert_equal [mc_exchange $fd "qack pk6 [lindex $got 0 0]\r\n"] "ACKED\r\n"
        set r [mc_exchange $fd "qpush pk6 0 0 1\r\nx\r\nqpush pk6 0 0 1\r\nx\r\n"]
        list [regexp {^PUSHED \d+\r\nNOT_STORED\r\n$} $r] [q_counts $fd pk6]
    } {1 {100 0 0}}

    test {queue pack: a blocked consumer gets the first push; the others queue behind} {
        set w [mc_connect]
        mc_send $w "qpop pk7 wait=100\r\n"
        q_wait_waiters $fd pk7 1
        set ids [qk_push_many $fd pk7 20 w]
        set got [list [mc_readline $w]]
        assert_equal [mc_read_bytes $w 4] "w0\r\n"
        assert_equal [mc_readline $w] END
        close $w
        list [expr {[lindex $got 0] eq "ITEM [lindex $ids 0] 0 2 1"}] \
            [expr {[qk_ids [qk_drain $fd pk7]] eq [lrange $ids 1 end]}]
    } {1 1}

    test {queue pack: flags, an empty value and a 1 MB value keep their bytes and order} {
        set big [string repeat [randstring 1024 printable] 1024]
        set a [q_push $fd pk8 {} 4294967295]
        set b [q_push $fd pk8 $big 12]
        set c [q_push $fd pk8 "a\r\nb" 0]
        set got [qk_drain $fd pk8]
        list [expr {[qk_ids $got] eq [list $a $b $c]}] [lindex $got 0 1] [string length [lindex $got 0 2]] \
            [expr {[lindex $got 1 2] eq $big}] [lindex $got 1 1] [lindex $got 2 2]
    } [list 1 4294967295 0 1 12 "a\r\nb"]

    test {queue pack: qpushn batches keep their order among single pushes} {
        set a [q_push $fd pk9 a]
        set r [mc_exchange $fd "qpushn pk9 3 0 1024 1 2\r\nb\r\ncc\r\n"]
        regexp {^PUSHED (\d+) (\d+)\r\n$} $r -> b c
        set d [q_push $fd pk9 d]
        set got [qk_drain $fd pk9]
        list [expr {[qk_ids $got] eq [list $a $b $c $d]}] [lmap it $got { lindex $it 2 }] [lindex $got 1 1]
    } {1 {a b cc d} 3}

    test {queue pack: messages of many sizes across chunk boundaries, found by id, popped while pushed} {
        set sizes {0 1 37 100 1000 4100 5000 70000}
        set ids {}
        set data {}
        set req {}
        for {set i 0} {$i < 240} {incr i} {
            set v [string range "$i:[string repeat v [lindex $sizes [expr {$i % 8}]]]" 0 \
                       [expr {[lindex $sizes [expr {$i % 8}]] - 1}]]
            lappend data $v
            append req "qpush pkc $i 0 [string length $v]\r\n$v\r\n"
            if {$i % 40 == 39} {
                foreach {all id} [regexp -all -inline {PUSHED (\d+)\r\n} [mc_exchange $fd $req]] { lappend ids $id }
                set req {}
            }
        }
        assert_equal [llength $ids] 240
        # Every message by id, with its flags and length.
        for {set i 0} {$i < 240} {incr i 7} {
            set info [q_stat_lines $fd "qinfo pkc [lindex $ids $i]"]
            assert_equal [list [dict get $info flags] [dict get $info bytes]] [list $i [string length [lindex $data $i]]]
            assert_equal [mc_exchange $fd "qpeek pkc id=[lindex $ids $i]\r\n"] \
                "[q_item [lindex $ids $i] $i [lindex $data $i] 0]END\r\n"
        }
        # Pop half while pushing more: the head's chunks go, the tail's grow.
        set got {}
        for {set i 0} {$i < 120} {incr i} {
            set it [lindex [q_pop $fd pkc] 0]
            assert_equal [lrange $it 0 2] [list [lindex $ids $i] $i [lindex $data $i]]
            assert_equal [mc_exchange $fd "qack pkc [lindex $it 0]\r\n"] "ACKED\r\n"
            set v more$i
            lappend ids [q_push $fd pkc $v $i]
            lappend data $v
        }
        assert_equal [mc_exchange $fd "qinfo pkc [lindex $ids 119]\r\n"] "NOT_FOUND\r\n"
        assert_equal [dict get [q_stat_lines $fd "qinfo pkc [lindex $ids 120]"] state] ready
        set got [qk_drain $fd pkc]
        set ok 1
        foreach it $got id [lrange $ids 120 end] v [lrange $data 120 end] {
            if {[lindex $it 0] ne $id || [lindex $it 2] ne $v} { set ok 0 }
        }
        list $ok [llength $got] [q_counts $fd pkc]
    } {1 240 {0 0 0}}

    test {queue pack: -m counts the chunks, and gives all of it back on pops, acks and qpurge} {
        assert_equal [mc_exchange $fd "qcreate pkm\r\n"] "CREATED\r\n"
        # One round first: the in-flight id map grows to its size for 100
        # leases at once, and stays.
        qk_push_many $fd pkm 300 m
        qk_drain $fd pkm
        set before [mc_malloced $fd]
        qk_push_many $fd pkm 3000 m
        set full [mc_malloced $fd]
        assert_true {$full - $before >= 3000 * 6} "3000 messages counted [expr {$full - $before}] bytes"
        qk_drain $fd pkm
        assert_equal [mc_malloced $fd] $before "after popping and acking every message"
        qk_push_many $fd pkm 3000 m
        assert_equal [mc_exchange $fd "qpurge pkm\r\n"] "PURGED 3000\r\n"
        # The purged messages are freed by the background reaper.
        wait_for {[mc_stat $fd queue_reclaiming] == 0}
        expr {[mc_malloced $fd] - $before}
    } 0

    # Many queues of one message each (a queue per user or per job): a
    # queue's first chunk is no bigger than what it holds, not 4 KB.
    test {1000 queues of one 32-byte message take less than 256 bytes of memory per message} {
        set b ""
        for {set i 0} {$i < 1000} {incr i} { append b "qcreate pks$i\r\n" }
        mc_exchange $fd $b
        set before [mc_malloced $fd]
        set b ""
        for {set i 0} {$i < 1000} {incr i} {
            append b "qpush pks$i 0 0 32 noreply\r\n[string repeat s 32]\r\n"
        }
        assert_equal [mc_exchange $fd "${b}mn\r\n"] "MN\r\n"
        set per [expr {([mc_malloced $fd] - $before) / 1000.0}]
        assert_equal [lindex [q_pop $fd pks999 1] 0 2] [string repeat s 32]
        assert_true {$per < 256} "$per bytes per message"
    } {}

    # ---- a randomized model check ----

    # The model: qk_m(id) = {seq pri data flags state deliveries}, state
    # ready, delayed or inflight.
    proc qk_ready_order {} {
        set l {}
        foreach id [array names ::qk_m] {
            lassign $::qk_m($id) seq pri data flags state
            if {$state eq "ready"} { lappend l [list $pri $seq $id] }
        }
        return [lmap e [lsort -integer -index 0 [lsort -integer -index 1 $l]] { lindex $e 2 }]
    }

    proc qk_by_state {st} {
        set out {}
        foreach id [array names ::qk_m] {
            if {[lindex $::qk_m($id) 4] eq $st} { lappend out $id }
        }
        return $out
    }

    proc qk_pick {l} {
        return [lindex $l [expr {int(rand() * [llength $l])}]]
    }

    test {queue pack: a randomized model check, every message accounted for} {
        array unset ::qk_m
        expr {srand(1616)}
        assert_equal [mc_exchange $fd "qcreate pkr lease=100000\r\n"] "CREATED\r\n"
        set seq 0
        for {set op 0} {$op < 3000} {incr op} {
            set r [expr {rand()}]
            if {$r < 0.38} {
                set pri [qk_pick {{} {} {} 1024 7 5000}]
                set delay [expr {rand() < 0.1 ? 10 : 0}]
                set flags [expr {rand() < 0.2 ? int(rand() * 1000) : 0}]
                set data [string range "m$op-[string repeat z [expr {int(rand() * 40)}]]" 0 end]
                set id [q_push $fd pkr $data $flags $delay $pri]
                set p [expr {$pri eq {} ? 1024 : $pri}]
                set ::qk_m($id) [list [incr seq] $p $data $flags [expr {$delay ? "delayed" : "ready"}] 0]
            } elseif {$r < 0.60} {
                set n [expr {1 + int(rand() * 3)}]
                set want [lrange [qk_ready_order] 0 [expr {$n - 1}]]
                set got [q_pop $fd pkr $n]
                assert_equal [qk_ids $got] $want
                foreach it $got {
                    lassign $it id flags data dl
                    lassign $::qk_m($id) s p d f st n0
                    assert_equal [list $flags $data $dl] [list $f $d [expr {$n0 + 1}]]
                    set ::qk_m($id) [list $s $p $d $f inflight [expr {$n0 + 1}]]
                }
            } elseif {$r < 0.72} {
                set id [qk_pick [qk_by_state inflight]]
                if {$id eq {}} continue
                assert_equal [mc_exchange $fd "qack pkr $id\r\n"] "ACKED\r\n"
                unset ::qk_m($id)
            } elseif {$r < 0.84} {
                set id [qk_pick [qk_by_state inflight]]
                if {$id eq {}} continue
                set delay [expr {rand() < 0.1 ? 10 : 0}]
                assert_equal [mc_exchange $fd "qrelease pkr $id $delay\r\n"] "RELEASED\r\n"
                lset ::qk_m($id) 4 [expr {$delay ? "delayed" : "ready"}]
            } elseif {$r < 0.90} {
                set want [lrange [qk_ready_order] 0 4]
                assert_equal [qk_ids [q_parse [mc_exchange $fd "qpeek pkr 5\r\n"]]] $want
            } elseif {$r < 0.96} {
                set ids [array names ::qk_m]
                set id [qk_pick $ids]
                if {$id eq {}} continue
                lassign $::qk_m($id) s p d f st n0
                set info [q_stat_lines $fd "qinfo pkr $id"]
                assert_equal [list [dict get $info state] [dict get $info priority] [dict get $info flags] \
                                  [dict get $info bytes] [dict get $info deliveries]] \
                    [list [string map {inflight in_flight} $st] $p $f [string length $d] $n0]
                if {$st ne "inflight"} {
                    assert_equal [mc_exchange $fd "qpeek pkr id=$id\r\n"] "[q_item $id $f $d $n0]END\r\n"
                }
            } else {
                assert_equal [mc_exchange $fd "debugtime 11\r\n"] "OK\r\n"
                foreach id [qk_by_state delayed] { lset ::qk_m($id) 4 ready }
            }
        }
        set s [q_stats $fd pkr]
        assert_equal [list [dict get $s ready] [dict get $s delayed] [dict get $s in_flight]] \
            [list [llength [qk_by_state ready]] [llength [qk_by_state delayed]] [llength [qk_by_state inflight]]]
        assert_equal [mc_exchange $fd "debugtime 11\r\n"] "OK\r\n"
        foreach id [qk_by_state delayed] { lset ::qk_m($id) 4 ready }
        set want [qk_ready_order]
        set got [qk_drain $fd pkr]
        assert_equal [qk_ids $got] $want
        foreach id [qk_by_state inflight] {
            assert_equal [mc_exchange $fd "qack pkr $id\r\n"] "ACKED\r\n"
        }
        list [q_counts $fd pkr] [expr {[llength $want] > 100}]
    } {{0 0 0} 1} {debugtime}
}

# ---- a kill -9 and a restart over a snapshot and a log tail ----

proc qk_server {dir body} {
    uplevel 1 [list start_server [list tags {persist queue mcds-only} args [list --data-dir $dir]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

set qk_dir [tmpdir queue_pack]

qk_server $qk_dir {
    set fd [mc_connect]
    test {queue pack persistence: a snapshot of many ready messages, then a log tail, then kill -9} {
        set a [qk_push_many $fd pkp 2000 s 1024 9]
        set hi [q_push $fd pkp hi 0 0 3]
        set got [q_pop $fd pkp 3]
        assert_equal [mc_exchange $fd "qrelease pkp [lindex $a 0]\r\nqack pkp [lindex $a 1]\r\n"] "RELEASED\r\nACKED\r\n"
        assert_equal [mc_cmd $fd snapshot] OK
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0 && [mc_stat $fd persist_snapshots] == 1} 100 50
        set b [qk_push_many $fd pkp 500 t]
        set got [q_pop $fd pkp 2]
        assert_equal [qk_ids $got] [list [lindex $a 0] [lindex $a 2]]
        assert_equal [mc_exchange $fd "qack pkp [lindex $a 2]\r\n"] "ACKED\r\n"
        set ::qk_want [concat [lrange $a 3 end] $b]
        set ::qk_flight [lsort [list [lindex $a 0] $hi]]
        q_counts $fd pkp
    } {2497 0 2}
}

qk_server $qk_dir {
    set fd [mc_connect]
    test {queue pack persistence: after the restart every message is back, in order} {
        assert_equal [q_counts $fd pkp] {2497 0 2}
        assert_equal [lsort [lmap p [q_pending $fd pkp] { lindex $p 0 }]] $::qk_flight
        set info [q_stat_lines $fd "qinfo pkp [lindex $::qk_want 1000]"]
        assert_equal [list [dict get $info state] [dict get $info flags]] {ready 9}
        set got [qk_drain $fd pkp]
        list [expr {[qk_ids $got] eq $::qk_want}] [lindex $got 0 2] [lindex $got end 2] [lindex $got 0 1]
    } {1 s3 t499 9}
}
