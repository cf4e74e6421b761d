# Blocking list pops (doc/protocol.md, "5. Lists", lpop/rpop wait=): a
# waiting pop is woken by a push from another connection, waiters are
# served first come first served, a wait ends with END when its time is up
# or its list is deleted or flushed, and a client that hangs up while
# waiting loses nothing. Nothing here measures time: tests wait for the
# server to report its waiters (stats list_waiters) before pushing.

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {a waiting lpop is woken by an rpush from another connection} {
        set w [mc_connect]
        mc_send $w "lpop b1 wait=100\r\n"
        l_waiters $fd 1
        mc_no_reply $w 100
        assert_equal [mc_exchange $fd "rpush b1 5\r\nhello\r\n"] "1\r\n"
        assert_equal [mc_exchange $w ""] [l_vals b1 hello]
        assert_equal [mc_stat $fd list_waiters] 0
        mc_close $w
        mc_exchange $fd "llen b1\r\n"
    } "0\r\n"

    test {a waiting rpop for 3 gets what one push brings, from its end} {
        set w [mc_connect]
        mc_send $w "rpop b2 3 wait=100\r\n"
        l_waiters $fd 1
        assert_equal [mc_exchange $fd "rpush b2 1 1 1 1\r\na\r\nb\r\nc\r\nd\r\n"] "4\r\n"
        assert_equal [mc_exchange $w ""] [l_vals b2 {d c b}]
        mc_close $w
        mc_exchange $fd "lrange b2 0 10\r\n"
    } [l_vals b2 a]

    test {waiters are served in arrival order, each with its own count} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lpop b3 2 wait=100\r\n"
        l_waiters $fd 1
        mc_send $w2 "lpop b3 wait=100\r\n"
        l_waiters $fd 2
        assert_equal [mc_exchange $fd "rpush b3 1 1 1 1\r\n1\r\n2\r\n3\r\n4\r\n"] "4\r\n"
        assert_equal [mc_exchange $w1 ""] [l_vals b3 {1 2}]
        assert_equal [mc_exchange $w2 ""] [l_vals b3 {3}]
        mc_close $w1
        mc_close $w2
        mc_exchange $fd "lrange b3 0 10\r\n"
    } [l_vals b3 4]

    test {a wait that runs out answers END; commands behind it are answered after it} {
        set w [mc_connect]
        mc_send $w "lpop b4 wait=0.2\r\nllen b4\r\n"
        assert_equal [mc_readline $w] "END"
        assert_equal [mc_readline $w] "0"
        mc_close $w
        mc_stat $fd list_waiters
    } 0

    test {a pop on a list with elements does not wait} {
        mc_exchange $fd "rpush b5 1\r\nx\r\nlpop b5 5 wait=100\r\n"
    } "1\r\n[l_vals b5 x]"

    test {delete and flush_all end a wait with END} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lpop b6 wait=100\r\n"
        l_waiters $fd 1
        assert_equal [mc_exchange $fd "delete b6\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $w1 ""] "END\r\n"
        mc_send $w2 "rpop b7 wait=100\r\n"
        l_waiters $fd 1
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        assert_equal [mc_exchange $w2 ""] "END\r\n"
        mc_close $w1
        mc_close $w2
        mc_stat $fd list_waiters
    } 0

    test {a client that hangs up while waiting loses nothing: the next push stays in the list} {
        set w [mc_connect]
        mc_send $w "lpop b8 wait=100\r\n"
        l_waiters $fd 1
        mc_close $w
        l_waiters $fd 0
        mc_exchange $fd "rpush b8 1 1\r\na\r\nb\r\nlrange b8 0 5\r\n"
    } "2\r\n[l_vals b8 {a b}]"

    test {waiters that hung up unseen when pushes come: every element is popped once or kept} {
        set ws {}
        for {set i 0} {$i < 20} {incr i} {
            set w [mc_connect]
            mc_send $w "lpop b9 wait=100\r\n"
            lappend ws $w
        }
        l_waiters $fd 20
        # Every other waiter hangs up, and the pushes come before the server
        # has read the hang-ups.
        foreach {gone stay} $ws { mc_close $gone }
        set push {}
        set all {}
        for {set i 0} {$i < 20} {incr i} {
            append push "rpush b9 3\r\n[format %03d $i]\r\n"
            lappend all [format %03d $i]
        }
        mc_send $fd $push
        for {set i 0} {$i < 20} {incr i} { assert_match {[0-9]*} [mc_readline $fd] "push $i" }
        set got {}
        foreach {gone stay} $ws {
            assert_equal [mc_readline $stay] "VALUE b9 0 3"
            lappend got [mc_readline $stay]
            assert_equal [mc_readline $stay] "END"
            mc_close $stay
        }
        l_waiters $fd 0
        l_wait_len $fd b9 10
        set r [mc_exchange $fd "lrange b9 0 100\r\n"]
        set rest [regexp -all -inline {\d{3}} $r]
        assert_equal [llength $rest] 10
        lsort [concat $got $rest]
    } [lsort [lmap i [lrange {0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19} 0 end] {format %03d $i}]]

    test {a waiter for 3 that hung up: the 3 elements it was handed go back in order} {
        set long [string repeat z 200]
        set w [mc_connect]
        mc_send $w "lpop g3 3 wait=100\r\n"
        l_waiters $fd 1
        mc_close $w
        assert_equal [mc_exchange $fd "rpush g3 1 4 200\r\na\r\nbbbb\r\n$long\r\n"] "3\r\n"
        l_waiters $fd 0
        l_wait_len $fd g3 3
        mc_exchange $fd "lrange g3 0 10\r\n"
    } "VALUE g3 0 1\r\na\r\nVALUE g3 0 4\r\nbbbb\r\nVALUE g3 0 200\r\n[string repeat z 200]\r\nEND\r\n"
}

