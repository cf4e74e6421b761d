# Black-box tests of persistence for queues, lists and tree counters
# (doc/persistence.md, referenced from doc/protocol.md): "A change is
# applied in memory, its log record is appended, and only then does its
# reply go out", every --fsync policy "survives kill -9: every acknowledged
# change"; a snapshot plus the log from its position restores the same
# state. Each test kills the server with SIGKILL, restarts it on the same
# directory and counts. Written only from the documents.

# The lines of one reply up to END, as bytes (for q_parse).
proc read_to_end {fd} {
    set out {}
    while 1 {
        set line [mc_readline $fd]
        append out "$line\r\n"
        if {$line eq "END"} { return $out }
    }
}

proc snapshot_done {fd} {
    assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
    wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 200 20
}

proc ctget {fd key counter type period} {
    set r [mc_exchange $fd "ctget $key $counter $type $period\r\n"]
    if {![regexp {^VALUE \S+ \d+ \d+ \S+ (-?\d+) (-?\d+)\r\nEND\r\n$} $r -> v f]} { return $r }
    return $v
}

# ---- every list verb, across a snapshot and its log tail ----

set dir [tmpdir lists]
set ::model {}
with_data_dir $dir {} {
    test {lists: every change verb, a snapshot in the middle, then kill -9} {
        set fd [mc_connect]
        assert_equal [mc_exchange $fd "lcreate L maxlen=500\r\n"] "CREATED\r\n"
        for {set i 0} {$i < 200} {incr i} { mc_exchange $fd "rpush L [string length e$i]\r\ne$i\r\n" }
        mc_exchange $fd "lpush L 1 1\r\na\r\nb\r\n"
        mc_exchange $fd "lpop L 3\r\nrpop L 2\r\n"
        snapshot_done $fd
        assert_equal [mc_exchange $fd "lset L 5 3\r\nSET\r\nlinsert L before 3 3\r\ne50\r\nINS\r\nlrem L 0 3\r\ne60\r\n"] \
            "STORED\r\n198\r\n1\r\n"
        mc_exchange $fd "ltrim L 2 150\r\nrpush L 1 2 3\r\nx\r\nyy\r\nzzz\r\nlpush L 0\r\n\r\n"
        # a second list removed after the snapshot, a third with a TTL
        mc_exchange $fd "rpush G 1\r\ng\r\ndelete G\r\nrpush T 1\r\nt\r\ntouch T 100\r\n"
        mc_exchange $fd "rpush W 1\r\nw\r\n"
        mc_exchange $fd "lpop W wait=1\r\n"
        set ::model [l_all $fd L]
        list [llength $::model] [mc_exchange $fd "llen G\r\nllen T\r\nllen W\r\n"]
    } [list 154 "NOT_FOUND\r\n1\r\n0\r\n"]
}
with_data_dir $dir {} {
    test {lists: after kill -9 the list is element for element what it was; deleted list gone; maxlen kept} {
        set fd [mc_connect]
        set got [l_all $fd L]
        list [expr {$got eq $::model ? "same" : "differs: [llength $got] elements, first [lrange $got 0 5] want [lrange $::model 0 5]"}] \
            [mc_exchange $fd "llen G\r\nllen T\r\nllen W\r\n"]
    } [list same "NOT_FOUND\r\n1\r\n0\r\n"]
    test {lists: maxlen survives the restart (a push past 500 refused)} {
        set fd [mc_connect]
        set vals [string repeat "1 " 64]
        set blocks [string repeat "v\r\n" 64]
        set n [llength $::model]
        while {$n + 64 <= 500} { mc_exchange $fd "rpush L $vals\r\n$blocks"; incr n 64 }
        mc_exchange $fd "rpush L $vals\r\n$blocks"
    } "NOT_STORED\r\n"
    test {lists: a TTL set before the crash still runs} {
        set fd [mc_connect]
        mc_exchange $fd "debugtime 101\r\nllen T\r\n"
    } "OK\r\nNOT_FOUND\r\n" {debugtime}
}

# ---- tree counters across a snapshot and its log tail ----

set dir [tmpdir ctree]
with_data_dir $dir {} {
    test {tree counters: definitions, objects, limits and 300 increments around a snapshot, then kill -9} {
        set fd [mc_connect]
        assert_equal [mc_exchange $fd "ctdef 7 304,107 aggregate=1\r\n"] "CREATED\r\n"
        assert_equal [mc_exchange $fd "ctdef 8 107\r\nctundef 8\r\n"] "CREATED\r\nDELETED\r\n"
        assert_equal [mc_exchange $fd "ctobj R\r\nctobj R:a parent=R limits=7:107:1000\r\nctobj R:b parent=R\r\n"] "CREATED\r\nCREATED\r\nCREATED\r\n"
        for {set i 0} {$i < 100} {incr i} { assert_equal [mc_exchange $fd "ctincr R:a 7 304 @1700000000 3\r\n"] "STORED\r\n" }
        snapshot_done $fd
        for {set i 0} {$i < 100} {incr i} { assert_equal [mc_exchange $fd "ctincr R:b 7 304 @1700003600 2\r\n"] "STORED\r\n" }
        # refused increments change nothing
        assert_match "EXCEEDED R:a 107*" [mc_exchange $fd "ctincr R:a 7 304 @1700000000 1000\r\n"]
        assert_equal [mc_exchange $fd "ctraise R:a limits=7:107:500\r\nctincr R:a 7 304 @1700000000 1000\r\n"] "STORED\r\nSTORED\r\n"
        for {set i 0} {$i < 100} {incr i} { mc_exchange $fd "ctincr R:a 7 304 @1700007200 -1\r\n" }
        assert_equal [mc_exchange $fd "ctobj R:gone parent=R\r\nctincr R:gone 7 304 @1700000000 5\r\ndelete R:gone\r\n"] "CREATED\r\nSTORED\r\nDELETED\r\n"
        list [ctget $fd R 7 107 1] [ctget $fd R:a 7 107 1] [ctget $fd R:b 7 107 1] [ctget $fd R:a 7 304 @1700007200]
    } {1400 1200 200 1200}
}
with_data_dir $dir {} {
    test {tree counters: after kill -9 every value, limit and object is back} {
        set fd [mc_connect]
        list [ctget $fd R 7 107 1] [ctget $fd R:a 7 107 1] [ctget $fd R:b 7 107 1] \
            [ctget $fd R:a 7 304 @1700007200] [mc_exchange $fd "ctinfo R:gone\r\nctcounter 8\r\n"] \
            [regexp {LIMIT 7 107 1500\r\n} [mc_exchange $fd "ctinfo R:a\r\n"]]
    } [list 1400 1200 200 1200 "NOT_FOUND\r\nNOT_FOUND\r\n" 1]
}

