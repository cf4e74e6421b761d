# Deduplication ids (doc/protocol.md, "3. Queues", qpush and qpushn
# dedup=, qcreate dedup=): a push that names an id the queue remembers
# answers the first push's id(s) and adds nothing, for the queue's dedup
# window. Every test counts the messages: what goes in comes out, once.
# Time moves with debugtime only. Restarts are in
# t/integration/persist_queue_dedup.tcl. Helpers are in t/support/queue.tcl.

# dd_push fd queue data id ?more? -> the reply of "qpush ... dedup=<id>".
proc dd_push {fd q data id {more {}}} {
    return [mc_exchange $fd "qpush $q 0 0 [string length $data] $more dedup=$id\r\n$data\r\n"]
}

# dd_pushn fd queue id data... -> the reply of a qpushn of the data blocks.
proc dd_pushn {fd q id args} {
    set line "qpushn $q 0 0 1024"
    set blocks {}
    foreach d $args {
        append line " [string length $d]"
        append blocks "$d\r\n"
    }
    return [mc_exchange $fd "$line dedup=$id\r\n$blocks"]
}

# dd_ready_data fd queue -> the data of every ready message, in order.
proc dd_ready_data {fd q} {
    return [lmap m [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lindex $m 2 }]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpush dedup=: the second push of an id answers the first id and adds nothing} {
        set r1 [dd_push $fd d1 first k1]
        set r2 [dd_push $fd d1 second k1]
        assert_equal $r1 $r2
        assert_match {PUSHED *} $r1
        list [dd_ready_data $fd d1] [q_stat $fd d1 pushed] [q_stat $fd d1 deduplicated] \
            [q_stat $fd d1 dedup_entries] [q_stat $fd d1 dedup_window_ms]
    } {first 1 1 1 300000}

    test {qpush dedup=: other ids, other queues and pushes without an id are not duplicates} {
        set a [dd_push $fd d2 a k1]
        set b [dd_push $fd d2 b k2]
        set c [dd_push $fd d3 c k1]
        set d [q_push $fd d2 d]
        set e [q_push $fd d2 d]
        list [expr {[llength [lsort -unique [list $a $b $c "PUSHED $d\r\n" "PUSHED $e\r\n"]]]}] \
            [dd_ready_data $fd d2] [dd_ready_data $fd d3] [q_stat $fd d2 deduplicated]
    } {5 {a b d d} c 0}

    test {qpush dedup=: with a priority, a delay, flags and noreply} {
        set r [mc_exchange $fd "qpush d4 7 0 1 5 dedup=p\r\nx\r\nqpush d4 7 0 1 5 dedup=p noreply\r\ny\r\n"]
        assert_equal [mc_exchange $fd "qpush d4 7 0 1 5 dedup=p\r\nz\r\n"] $r
        regexp {PUSHED (\d+)} $r -> id
        assert_equal [mc_exchange $fd "qpush d4 0 100 1 dedup=later\r\nl\r\n"] [dd_push $fd d4 m later]
        list [expr {[mc_exchange $fd "qpeek d4 5\r\n"] eq "[q_item $id 7 x 0]END\r\n"}] \
            [q_stat $fd d4 delayed] [q_stat $fd d4 deduplicated]
    } {1 1 3}

    test {a duplicate still answers the first id once that message is acked, and adds nothing} {
        regexp {PUSHED (\d+)} [dd_push $fd d5 once job-9] -> id
        set got [q_pop $fd d5]
        assert_equal [mc_exchange $fd "qack d5 $id\r\n"] "ACKED\r\n"
        list [expr {[dd_push $fd d5 again job-9] eq "PUSHED $id\r\n"}] [q_counts $fd d5] [q_stat $fd d5 acked]
    } {1 {0 0 0} 1}

    test {a duplicate is answered even when the queue is at its maxlen} {
        mc_exchange $fd "qcreate d6 maxlen=1\r\n"
        set r [dd_push $fd d6 one f1]
        list [dd_push $fd d6 two f2] [expr {[dd_push $fd d6 again f1] eq $r}] [dd_ready_data $fd d6] \
            [q_stat $fd d6 deduplicated]
    } [list "NOT_STORED\r\n" 1 one 1]

    test {qcreate dedup=<secs>: after the window the id is new again; within it, not} {
        assert_equal [mc_exchange $fd "qcreate d7 dedup=10\r\n"] "CREATED\r\n"
        set r1 [dd_push $fd d7 a w]
        assert_equal [mc_exchange $fd "debugtime 9\r\n"] "OK\r\n"
        assert_equal [dd_push $fd d7 b w] $r1
        assert_equal [mc_exchange $fd "debugtime 1\r\n"] "OK\r\n"
        set r2 [dd_push $fd d7 c w]
        assert_true {$r2 ne $r1}
        list [dd_ready_data $fd d7] [q_stat $fd d7 dedup_window_ms] [q_stat $fd d7 deduplicated] \
            [q_stat $fd d7 dedup_entries]
    } {{a c} 10000 1 1} {debugtime}

    test {the default window is 300 seconds; expired ids are forgotten} {
        set r1 [dd_push $fd d8 a w]
        for {set i 0} {$i < 200} {incr i} { dd_push $fd d8 m$i id$i }
        assert_equal [q_stat $fd d8 dedup_entries] 201
        assert_equal [mc_exchange $fd "debugtime 299\r\n"] "OK\r\n"
        assert_equal [dd_push $fd d8 b w] $r1
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        wait_for {[q_stat $fd d8 dedup_entries] == 0} 100 20
        list [q_stat $fd d8 ready] [expr {[dd_push $fd d8 c w] ne $r1}] [q_stat $fd d8 ready] \
            [q_stat $fd d8 dedup_entries]
    } {201 1 202 1} {debugtime}

    test {many ids expiring at once: each is new again, once} {
        assert_equal [mc_exchange $fd "qcreate d14 dedup=10\r\n"] "CREATED\r\n"
        set batch {}
        for {set i 0} {$i < 700} {incr i} { append batch "qpush d14 0 0 1 dedup=e$i\r\nx\r\n" }
        mc_send $fd $batch
        set first {}
        for {set i 0} {$i < 700} {incr i} { lappend first [mc_readline $fd] }
        # The timer frees at most 256 expired ids a run (several runs here),
        # while the pushes right after the clock moves come in.
        mc_send $fd "debugtime 11\r\n$batch"
        assert_equal [mc_readline $fd] OK
        set again {}
        for {set i 0} {$i < 700} {incr i} { lappend again [mc_readline $fd] }
        set same 0
        foreach a $first b $again { if {$a eq $b} { incr same } }
        list $same [llength [lsort -unique [concat $first $again]]] [q_stat $fd d14 ready] \
            [q_stat $fd d14 dedup_entries] [q_stat $fd d14 deduplicated]
    } {0 1400 1400 700 0} {debugtime}

    test {most ids expiring, a few not: the few still answer, the table shrinks around them} {
        assert_equal [mc_exchange $fd "qcreate d15 dedup=10\r\n"] "CREATED\r\n"
        set batch {}
        for {set i 0} {$i < 1000} {incr i} { append batch "qpush d15 0 0 1 dedup=o$i\r\nx\r\n" }
        mc_send $fd $batch
        for {set i 0} {$i < 1000} {incr i} { mc_readline $fd }
        assert_equal [mc_exchange $fd "debugtime 5\r\n"] "OK\r\n"
        set kept {}
        for {set i 0} {$i < 10} {incr i} { lappend kept [dd_push $fd d15 k k$i] }
        assert_equal [mc_exchange $fd "debugtime 6\r\n"] "OK\r\n"
        wait_for {[q_stat $fd d15 dedup_entries] == 10} 100 20
        set again {}
        for {set i 0} {$i < 10} {incr i} { lappend again [dd_push $fd d15 k2 k$i] }
        list [expr {$again eq $kept}] [q_stat $fd d15 ready] [q_stat $fd d15 deduplicated] \
            [expr {[dd_push $fd d15 n o5] ni $kept}] [q_stat $fd d15 ready]
    } {1 1010 10 1 1011} {debugtime}

    test {qcreate dedup=: fractions allowed; bad values are CLIENT_ERROR and create nothing} {
        assert_equal [mc_exchange $fd "qcreate d9 dedup=1.5\r\n"] "CREATED\r\n"
        assert_equal [q_stat $fd d9 dedup_window_ms] 1500
        set r {}
        foreach v {dedup=0 dedup= dedup=-1 dedup=abc dedup=1x dedup=100000001 dedup=0.0001} {
            append r [mc_exchange $fd "qcreate d10 $v\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad value for dedup\r\n" 7]
        mc_exchange $fd "qstats d10\r\n"
    } "NOT_FOUND\r\n"

    test {qpush dedup=: ids of 1 to 128 bytes; any other is refused and its data skipped} {
        set long [string repeat x 128]
        set r [dd_push $fd d11 a $long]
        assert_equal [dd_push $fd d11 b $long] $r
        set out [mc_exchange $fd [string cat \
            "qpush d11 0 0 9 dedup=\r\nflush_all\r\n" \
            "qpush d11 0 0 9 dedup=[string repeat y 129]\r\nflush_all\r\n" \
            "qpush d11 0 0 9 dedup=a dedup=b\r\nflush_all\r\n" \
            "qpush d11 0 0 9 color=5\r\nflush_all\r\n" \
            "qpush d11 0 0 9 DEDUP=5\r\nflush_all\r\n" \
            "qpush d11 0 0 9 dedup=a 5\r\nflush_all\r\n" \
            "qpush d11 0 0 9 5 dedup=a extra\r\nflush_all\r\n" \
            "qpush d11 0 0 9 dedup=a noreply extra\r\nflush_all\r\n" \
            "qpush d11 0 0 9 x dedup=a\r\nflush_all\r\n" \
            "qpush d11 0 0 9 dedup=a noreply\r\nflush_all\r\n"]]
        list $out [dd_ready_data $fd d11] [q_stat $fd d11 dedup_entries]
    } [list [string cat [string repeat "CLIENT_ERROR bad value for dedup\r\n" 3] \
                 "CLIENT_ERROR unknown option color\r\nCLIENT_ERROR unknown option DEDUP\r\n" \
                 "CLIENT_ERROR too many tokens\r\nCLIENT_ERROR too many tokens\r\n" \
                 "CLIENT_ERROR noreply must be the last token\r\nCLIENT_ERROR bad priority\r\n"] \
           {a flush_all} 2]

    test {hostile: an unreadable length with dedup= closes the connection, the data is never run} {
        set c [mc_connect]
        mc_send $c "qpush d12 0 0 x9 dedup=a\r\nflush_all\r\n"
        list [mc_readline $c] [mc_read_until_close $c] [q_stat $fd d11 ready]
    } {{CLIENT_ERROR bad length} {} 2}

    test {qpushn dedup=: a retried batch answers the same ids and adds nothing} {
        set r1 [dd_pushn $fd n1 b1 a bb ccc]
        assert_match {PUSHED * * *} $r1
        set r2 [dd_pushn $fd n1 b1 a bb ccc]
        list [expr {$r1 eq $r2}] [dd_ready_data $fd n1] [q_stat $fd n1 pushed] \
            [q_stat $fd n1 deduplicated] [q_stat $fd n1 dedup_entries]
    } {1 {a bb ccc} 3 3 3}

    test {qpushn dedup=: message i of a batch is (id, i): a longer retry pushes only the rest} {
        regexp {PUSHED (\d+) (\d+)} [dd_pushn $fd n2 b2 a b] -> x y
        set r [dd_pushn $fd n2 b2 A B c d]
        assert_true {[regexp "^PUSHED $x $y (\\d+) (\\d+)\r\n$" $r -> z w]}
        list [dd_ready_data $fd n2] [q_stat $fd n2 deduplicated] [expr {$z != $w && $z > $y}]
    } {{a b c d} 2 1}

    test {qpush dedup=k is message 0 of a qpushn dedup=k} {
        set r [dd_push $fd n3 solo k]
        regexp {PUSHED (\d+)} $r -> a
        set rn [dd_pushn $fd n3 k x y]
        assert_true {[regexp "^PUSHED $a (\\d+)\r\n$" $rn]}
        dd_ready_data $fd n3
    } {solo y}

    test {qpushn dedup=: the option may come anywhere after the priority; errors skip the blocks} {
        regexp {PUSHED (\d+) (\d+)} [mc_exchange $fd "qpushn n4 0 0 1024 dedup=o 1 2\r\na\r\nbb\r\n"] -> a b
        set out [mc_exchange $fd [string cat \
            "qpushn n4 0 0 1024 1 dedup=o 2\r\nx\r\nyy\r\n" \
            "qpushn n4 0 0 1024 5 dedup= 5\r\nflush\r\nflush\r\n" \
            "qpushn n4 0 0 1024 5 dedup=a dedup=b\r\nflush\r\n" \
            "qpushn n4 0 0 1024 5 color=1\r\nflush\r\n" \
            "qpushn n4 0 0 1024 5 DEDUP=1 noreply\r\nflush\r\n" \
            "qpushn n4 0 0 1024 5 dedup=[string repeat z 129]\r\nflush\r\n" \
            "qpushn n4 0 0 1024 dedup=a\r\n" \
            "qpushn n4 0 0 1024 dedup=a noreply\r\n"]]
        list [expr {$out eq [string cat "PUSHED $a $b\r\n" \
                                 [string repeat "CLIENT_ERROR bad value for dedup\r\n" 2] \
                                 "CLIENT_ERROR unknown option color\r\n" \
                                 "CLIENT_ERROR bad value for dedup\r\n" "ERROR\r\nERROR\r\n"]}] \
            [dd_ready_data $fd n4]
    } {1 {a bb}}

    test {qpushn dedup= cut off by a dropped connection is retried whole: each message once} {
        set req "qpushn n5 0 0 1024 3 3 3 dedup=cut\r\none\r\ntwo\r\nsix\r\n"
        # Cut in the middle of its blocks: nothing is queued.
        set a [mc_connect]
        mc_send $a [string range $req 0 [expr {[string length $req] - 8}]]
        close $a
        # Sent whole, the reply never read: queued (or not yet) as one.
        set b [mc_connect]
        mc_send $b $req
        close $b
        wait_for {[q_stat $fd n5 ready] == 3} 100 20
        set r1 [mc_exchange $fd $req]
        set r2 [mc_exchange $fd $req]
        list [regexp {^PUSHED \d+ \d+ \d+\r\n$} $r1] [expr {$r1 eq $r2}] [dd_ready_data $fd n5] \
            [q_stat $fd n5 pushed] [q_stat $fd n5 deduplicated]
    } {1 1 {one two six} 3 6}

    test {two producers retrying the same ids at once: exactly one message per id} {
        set a [mc_connect]
        set b [mc_connect]
        set batch {}
        for {set i 0} {$i < 300} {incr i} { append batch "qpush c1 0 0 [string length $i] dedup=r$i\r\n$i\r\n" }
        mc_send_bg $a $batch
        mc_send_bg $b $batch
        set ra {}
        set rb {}
        for {set i 0} {$i < 300} {incr i} { lappend ra [mc_readline $a] }
        for {set i 0} {$i < 300} {incr i} { lappend rb [mc_readline $b] }
        set data [lmap m [q_pop $fd c1 100] { lindex $m 2 }]
        lappend data {*}[lmap m [q_pop $fd c1 100] { lindex $m 2 }]
        lappend data {*}[lmap m [q_pop $fd c1 100] { lindex $m 2 }]
        list [expr {$ra eq $rb}] [llength [lsort -unique $ra]] [llength [lsort -integer -unique $data]] \
            [q_stat $fd c1 pushed] [q_stat $fd c1 popped] [q_stat $fd c1 ready] [q_stat $fd c1 deduplicated]
    } {1 300 300 300 300 0 300}

    test {counts: what goes in comes out once, duplicates and all} {
        for {set i 0} {$i < 50} {incr i} {
            dd_push $fd c2 v$i id[expr {$i % 20}]
            dd_pushn $fd c2 bid[expr {$i % 7}] x$i y$i
        }
        set pushed [q_stat $fd c2 pushed]
        set got [q_pop $fd c2 10]
        foreach m [lrange $got 0 4] { mc_exchange $fd "qack c2 [lindex $m 0]\r\n" }
        list $pushed [q_stat $fd c2 deduplicated] \
            [expr {[q_stat $fd c2 acked] + [q_stat $fd c2 in_flight] + [q_stat $fd c2 ready]}]
    } {34 116 34}

    test {a deleted queue forgets its ids; a new queue under the name starts afresh} {
        set r1 [dd_push $fd d13 a z]
        assert_equal [mc_exchange $fd "delete d13\r\n"] "DELETED\r\n"
        set r2 [dd_push $fd d13 b z]
        list [expr {$r1 ne $r2}] [dd_ready_data $fd d13] [q_stat $fd d13 deduplicated]
    } {1 b 0}

    test {help and qstats name the option} {
        list [string match "*dedup=*" [mc_exchange $fd "help qpush\r\n"]] \
            [string match "*dedup=*" [mc_exchange $fd "help qpushn\r\n"]] \
            [string match "*dedup=*" [mc_exchange $fd "help qcreate\r\n"]]
    } {1 1 1}
}