# A waiting pop's reply is bounded as a plain pop's: it takes what fits in
# --conn-output-max (at least one element); the rest stays in the list.
start_server {tags {list mcds-only} args {-I 1m --conn-output-max 256k}} {
    set fd [mc_connect]
    test {a waiting pop for 8 elements of 100 KB takes what fits in --conn-output-max} {
        set w [mc_connect]
        mc_send $w "lpop wb 8 wait=100\r\n"
        l_waiters $fd 1
        set v [string repeat y 100000]
        set push "rpush wb[string repeat { 100000} 8]\r\n"
        for {set i 0} {$i < 8} {incr i} { append push "$v\r\n" }
        assert_equal [mc_exchange $fd $push] "8\r\n"
        set got 0
        while {[set line [mc_readline $w]] ne "END"} {
            assert_equal $line "VALUE wb 0 100000"
            mc_read_bytes $w 100002
            incr got
        }
        list $got [lindex [mc_exchange $fd "llen wb\r\n"] 0]
    } {2 6}
}

# A list whose TTL runs out, or that a delayed flush_all covers, answers
# its waiting pop once the tick reclaims it (within a second or so), not
# when a client next uses its key, and leaves the totals then.
start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    foreach {how cmd} {TTL {touch lt 1} {delayed flush} {flush_all 2}} {
        test "a waiting pop on a list whose $how ran out is answered END by the tick" {
            mc_exchange $fd "flush_all\r\n"
            assert_equal [mc_exchange $fd "rpush lf 1\r\nx\r\n"] "1\r\n"
            set w [mc_connect]
            mc_send $w "lpop lt wait=30\r\n"
            l_waiters $fd 1
            assert_equal [mc_exchange $fd "$cmd\r\n"] [expr {$how eq "TTL" ? "TOUCHED\r\n" : "OK\r\n"}]
            wait_for {[mc_stat $fd list_waiters] == 0} 100 50
            set lists [expr {$how eq "TTL" ? 1 : 0}]
            wait_for {[mc_stat $fd lists] == $lists} 100 50
            list [mc_readline $w] [mc_stat $fd lists] [mc_stat $fd list_elements]
        } [list END [expr {$how eq "TTL" ? 1 : 0}] [expr {$how eq "TTL" ? 1 : 0}]]
    }
}