# ---- kill -9 in the middle of a pipelined stream: every reply read is kept ----

foreach policy {always everysec no} {
    set dir [tmpdir stream-$policy]
    
    with_data_dir $dir [list --fsync $policy --persist-items] {
        test "fsync $policy: 4000 pipelined changes (queue, list, tree counter, cache value), kill -9 after 2000 replies" {
            set fd [mc_connect]
            mc_exchange $fd "ctdef 3 107\r\nctobj C\r\n"
            set req {}
            for {set i 0} {$i < 1000} {incr i} {
                append req "qpush Q 0 0 [string length m$i]\r\nm$i\r\n"
                append req "rpush L [string length e$i]\r\ne$i\r\n"
                append req "ctincr C 3 107 1 1\r\n"
                append req "set K$i 0 0 [string length v$i]\r\nv$i\r\n"
            }
            mc_send_bg $fd $req
            for {set n 0} {$n < 2000} {incr n} { mc_readline $fd }
            kill_pid [srv pid] KILL
            wait_server_exit
        } SIGKILL
    }
    with_data_dir $dir [list --fsync $policy --persist-items] {
        test "fsync $policy: after the restart the first 500 of each kind are there, each kind a prefix of what was sent" {
            set fd [mc_connect]
            set bad {}
            set q [lmap it [q_parse [mc_exchange $fd "qpeek Q 100\r\n"]] { lindex $it 2 }]
            set nq [q_stat $fd Q ready]
            set l [l_all $fd L]
            set c [ctget $fd C 3 107 1]
            set nk 0
            for {set i 0} {$i < 1000} {incr i} { if {[mc_get $fd K$i] eq "v$i"} { incr nk } else break }
            set kmore 0
            for {set i $nk} {$i < 1000} {incr i} { if {[mc_get $fd K$i] ne {}} { incr kmore } }
            if {$nq < 500} { lappend bad "queue: $nq messages" }
            if {[lrange $q 0 2] ne {m0 m1 m2}} { lappend bad "queue starts [lrange $q 0 2]" }
            if {[llength $l] < 500} { lappend bad "list: [llength $l] elements" }
            for {set i 0} {$i < [llength $l]} {incr i} {
                if {[lindex $l $i] ne "e$i"} { lappend bad "list element $i is [lindex $l $i]"; break }
            }
            if {![string is integer -strict $c] || $c < 500} { lappend bad "counter: $c" }
            if {$nk < 500 || $kmore} { lappend bad "values: $nk in a row, $kmore after a gap" }
            set bad
        } {}
    }
}

# ---- queues: leases, acks, a blocking pop served, qpushn, across a snapshot ----

set dir [tmpdir queues]
with_data_dir $dir {--fsync always} {
    test {queues: pushes, leases, acks, qpushn, a served blocking pop around a snapshot, then kill -9} {
        set fd [mc_connect]
        for {set i 0} {$i < 100} {incr i} { q_push $fd J j$i }
        set got [q_pop $fd J 40 lease=600]
        set ::leased [lmap it $got { lindex $it 0 }]
        foreach id [lrange $::leased 0 19] { assert_equal [mc_exchange $fd "qack J $id\r\n"] "ACKED\r\n" }
        snapshot_done $fd
        foreach id [lrange $::leased 20 29] { assert_equal [mc_exchange $fd "qack J $id\r\n"] "ACKED\r\n" }
        assert_match "PUSHED*" [mc_exchange $fd "qpushn J 0 0 0 2 2 2\r\nn1\r\nn2\r\nn3\r\n"]
        # a blocking pop served by a push from another connection
        set fd2 [mc_connect]
        mc_send $fd2 "qpop W wait=5 lease=600\r\n"
        after 100
        q_push $fd W served
        set w [q_parse [read_to_end $fd2]]
        list [q_counts $fd J] [q_counts $fd W] [llength $w]
    } {{63 0 10} {0 0 1} 1}
}
with_data_dir $dir {--fsync always} {
    test {queues: after kill -9 ready, in flight and acked are what they were} {
        set fd [mc_connect]
        set s [q_stats $fd J]
        list [q_counts $fd J] [q_counts $fd W] [mc_exchange $fd "qack J [lindex $::leased 0]\r\nqack J [lindex $::leased 35]\r\n"]
    } [list {63 0 10} {0 0 1} "NOT_FOUND\r\nACKED\r\n"]
}
