# Pausing a queue (doc/protocol.md, "3. Queues", qpause; beanstalkd's
# pause-tube): for the time given every pop of the queue answers nothing
# (qpop, qpopany, Kestrel's reads), a blocking pop waits until the pause
# ends or its own wait does, pushes go on, leases already given run on;
# the end of the pause (or qpause 0) serves the waiters. Time moves with
# debugtime, but for the tests of real waits. Restarts are in
# t/integration/persist_queue_pause.tcl. Helpers are in t/support/queue.tcl.

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {qpause: pops answer nothing, pushes go on, qpeek and qstats show it} {
        set a [q_push $fd p1 one]
        assert_equal [mc_exchange $fd "qpause p1 10\r\n"] "PAUSED\r\n"
        set b [q_push $fd p1 two]
        list [mc_exchange $fd "qpop p1\r\nqpop p1 5\r\nget p1\r\nget p1/open\r\n"] \
            [expr {[mc_exchange $fd "qpeek p1 5\r\n"] eq "[q_item $a 0 one 0][q_item $b 0 two 0]END\r\n"}] \
            [expr {[q_stat $fd p1 paused_ms_left] > 9000 && [q_stat $fd p1 paused_ms_left] <= 10000}] \
            [q_counts $fd p1] [q_stat $fd p1 popped]
    } [list "END\r\nEND\r\nEND\r\nEND\r\n" 1 1 {2 0 0} 0] {debugtime}

    test {qpause: the pause ends on time and the messages are delivered in order} {
        assert_equal [mc_exchange $fd "debugtime 9\r\nqpop p1\r\n"] "OK\r\nEND\r\n"
        assert_range [q_stat $fd p1 paused_ms_left] 1 1000
        assert_equal [mc_exchange $fd "debugtime 1\r\n"] "OK\r\n"
        list [lmap m [q_pop $fd p1 5] { lindex $m 2 }] [q_stat $fd p1 paused_ms_left]
    } {{one two} 0} {debugtime}

    test {qpause 0 resumes at once; a later qpause replaces the earlier one} {
        set a [q_push $fd p2 x]
        assert_equal [mc_exchange $fd "qpause p2 100\r\nqpause p2 5\r\n"] "PAUSED\r\nPAUSED\r\n"
        assert_range [q_stat $fd p2 paused_ms_left] 4000 5000
        assert_equal [mc_exchange $fd "qpause p2 0\r\n"] "PAUSED\r\n"
        list [q_stat $fd p2 paused_ms_left] [expr {[lmap m [q_pop $fd p2] { lindex $m 0 }] eq $a}]
    } {0 1}

    test {leases given before the pause run on: ack, release, touch; a lease that runs out waits} {
        foreach d {a b c} { q_push $fd p3 $d }
        set got [q_pop $fd p3 3 lease=5]
        lassign [lmap m $got { lindex $m 0 }] a b c
        assert_equal [mc_exchange $fd "qpause p3 100\r\n"] "PAUSED\r\n"
        assert_equal [mc_exchange $fd "qack p3 $a:1\r\nqtouch p3 $b:1 50\r\nqrelease p3 $c:1\r\n"] \
            "ACKED\r\nTOUCHED\r\nRELEASED\r\n"
        assert_equal [mc_exchange $fd "qpop p3\r\ndebugtime 60\r\nqpop p3\r\n"] "END\r\nOK\r\nEND\r\n"
        set counts [q_counts $fd p3]
        assert_equal [mc_exchange $fd "debugtime 40\r\n"] "OK\r\n"
        list $counts [lmap m [q_pop $fd p3 5] { list [lindex $m 2] [lindex $m 3] }] [q_stat $fd p3 acked]
    } {{2 0 0} {{b 2} {c 2}} 1} {debugtime}

    test {a blocking qpop waits through the pause and is served when it ends} {
        set w [mc_connect]
        q_push $fd p4 waited
        assert_equal [mc_exchange $fd "qpause p4 0.5\r\n"] "PAUSED\r\n"
        set t0 [clock milliseconds]
        mc_send $w "qpop p4 wait=30\r\n"
        q_wait_waiters $fd p4 1
        set r [mc_exchange $w ""]
        list [expr {[clock milliseconds] - $t0 >= 400}] [lindex [lindex [q_parse $r] 0] 2] [q_stat $fd p4 waiters]
    } {1 waited 0}

    test {a blocking qpop whose wait ends before the pause does answers END} {
        set w [mc_connect]
        q_push $fd p5 x
        assert_equal [mc_exchange $fd "qpause p5 30\r\n"] "PAUSED\r\n"
        mc_send $w "qpop p5 wait=0.3\r\n"
        list [mc_readline $w] [q_stat $fd p5 waiters] [q_counts $fd p5]
    } {END 0 {1 0 0}}

    test {qpause 0 wakes the waiters at once; a push during the pause waits for it} {
        set w [mc_connect]
        assert_equal [mc_exchange $fd "qpause p6 100\r\n"] "NOT_FOUND\r\n"
        assert_equal [mc_exchange $fd "qcreate p6\r\nqpause p6 100\r\n"] "CREATED\r\nPAUSED\r\n"
        mc_send $w "qpop p6 wait=100\r\n"
        q_wait_waiters $fd p6 1
        set a [q_push $fd p6 during]
        mc_no_reply $w 100
        assert_equal [q_stat $fd p6 waiters] 1
        assert_equal [mc_exchange $fd "qpause p6 0\r\n"] "PAUSED\r\n"
        expr {[mc_exchange $w ""] eq "[q_item $a 0 during 1]END\r\n"}
    } 1

    test {the end of a pause wakes the waiters by itself (the queue's timer)} {
        set w [mc_connect]
        assert_equal [mc_exchange $fd "qcreate p7\r\nqpause p7 1000\r\n"] "CREATED\r\nPAUSED\r\n"
        mc_send $w "qpop p7 wait=100\r\n"
        q_wait_waiters $fd p7 1
        set a [q_push $fd p7 later]
        mc_no_reply $w 100
        assert_equal [mc_exchange $fd "debugtime 1001\r\n"] "OK\r\n"
        expr {[mc_exchange $w ""] eq "[q_item $a 0 later 1]END\r\n"}
    } 1 {debugtime}

    test {qpopany passes over a paused queue; a wait on both is served by the other} {
        assert_equal [mc_exchange $fd "qcreate pa\r\nqcreate pb\r\nqpause pa 100\r\n"] "CREATED\r\nCREATED\r\nPAUSED\r\n"
        set a [q_push $fd pa first]
        set b [q_push $fd pb second]
        set r1 [mc_exchange $fd "qpopany pa pb\r\n"]
        set w [mc_connect]
        mc_send $w "qpopany pa pb wait=100\r\n"
        q_wait_waiters $fd pb 1
        set a2 [q_push $fd pa paused]
        mc_no_reply $w 100
        set c [q_push $fd pb open]
        list [expr {$r1 eq "ITEM $b 0 6 1 pb\r\nsecond\r\nEND\r\n"}] \
            [expr {[mc_exchange $w ""] eq "ITEM $c 0 4 1 pb\r\nopen\r\nEND\r\n"}] [q_counts $fd pa]
    } {1 1 {2 0 0}}

    test {Kestrel's reads: get, /open and /t= answer nothing while paused} {
        assert_equal [mc_exchange $fd "qcreate pk\r\nqpause pk 0.4\r\n"] "CREATED\r\nPAUSED\r\n"
        set a [q_push $fd pk kv]
        set t0 [clock milliseconds]
        list [mc_exchange $fd "get pk\r\nget pk/open\r\nget pk/peek\r\n"] \
            [mc_exchange $fd "get pk/t=5000\r\n"] [expr {[clock milliseconds] - $t0 >= 300}]
    } [list "END\r\nEND\r\nVALUE pk/peek 0 2\r\nkv\r\nEND\r\n" "VALUE pk/t=5000 0 2\r\nkv\r\nEND\r\n" 1]

    test {delayed messages come due, and maxage still dead-letters, during a pause} {
        assert_equal [mc_exchange $fd "qcreate pd maxage=50\r\nqpause pd 100\r\n"] "CREATED\r\nPAUSED\r\n"
        q_push $fd pd soon 0 10
        assert_equal [mc_exchange $fd "debugtime 20\r\n"] "OK\r\n"
        set counts [q_counts $fd pd]
        assert_equal [mc_exchange $fd "debugtime 50\r\n"] "OK\r\n"
        list $counts [q_counts $fd pd] [q_stat $fd pd:dead ready] [mc_exchange $fd "qpop pd\r\n"]
    } [list {1 0 0} {0 0 0} 1 "END\r\n"] {debugtime}

    test {qpause errors: bad seconds, token counts, wrong type, key too long, noreply} {
        assert_equal [mc_set $fd pw plain] STORED
        set r {}
        foreach l [list "qpause p8 -1" "qpause p8 abc" "qpause p8 1x" "qpause p8 100000001" \
                       "qpause p8 0.0001x" "qpause p8 5 extra" "qpause p8 noreply" "qpause p8" \
                       "qpause" "qpause p8 1 noreply x" "qpause pw 5" "qpause [string repeat k 251] 5" \
                       "qpause p8 5 noreply" "qpause p8 x noreply"] {
            append r [mc_exchange $fd "$l\r\n"]
        }
        set r
    } [string cat [string repeat "CLIENT_ERROR bad pause\r\n" 5] "CLIENT_ERROR too many tokens\r\n" \
           "CLIENT_ERROR bad pause\r\n" "ERROR\r\nERROR\r\nERROR\r\n" \
           "CLIENT_ERROR key holds another type of value\r\n" "CLIENT_ERROR key too long\r\n"]

    test {a deleted queue's pause goes with it; a new queue under the name is not paused} {
        assert_equal [mc_exchange $fd "qcreate p9\r\nqpause p9 100\r\ndelete p9\r\nqcreate p9\r\n"] \
            "CREATED\r\nPAUSED\r\nDELETED\r\nCREATED\r\n"
        set a [q_push $fd p9 x]
        list [q_stat $fd p9 paused_ms_left] [llength [q_pop $fd p9]]
    } {0 1}

    test {counts across a pause: what goes in comes out once} {
        assert_equal [mc_exchange $fd "qcreate pc\r\nqpause pc 100\r\n"] "CREATED\r\nPAUSED\r\n"
        for {set i 0} {$i < 50} {incr i} { q_push $fd pc m$i }
        assert_equal [mc_exchange $fd "qpop pc 10\r\n"] "END\r\n"
        assert_equal [mc_exchange $fd "debugtime 101\r\n"] "OK\r\n"
        set got {}
        while {[llength [set ms [q_pop $fd pc 20]]]} {
            foreach m $ms { lappend got [lindex $m 2]; mc_exchange $fd "qack pc [lindex $m 0]\r\n" }
        }
        list [llength [lsort -unique $got]] [q_stat $fd pc pushed] [q_stat $fd pc popped] [q_stat $fd pc acked] \
            [q_counts $fd pc]
    } {50 50 50 50 {0 0 0}} {debugtime}

    test {help names qpause} {
        string match "*qpause*" [mc_exchange $fd "help qpause\r\n"]
    } 1
}
