# The read-only queue views (doc/protocol.md, "3. Queues": qinfo, the id=
# and delayed forms of qpeek, qlist; server/verbs/verb_queue_info.c). Nothing
# here changes a queue: tests check what they read against what the queue
# verbs did. Times are bounded by what the test itself measured around its
# requests, never by how long something may take.

# qi_info fd queue id -> dict of qinfo's STAT lines (fails on anything else).
proc qi_info {fd q id} {
    return [q_stat_lines $fd "qinfo $q $id"]
}

# The fields of qinfo that do not move with time, in their order.
proc qi_fixed {d} {
    return [lmap k {id state priority flags bytes deliveries holder} { dict get $d $k }]
}

# How qinfo and stats conns name the server's side of client connection fd:
# "<fd> tcp:127.0.0.1:<the client's port>".
proc qi_name_re {fd} {
    return "^(\\d+) tcp:127\\.0\\.0\\.1:[lindex [fconfigure $fd -sockname] 2]\$"
}

# The counters of a queue, to show a view changed nothing.
proc qi_counts {fd q} {
    set s [q_stats $fd $q]
    return [lmap k {ready delayed in_flight buried pushed popped acked released lease_expired dead} {
        dict get $s $k
    }]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qinfo: a ready message, every line in the documented order, nothing delivered yet} {
        set id [q_push $fd i1 hello 7 0 55]
        set r [mc_exchange $fd "qinfo i1 $id\r\n"]
        assert_equal [regsub {STAT age_ms \d+\r\n} $r "STAT age_ms A\r\n"] [string cat \
            "STAT id $id\r\nSTAT state ready\r\nSTAT priority 55\r\nSTAT flags 7\r\nSTAT bytes 5\r\n" \
            "STAT deliveries 0\r\nSTAT age_ms A\r\nSTAT first_delivery_ms 0\r\nSTAT last_delivery_ms 0\r\n" \
            "STAT delay_ms_left 0\r\nSTAT lease_ms_left 0\r\nSTAT holder -\r\nSTAT ttl_ms_left -1\r\nEND\r\n"]
    }

    test {qinfo: age_ms counts from the push on the server clock} {
        set id [q_push $fd i2 a]
        assert_equal [mc_exchange $fd "debugtime 5\r\n"] "OK\r\n"
        expr {[dict get [qi_info $fd i2 $id] age_ms] >= 5000}
    } 1 {debugtime}

    test {qinfo: a delayed message says how long it still waits} {
        set t0 [clock milliseconds]
        set id [q_push $fd i3 later 0 100]
        set d [qi_info $fd i3 $id]
        set spent [expr {[clock milliseconds] - $t0}]
        set left [dict get $d delay_ms_left]
        list [expr {[dict get $d id] == $id}] [lrange [qi_fixed $d] 1 6] \
            [expr {$left <= 100000 && $left >= 100000 - $spent - 1}] [dict get $d lease_ms_left]
    } {1 {delayed 1024 0 5 0 -} 1 0}

    test {qinfo: an in-flight message: its lease left and the connection that popped it, as stats conns names it} {
        set c [mc_connect]
        set id [q_push $fd i4 work]
        set t0 [clock milliseconds]
        assert_equal [mc_exchange $c "qpop i4 lease=60\r\n"] [q_item $id 0 work 1]END\r\n
        set d [qi_info $fd i4 $id]
        set spent [expr {[clock milliseconds] - $t0}]
        set left [dict get $d lease_ms_left]
        assert_equal [lrange [qi_fixed $d] 0 5] [list $id in_flight 1024 0 4 1]
        assert_equal [expr {$left <= 60000 && $left >= 60000 - $spent - 1}] 1
        assert_equal [regexp [qi_name_re $c] [dict get $d holder] -> cfd] 1
        set conns [mc_exchange $fd "stats conns\r\n"]
        assert_equal [string match "*STAT $cfd:addr tcp:127.0.0.1:[lindex [fconfigure $c -sockname] 2]\r\n*" $conns] 1
        mc_close $c
    }

    test {qinfo: a redelivery moves the last delivery time, not the first} {
        set id [q_push $fd i5 again]
        q_pop $fd i5
        set d1 [qi_info $fd i5 $id]
        set first [dict get $d1 first_delivery_ms]
        assert_equal [dict get $d1 last_delivery_ms] $first
        assert_equal [mc_exchange $fd "qrelease i5 $id\r\ndebugtime 3\r\n"] "RELEASED\r\nOK\r\n"
        set d2 [qi_info $fd i5 $id]
        assert_equal [lrange [qi_fixed $d2] 1 6] {ready 1024 0 5 1 -}
        q_pop $fd i5
        set d3 [qi_info $fd i5 $id]
        list [dict get $d3 deliveries] [expr {[dict get $d3 first_delivery_ms] == $first}] \
            [expr {[dict get $d3 last_delivery_ms] - $first >= 3000}]
    } {2 1 1} {debugtime}

    test {qinfo: the holder of a lease whose connection closed is gone; the lease still runs} {
        set c [mc_connect]
        set id [q_push $fd i6 orphan]
        mc_exchange $c "qpop i6\r\n"
        mc_close $c
        wait_for {[dict get [qi_info $fd i6 $id] holder] eq "gone"}
        lrange [qi_fixed [qi_info $fd i6 $id]] 1 5
    } {in_flight 1024 0 6 1}

    test {qinfo: a new connection on the same fd is not taken for a closed holder} {
        set c [mc_connect]
        set id [q_push $fd i7 reused]
        mc_exchange $c "qpop i7\r\n"
        regexp [qi_name_re $c] [dict get [qi_info $fd i7 $id] holder] -> cfd
        mc_close $c
        wait_for {[dict get [qi_info $fd i7 $id] holder] eq "gone"}
        # The next connection gets the lowest free fd: the one just closed.
        set n [mc_connect]
        mc_cmd $n version
        set same [regexp "STAT $cfd:addr tcp:127.0.0.1:[lindex [fconfigure $n -sockname] 2]\r\n" \
                      [mc_exchange $fd "stats conns\r\n"]]
        set holder [dict get [qi_info $fd i7 $id] holder]
        mc_close $n
        list $same $holder
    } {1 gone}

    test {qinfo: a Kestrel open read: lease_ms_left -1, holder kestrel and the connection} {
        set c [mc_connect]
        set id [q_push $fd i8 opened]
        assert_equal [mc_exchange $c "get i8/open\r\n"] "VALUE i8/open 0 6\r\nopened\r\nEND\r\n"
        set d [qi_info $fd i8 $id]
        set re "^kestrel [string range [qi_name_re $c] 1 end]"
        set r [list [dict get $d lease_ms_left] [regexp $re [dict get $d holder]]]
        mc_close $c
        wait_for {[dict get [qi_info $fd i8 $id] state] eq "ready"}
        lappend r [lrange [qi_fixed [qi_info $fd i8 $id]] 5 6]
    } {-1 1 {1 -}}

    test {qinfo: a waiting qpop served by a push: the holder is the waiter, not the pusher} {
        set w [mc_connect]
        mc_send $w "qpop i9 wait=60\r\n"
        q_wait_waiters $fd i9 1
        set id [q_push $fd i9 served]
        assert_equal [mc_exchange $w ""] "[q_item $id 0 served 1]END\r\n"
        set r [regexp [qi_name_re $w] [dict get [qi_info $fd i9 $id] holder]]
        mc_close $w
        set r
    } 1

    test {qinfo: released with a delay, a message is delayed again with its deliveries kept} {
        set id [q_push $fd i10 back]
        q_pop $fd i10
        assert_equal [mc_exchange $fd "qrelease i10 $id 50\r\n"] "RELEASED\r\n"
        set d [qi_info $fd i10 $id]
        list [expr {[dict get $d id] == $id}] [lrange [qi_fixed $d] 1 6] \
            [expr {[dict get $d delay_ms_left] > 0}] [expr {[dict get $d last_delivery_ms] > 0}]
    } {1 {delayed 1024 0 4 1 -} 1 1}

    test {qinfo: a waiter that hung up before its answer: the delivery is not counted, nor its time} {
        set w [mc_connect]
        mc_send $w "qpop i11 wait=60\r\n"
        q_wait_waiters $fd i11 1
        close $w
        wait_for {[q_stat $fd i11 waiters] == 0}
        set id [q_push $fd i11 kept]
        set d [qi_info $fd i11 $id]
        list [dict get $d state] [dict get $d deliveries] [dict get $d first_delivery_ms] [dict get $d last_delivery_ms]
    } {ready 0 0 0}

    test {qinfo: a buried message, and a dead letter in its dead-letter queue (id kept, history anew)} {
        mc_exchange $fd "qcreate i12 maxdeliver=1 dlq=i12d\r\n"
        assert_equal [mc_set $fd i12d cache] STORED
        set id [q_push $fd i12 doomed]
        q_pop $fd i12 lease=1
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set buried [lrange [qi_fixed [qi_info $fd i12 $id]] 1 6]
        assert_equal [mc_exchange $fd "delete i12d\r\nqcreate i12d\r\ndebugtime 2\r\n"] "DELETED\r\nCREATED\r\nOK\r\n"
        wait_for {[q_stat $fd i12d ready] == 1}
        set d [qi_info $fd i12d $id]
        list $buried [mc_exchange $fd "qinfo i12 $id\r\n"] [expr {[dict get $d id] == $id}] \
            [lrange [qi_fixed $d] 1 6] [dict get $d first_delivery_ms] [dict get $d last_delivery_ms]
    } [list {buried 1024 0 6 1 -} "NOT_FOUND\r\n" 1 {ready 1024 0 6 0 -} 0 0] {debugtime}

    test {qinfo: an acked, a purged and an unknown id are NOT_FOUND; a missing queue too} {
        set a [q_push $fd i13 x]
        set b [q_push $fd i13 y 0 100]
        q_pop $fd i13
        mc_exchange $fd "qack i13 $a\r\nqpurge i13\r\n"
        mc_exchange $fd "qinfo i13 $a\r\nqinfo i13 $b\r\nqinfo i13 999999999\r\nqinfo nosuch 1\r\n"
    } [string repeat "NOT_FOUND\r\n" 4]

    test {qpending holders: each line ends in the lease's holder, as qinfo names it} {
        set c [mc_connect]
        set k [mc_connect]
        set a [q_push $fd p2 one]
        set b [q_push $fd p2 two]
        set g [q_push $fd p2 three]
        mc_exchange $c "qpop p2 lease=10\r\n"
        mc_exchange $k "get p2/open\r\n"
        set x [mc_connect]
        mc_exchange $x "qpop p2 lease=20\r\n"
        mc_close $x
        wait_for {[dict get [qi_info $fd p2 $g] holder] eq "gone"}
        set r [mc_exchange $fd "qpending p2 holders\r\n"]
        set cre [string range [qi_name_re $c] 1 end-1]
        set kre [string range [qi_name_re $k] 1 end-1]
        set want "^PENDING $a 0 3 1 \\d+ $cre\r\nPENDING $g 0 5 1 \\d+ gone\r\nPENDING $b 0 3 1 -1 kestrel $kre\r\nEND\r\n\$"
        set ok [regexp $want $r]
        if {!$ok} { fail "'[visible $r]' does not match '$want'" }
        # values and a count still work beside it; without it the lines are as before.
        set v [mc_exchange $fd "qpending p2 values holders 1\r\n"]
        set plain [mc_exchange $fd "qpending p2 1\r\n"]
        mc_close $c
        mc_close $k
        list [regexp "^PENDING $a 0 3 1 \\d+ $cre\r\none\r\nEND\r\n\$" $v] [regexp "^PENDING $a 0 3 1 \\d+\r\nEND\r\n\$" $plain]
    } {1 1}

    test {qpending holders: hostile lines} {
        mc_exchange $fd [string cat "qpending p3 holders values\r\n" "qpending p3 holders holders\r\n" \
                             "qpending p3 values holders 0\r\n" "qpending p3 values holders 5 x\r\n" \
                             "qpending p3 holders 5 x\r\n" "qpending p3 values holders 5 x y\r\n" "qpending p3 holders\r\n" \
                             "qpending p3 values 5 x\r\n" "qpending p3 5 holders x\r\n"]
    } [string cat [string repeat "CLIENT_ERROR count must be 1..10000\r\n" 3] \
           "ERROR\r\n" "CLIENT_ERROR too many tokens\r\n" "ERROR\r\n" "END\r\n" "ERROR\r\n" "ERROR\r\n"]

    test {qinfo: qpopany's holder, popped at once and served while waiting} {
        set c [mc_connect]
        set a [q_push $fd y2 now]
        mc_exchange $c "qpopany y1 y2\r\n"
        set r [regexp [qi_name_re $c] [dict get [qi_info $fd y2 $a] holder]]
        set w [mc_connect]
        mc_send $w "qpopany y3 y4 wait=60\r\n"
        q_wait_waiters $fd y4 1
        set b [q_push $fd y4 later]
        mc_readline $w
        lappend r [regexp [qi_name_re $w] [dict get [qi_info $fd y4 $b] holder]]
        mc_close $c
        mc_close $w
        set r
    } {1 1}

    test {qinfo: a redriven dead letter starts its delivery times again with its count} {
        mc_exchange $fd "qcreate y5 maxdeliver=1\r\n"
        set a [q_push $fd y5 bounced]
        q_pop $fd y5 lease=1
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        q_pop $fd y5:dead lease=1
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set d [qi_info $fd y5:dead $a]
        assert_equal [list [dict get $d deliveries] [expr {[dict get $d last_delivery_ms] > 0}]] {1 1}
        assert_match "REDRIVEN 1 *" [mc_exchange $fd "qredrive y5:dead\r\n"]
        set d [qi_info $fd y5 $a]
        list [dict get $d state] [dict get $d deliveries] [dict get $d first_delivery_ms] [dict get $d last_delivery_ms]
    } {ready 0 0 0} {debugtime}

    test {qinfo changes nothing: the counters and the order of delivery stay as they were} {
        set a [q_push $fd i14 one]
        set b [q_push $fd i14 two 0 100]
        set c [q_push $fd i14 three]
        q_pop $fd i14
        set before [qi_counts $fd i14]
        foreach id [list $a $b $c] { qi_info $fd i14 $id }
        list [expr {[qi_counts $fd i14] eq $before}] [expr {[lmap m [q_pop $fd i14 5] { lindex $m 0 }] eq [list $c]}]
    } {1 1}
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qinfo: first and last delivery are Unix milliseconds (a server whose clock was not moved)} {
        set id [q_push $fd u1 now]
        set t0 [clock milliseconds]
        q_pop $fd u1
        set t1 [clock milliseconds]
        set first [dict get [qi_info $fd u1 $id] first_delivery_ms]
        # The server's Unix time is its start time plus its own clock: within a second of ours.
        expr {$first >= $t0 - 1000 && $first <= $t1 + 1000}
    } 1

    test {qinfo: hostile lines: bad ids, wrong types, token counts, long keys} {
        assert_equal [mc_set $fd plain v] STORED
        set r {}
        foreach id {abc -1 +5 1:2 18446744073709551616 1x 0x10 { }} {
            append r [mc_exchange $fd "qinfo u2 $id\r\n"]
        }
        assert_equal $r [string repeat "CLIENT_ERROR bad id\r\n" 7]ERROR\r\n
        mc_exchange $fd [string cat "qinfo plain 1\r\n" "qinfo u2\r\n" "qinfo\r\n" "qinfo u2 1 2\r\n" \
                             "qinfo u2 1 noreply\r\n" "qinfo [string repeat k 251] 1\r\n" \
                             "qinfo u2 18446744073709551615\r\n" "qinfo u2 0\r\n"]
    } [string cat "CLIENT_ERROR key holds another type of value\r\n" "ERROR\r\n" "ERROR\r\n" "ERROR\r\n" \
           "ERROR\r\n" "CLIENT_ERROR key too long\r\n" "NOT_FOUND\r\n" "NOT_FOUND\r\n"]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpeek id=: a message in each state, as an ITEM line with its data, then END; nothing moves} {
        set r [q_push $fd k1 leased 1]
        set d [q_push $fd k1 delayed 2 100]
        set f [q_push $fd k1 ready 3]
        assert_equal [lindex [lindex [q_pop $fd k1] 0] 0] $r
        assert_equal [mc_exchange $fd "qpeek k1 id=$r\r\nqpeek k1 id=$d\r\nqpeek k1 id=$f\r\n"] \
            "[q_item $r 1 leased 1]END\r\n[q_item $d 2 delayed 0]END\r\n[q_item $f 3 ready 0]END\r\n"
        list [expr {[lmap m [q_pop $fd k1 5] { lindex $m 0 }] eq [list $f]}] [q_counts $fd k1]
    } {1 {0 1 2}}

    test {qpeek id=: a buried message; an unknown id, an acked one and a missing queue answer END} {
        mc_exchange $fd "qcreate k2 maxdeliver=1 dlq=k2d\r\n"
        assert_equal [mc_set $fd k2d cache] STORED
        set b [q_push $fd k2 buried 5]
        set a [q_push $fd k2 acked]
        q_pop $fd k2 2 lease=1
        mc_exchange $fd "qack k2 $a\r\n"
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        assert_equal [q_stat $fd k2 buried] 1
        set r [mc_exchange $fd "qpeek k2 id=$b\r\nqpeek k2 id=$a\r\nqpeek k2 id=0\r\nqpeek k2 id=18446744073709551615\r\nqpeek nosuch id=1\r\n"]
        expr {$r eq [string cat [q_item $b 5 buried 1] [string repeat "END\r\n" 5]]}
    } 1 {debugtime}

    test {qpeek delayed: the delayed messages by due time (then push order), count 1..100} {
        set late [q_push $fd k3 late 0 300]
        set soon [q_push $fd k3 soon 0 100]
        set mid [q_push $fd k3 mid 0 200 1]
        set tie [q_push $fd k3 tie 0 100]
        set now [q_push $fd k3 now]
        assert_equal [mc_exchange $fd "qpeek k3 delayed\r\n"] "[q_item $soon 0 soon 0]END\r\n"
        assert_equal [mc_exchange $fd "qpeek k3 delayed 100\r\n"] [string cat [q_item $soon 0 soon 0] \
            [q_item $tie 0 tie 0] [q_item $mid 0 mid 0] [q_item $late 0 late 0] "END\r\n"]
        # The plain form is unchanged: the ready ones.
        assert_equal [mc_exchange $fd "qpeek k3 5\r\n"] "[q_item $now 0 now 0]END\r\n"
        set r [mc_exchange $fd "qpeek k3 delayed 2\r\nqpeek k3x delayed\r\n"]
        expr {$r eq [string cat [q_item $soon 0 soon 0] [q_item $tie 0 tie 0] "END\r\nEND\r\n"]}
    } 1

    test {qpeek delayed: a delay that ran out is ready, no longer delayed} {
        set a [q_push $fd k4 first 0 10]
        assert_equal [mc_exchange $fd "qpeek k4 delayed\r\n"] "[q_item $a 0 first 0]END\r\n"
        set r [mc_exchange $fd "debugtime 11\r\nqpeek k4 delayed\r\nqpeek k4\r\n"]
        expr {$r eq [string cat "OK\r\nEND\r\n" [q_item $a 0 first 0] "END\r\n"]}
    } 1 {debugtime}

    test {qpeek: hostile lines; the plain form and its errors unchanged} {
        assert_equal [mc_set $fd kplain v] STORED
        mc_exchange $fd [string cat "qpeek k5 id=\r\n" "qpeek k5 id=x\r\n" "qpeek k5 id=-1\r\n" "qpeek k5 id=1:1\r\n" \
                             "qpeek k5 id=18446744073709551616\r\n" "qpeek k5 delayed 0\r\n" "qpeek k5 delayed 101\r\n" \
                             "qpeek k5 delayed x\r\n" "qpeek k5 1 x\r\n" "qpeek k5 id=1 2\r\n" "qpeek k5 delayed 1 2\r\n" \
                             "qpeek kplain id=1\r\n" "qpeek kplain delayed\r\n" "qpeek [string repeat k 251] id=1\r\n" \
                             "qpeek k5 ID=1\r\n" "qpeek k5 0\r\n" "qpeek k5 nodelay\r\n"]
    } [string cat [string repeat "CLIENT_ERROR bad value for id\r\n" 5] [string repeat "CLIENT_ERROR count must be 1..100\r\n" 3] \
           [string repeat "ERROR\r\n" 3] [string repeat "CLIENT_ERROR key holds another type of value\r\n" 2] \
           "CLIENT_ERROR key too long\r\n" [string repeat "CLIENT_ERROR count must be 1..100\r\n" 3]]
}

# qlist_all fd ?count? -> every QUEUE line over all pages (fails on a page
# that is not QUEUE lines, an optional MORE line and END).
proc qlist_all {fd {count 1000}} {
    set out {}
    set after {}
    while 1 {
        set r [mc_exchange $fd "qlist count=$count$after\r\n"]
        if {![regexp {^((?:QUEUE [^\r]*\r\n)*)(?:MORE (\S+)\r\n)?END\r\n$} $r -> lines more]} {
            fail "qlist: '[visible $r]'"
        }
        foreach line [split [string trimright $lines \n] \n] {
            if {$line ne {}} { lappend out [string trimright $line \r] }
        }
        if {$more eq {}} { return $out }
        set after " after=$more"
    }
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qlist: no queue, END alone} {
        mc_exchange $fd "qlist\r\n"
    } "END\r\n"

    test {qlist: the queues in name order with ready, delayed, in flight, buried and waiters; other keys left out} {
        mc_exchange $fd "qcreate b\r\nlcreate alist\r\n"
        assert_equal [mc_set $fd astring v] STORED
        q_push $fd c one
        q_push $fd c two 0 100
        q_push $fd a x
        q_push $fd a y
        q_pop $fd a
        set w [mc_connect]
        mc_send $w "qpop b wait=60\r\n"
        q_wait_waiters $fd b 1
        set r [mc_exchange $fd "qlist\r\n"]
        mc_close $w
        wait_for {[q_stat $fd b waiters] == 0}
        set r
    } "QUEUE a 1 0 1 0 0\r\nQUEUE b 0 0 0 0 1\r\nQUEUE c 1 1 0 0 0\r\nEND\r\n"

    test {qlist: pages of count= queues, MORE <last> to pass as after=; after= need not exist} {
        mc_exchange $fd [string cat "qlist count=2\r\n" "qlist count=2 after=b\r\n" "qlist after=aa count=1\r\n" \
                             "qlist after=c\r\n" "qlist after=\xff\r\n"]
    } [string cat "QUEUE a 1 0 1 0 0\r\nQUEUE b 0 0 0 0 0\r\nMORE b\r\nEND\r\n" "QUEUE c 1 1 0 0 0\r\nEND\r\n" \
           "QUEUE b 0 0 0 0 0\r\nMORE b\r\nEND\r\n" "END\r\n" "END\r\n"]

    test {qlist: a deleted queue and one whose TTL ran out are left out} {
        mc_exchange $fd "qcreate d\r\nqcreate e\r\ntouch e 1\r\ndelete d\r\ndebugtime 2\r\n"
        mc_exchange $fd "qlist after=c\r\n"
    } "END\r\n" {debugtime}

    test {qlist: a deleted queue still held by an open read, and the queue made again under its name: listed once} {
        set k [mc_connect]
        q_push $fd f held
        assert_equal [mc_exchange $k "get f/open\r\n"] "VALUE f/open 0 4\r\nheld\r\nEND\r\n"
        mc_exchange $fd "delete f\r\nqcreate f\r\n"
        q_push $fd f new
        set r [mc_exchange $fd "qlist after=e\r\n"]
        mc_close $k
        set r
    } "QUEUE f 1 0 0 0 0\r\nEND\r\n"

    test {qlist: 1500 queues, each listed once in name order over pages of 100 and of 1000} {
        set cmds {}
        set names {}
        for {set i 0} {$i < 1500} {incr i} {
            set n [format "m%05d" [expr {($i * 7919) % 1500}]]
            append cmds "qcreate $n\r\n"
            lappend names $n
        }
        assert_equal [mc_exchange $fd $cmds] [string repeat "CREATED\r\n" 1500]
        # e's TTL ran out above: reading it reclaims it, so every page below is full.
        assert_equal [mc_exchange $fd "delete e\r\n"] "NOT_FOUND\r\n"
        set want [lsort [concat {a b c f} $names]]
        set by100 [lmap l [qlist_all $fd 100] { lindex $l 1 }]
        set by1000 [lmap l [qlist_all $fd 1000] { lindex $l 1 }]
        set first [mc_exchange $fd "qlist\r\n"]
        list [expr {$by100 eq $want}] [expr {$by1000 eq $want}] [regexp -all {QUEUE } $first] \
            [string match "*MORE m00095\r\nEND\r\n" $first]
    } {1 1 100 1}

    test {qlist: hostile lines} {
        mc_exchange $fd [string cat "qlist count=0\r\n" "qlist count=1001\r\n" "qlist count=x\r\n" "qlist count=-1\r\n" \
                             "qlist count=4294967297\r\n" "qlist after=\r\n" "qlist after=[string repeat a 251]\r\n" \
                             "qlist cursor=1\r\n" "qlist 5\r\n" "qlist noreply\r\n" "qlist count=1 after=a b\r\n"]
    } [string cat [string repeat "CLIENT_ERROR count must be 1..1000\r\n" 5] \
           [string repeat "CLIENT_ERROR bad value for after\r\n" 2] "CLIENT_ERROR unknown option cursor\r\n" \
           "CLIENT_ERROR unknown option 5\r\n" "CLIENT_ERROR unknown option noreply\r\n" "ERROR\r\n"]
}

# Delivery times and holders live in memory only: after a restart on the
# same --data-dir a leased message is still in flight, with its delivery
# count, but no time and no holder.
set qi_dir [tmpdir queue_info]
start_server [list tags {queue persist mcds-only} args [list --data-dir $qi_dir]] {
    set fd [mc_connect]
    set ::qi_id [q_push $fd p1 kept]
    mc_exchange $fd "qpop p1 lease=1000\r\n"
    assert_equal [dict get [qi_info $fd p1 $::qi_id] deliveries] 1
}
start_server [list tags {queue persist mcds-only} args [list --data-dir $qi_dir]] {
    set fd [mc_connect]
    test {qinfo after a restart: the lease and its delivery count kept, no delivery time, holder gone} {
        set d [qi_info $fd p1 $::qi_id]
        list [lrange [qi_fixed $d] 1 6] [dict get $d first_delivery_ms] [dict get $d last_delivery_ms] \
            [expr {[dict get $d lease_ms_left] > 0}]
    } {{in_flight 1024 0 4 1 gone} 0 0 1}
}
