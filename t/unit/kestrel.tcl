# Queues through classic commands, Kestrel's way (doc/protocol.md, "Queues
# through classic commands"): on a queue created with qcreate, set
# enqueues and get takes; get <q>/open, /close, /close/open, /abort, /peek
# and /t=<ms>; one open read per connection, given back when the connection
# drops; the errors that close the connection; other classic verbs on a
# queue key; keys with a slash that are not queues stay ordinary keys. Then
# pymemcache (t/clients/kestrel_pymemcache.py) does the same as a real
# client.

# k_counts fd queue -> {ready in_flight pushed acked}
proc k_counts {fd q} {
    lmap n {ready in_flight pushed acked} { q_stat $fd $q $n }
}

start_server {tags {queue kestrel mcds-only}} {
    set fd [mc_connect]

    test {set enqueues on a queue, get takes in order; the exptime is ignored} {
        assert_equal [mc_exchange $fd "qcreate k1\r\n"] "CREATED\r\n"
        assert_equal [mc_exchange $fd "set k1 5 0 3\r\nabc\r\nset k1 6 1 3\r\ndef\r\nset k1 7 100 0\r\n\r\n"] \
            "STORED\r\nSTORED\r\nSTORED\r\n"
        assert_equal [k_counts $fd k1] {3 0 3 0}
        mc_exchange $fd "debugtime 5\r\nget k1\r\nget k1\r\ngets k1\r\nget k1\r\n"
    } "OK\r\nVALUE k1 5 3\r\nabc\r\nEND\r\nVALUE k1 6 3\r\ndef\r\nEND\r\nVALUE k1 7 0 0\r\n\r\nEND\r\nEND\r\n" {debugtime}

    test {get takes for good: the queue counts them acked, nothing in flight} {
        k_counts $fd k1
    } {0 0 3 3}

    test {set on a queue follows priority order with qpush messages} {
        mc_exchange $fd "qcreate k2\r\nset k2 0 0 1\r\na\r\n"
        mc_exchange $fd "qpush k2 0 0 1 5\r\nb\r\nset k2 0 0 1\r\nc\r\n"
        mc_exchange $fd "get k2\r\nget k2\r\nget k2\r\n"
    } "VALUE k2 0 1\r\nb\r\nEND\r\nVALUE k2 0 1\r\na\r\nEND\r\nVALUE k2 0 1\r\nc\r\nEND\r\n"

    test {set on a full queue is NOT_STORED} {
        mc_exchange $fd "qcreate k3 maxlen=1\r\nset k3 0 0 1\r\na\r\nset k3 0 0 1\r\nb\r\nget k3\r\nget k3\r\n"
    } "CREATED\r\nSTORED\r\nNOT_STORED\r\nVALUE k3 0 1\r\na\r\nEND\r\nEND\r\n"

    test {/open leases the next message to the connection; /close acks it} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k4\r\nset k4 3 0 4\r\njob1\r\nset k4 0 0 4\r\njob2\r\n"
        assert_equal [mc_exchange $c "get k4/open\r\n"] "VALUE k4/open 3 4\r\njob1\r\nEND\r\n"
        # Held by the connection, with no lease time: -1 in qpending.
        assert_match "PENDING * 3 4 1 -1\r\nEND\r\n" [mc_exchange $fd "qpending k4\r\n"]
        # Not ackable by time: it stays in flight across any clock shift.
        assert_match "OK\r\nPENDING * 3 4 1 -1\r\nEND\r\n" [mc_exchange $fd "debugtime 100000\r\nqpending k4\r\n"]
        assert_equal [mc_exchange $c "get k4/close\r\n"] "END\r\n"
        assert_equal [mc_exchange $fd "qpending k4\r\n"] "END\r\n"
        assert_equal [k_counts $fd k4] {1 0 2 1}
        # A /close with nothing open just answers END.
        mc_exchange $c "get k4/close\r\nget k4/abort\r\n"
    } "END\r\nEND\r\n" {debugtime}

    test {/close/open acks the open message and opens the next; the loop ends with END} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k5\r\nset k5 0 0 1\r\na\r\nset k5 0 0 1\r\nb\r\nset k5 0 0 1\r\nc\r\n"
        set r [mc_exchange $c "get k5/open\r\nget k5/close/open\r\nget k5/close/open\r\nget k5/close/open\r\n"]
        assert_equal $r [string cat "VALUE k5/open 0 1\r\na\r\nEND\r\nVALUE k5/close/open 0 1\r\nb\r\nEND\r\n" \
                             "VALUE k5/close/open 0 1\r\nc\r\nEND\r\nEND\r\n"]
        k_counts $fd k5
    } {0 0 3 3}

    test {/close/open on an empty queue with nothing open is END} {
        set c [mc_connect]
        mc_exchange $c "qcreate k5b\r\nget k5b/close/open\r\nget k5b/open\r\n"
    } "CREATED\r\nEND\r\nEND\r\n"

    test {/abort gives the open message back to the front of the queue} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k6\r\nset k6 0 0 1\r\na\r\nset k6 0 0 1\r\nb\r\n"
        assert_equal [mc_exchange $c "get k6/open\r\nget k6/abort\r\n"] "VALUE k6/open 0 1\r\na\r\nEND\r\nEND\r\n"
        assert_equal [k_counts $fd k6] {2 0 2 0}
        assert_match "ITEM * 0 1 1\r\na\r\nITEM * 0 1 0\r\nb\r\nEND\r\n" [mc_exchange $fd "qpeek k6 5\r\n"]
        # Another connection can now take it; this one may open again.
        assert_equal [mc_exchange $fd "get k6\r\n"] "VALUE k6 0 1\r\na\r\nEND\r\n"
        mc_exchange $c "get k6/open\r\nget k6/close\r\n"
    } "VALUE k6/open 0 1\r\nb\r\nEND\r\nEND\r\n"

    test {/peek shows the next message without taking it} {
        mc_exchange $fd "qcreate k7\r\nset k7 9 0 1\r\na\r\nset k7 0 0 1\r\nb\r\n"
        mc_exchange $fd "get k7/peek\r\nget k7/peek\r\nget k7\r\nget k7/peek\r\nget k7\r\nget k7/peek\r\n"
    } "VALUE k7/peek 9 1\r\na\r\nEND\r\nVALUE k7/peek 9 1\r\na\r\nEND\r\nVALUE k7 9 1\r\na\r\nEND\r\nVALUE k7/peek 0 1\r\nb\r\nEND\r\nVALUE k7 0 1\r\nb\r\nEND\r\nEND\r\n"

    test {/peek does not see a message open on another connection} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k8\r\nset k8 0 0 1\r\na\r\n"
        mc_exchange $c "get k8/open\r\n"
        mc_exchange $fd "get k8/peek\r\nget k8\r\n"
    } "END\r\nEND\r\n"

    test {/t=<ms> on an empty queue answers END when the wait ends} {
        mc_exchange $fd "qcreate k9\r\nget k9/t=200\r\nget k9/open/t=100\r\n"
    } "CREATED\r\nEND\r\nEND\r\n"

    test {/t=<ms> is woken by a set on another connection} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k10\r\n"
        mc_send $c "get k10/t=100000\r\n"
        q_wait_waiters $fd k10 1
        assert_equal [mc_exchange $fd "set k10 4 0 5\r\nhello\r\n"] "STORED\r\n"
        assert_equal [mc_exchange $c ""] "VALUE k10/t=100000 4 5\r\nhello\r\nEND\r\n"
        k_counts $fd k10
    } {0 0 1 1}

    test {/open/t=<ms> is woken by a set, and the message is then open} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k11\r\n"
        mc_send $c "get k11/open/t=100000\r\n"
        q_wait_waiters $fd k11 1
        assert_equal [mc_exchange $fd "set k11 0 0 3\r\njob\r\n"] "STORED\r\n"
        assert_equal [mc_exchange $c ""] "VALUE k11/open/t=100000 0 3\r\njob\r\nEND\r\n"
        assert_match "PENDING * 0 3 1 -1\r\nEND\r\n" [mc_exchange $fd "qpending k11\r\n"]
        assert_equal [mc_exchange $c "get k11/close\r\n"] "END\r\n"
        k_counts $fd k11
    } {0 0 1 1}

    test {a /t= waiter that disconnects is forgotten: the next set stays ready} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k11b\r\n"
        mc_send $c "get k11b/open/t=100000\r\n"
        q_wait_waiters $fd k11b 1
        mc_close $c
        q_wait_waiters $fd k11b 0
        assert_equal [mc_exchange $fd "set k11b 0 0 4\r\nkept\r\n"] "STORED\r\n"
        k_counts $fd k11b
    } {1 0 1 0}

    test {/t=<ms> with other keys in the same get does not wait} {
        mc_exchange $fd "qcreate k12\r\nset plain12 0 0 1\r\nx\r\nget k12/t=100000 plain12\r\n"
    } "CREATED\r\nSTORED\r\nVALUE plain12 0 1\r\nx\r\nEND\r\n"

    test {an open message goes back to the queue when its connection drops} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k13\r\nset k13 2 0 4\r\nkept\r\n"
        assert_equal [mc_exchange $c "get k13/open\r\n"] "VALUE k13/open 2 4\r\nkept\r\nEND\r\n"
        assert_equal [k_counts $fd k13] {0 1 1 0}
        mc_close $c
        wait_for {[q_stat $fd k13 in_flight] == 0} 100 50
        mc_exchange $fd "get k13\r\n"
    } "VALUE k13 2 4\r\nkept\r\nEND\r\n"

    test {a second /open on the same connection: CLIENT_ERROR, nothing taken, the read stays open} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k14\r\nset k14 0 0 1\r\na\r\nset k14 0 0 1\r\nb\r\n"
        assert_equal [mc_exchange $c "get k14/open\r\nget k14/open\r\n"] \
            "VALUE k14/open 0 1\r\na\r\nEND\r\nCLIENT_ERROR a read is already open on this connection\r\n"
        assert_equal [k_counts $fd k14] {1 1 2 0}
        mc_exchange $c "get k14/close/open\r\nget k14/close\r\n"
    } "VALUE k14/close/open 0 1\r\nb\r\nEND\r\nEND\r\n"

    test {/open on another queue while one is open: CLIENT_ERROR, nothing taken} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k15\r\nqcreate k15b\r\nset k15 0 0 1\r\na\r\nset k15b 0 0 1\r\nb\r\n"
        assert_equal [mc_exchange $c "get k15/open\r\nget k15b/open\r\n"] \
            "VALUE k15/open 0 1\r\na\r\nEND\r\nCLIENT_ERROR a read is already open on this connection\r\n"
        mc_close $c
        wait_for {[q_stat $fd k15 in_flight] == 0} 100 50
        list [k_counts $fd k15] [k_counts $fd k15b]
    } {{1 0 1 0} {1 0 1 0}}

    test {a plain get of the queue while a read is open on it: CLIENT_ERROR, nothing taken} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k16\r\nset k16 0 0 1\r\na\r\nset k16 0 0 1\r\nb\r\n"
        assert_equal [mc_exchange $c "get k16/open\r\nget k16\r\n"] \
            "VALUE k16/open 0 1\r\na\r\nEND\r\nCLIENT_ERROR this connection has a read open on that queue\r\n"
        mc_close $c
        wait_for {[q_stat $fd k16 in_flight] == 0} 100 50
        k_counts $fd k16
    } {2 0 2 0}

    test {a plain get of another queue while a read is open is allowed} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k17\r\nqcreate k17b\r\nset k17 0 0 1\r\na\r\nset k17b 0 0 1\r\nb\r\n"
        mc_exchange $c "get k17/open\r\nget k17b\r\nget k17/close\r\n"
    } "VALUE k17/open 0 1\r\na\r\nEND\r\nVALUE k17b 0 1\r\nb\r\nEND\r\nEND\r\n"

    test {/close after the queue was deleted ends the open read: a new /open works} {
        # The open message went with the deleted queue; the client's /close
        # answers END, and the connection has no open read any more.
        set c [mc_connect]
        mc_exchange $fd "qcreate k17c\r\nset k17c 0 0 1\r\nx\r\n"
        assert_equal [mc_exchange $c "get k17c/open\r\n"] "VALUE k17c/open 0 1\r\nx\r\nEND\r\n"
        assert_equal [mc_exchange $fd "delete k17c\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $c "get k17c/close\r\n"] "END\r\n"
        mc_exchange $fd "qcreate k17c\r\nset k17c 0 0 1\r\ny\r\n"
        mc_send $c "get k17c/open\r\nget k17c/close\r\n"
        set r [mc_read_bytes $c [string length "VALUE k17c/open 0 1\r\ny\r\nEND\r\nEND\r\n"]]
    } "VALUE k17c/open 0 1\r\ny\r\nEND\r\nEND\r\n"

    test {/abort after flush_all removed the queue ends the open read: /open on another queue works} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k17d\r\nset k17d 0 0 1\r\nx\r\n"
        assert_equal [mc_exchange $c "get k17d/open\r\n"] "VALUE k17d/open 0 1\r\nx\r\nEND\r\n"
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        assert_equal [mc_exchange $c "get k17d/abort\r\n"] "END\r\n"
        mc_exchange $fd "qcreate k17e\r\nset k17e 0 0 1\r\ne\r\n"
        mc_send $c "get k17e/open\r\nget k17e/close\r\n"
        set r [mc_read_bytes $c [string length "VALUE k17e/open 0 1\r\ne\r\nEND\r\nEND\r\n"]]
    } "VALUE k17e/open 0 1\r\ne\r\nEND\r\nEND\r\n"

    test {/peek combined with /open, /close or /abort: CLIENT_ERROR, nothing taken} {
        mc_exchange $fd "qcreate k18\r\nset k18 0 0 1\r\na\r\n"
        set r {}
        foreach opts {peek/open open/peek close/peek peek/abort} {
            append r [mc_exchange $fd "get k18/$opts\r\n"]
        }
        list $r [k_counts $fd k18]
    } [list [string repeat "CLIENT_ERROR /peek cannot be combined with /open, /close or /abort\r\n" 4] {1 0 1 0}]

    test {keys with a slash that are not queues keep their memcached meaning} {
        mc_exchange $fd [string cat "get user/42\r\nset user/42 3 0 2\r\nhi\r\nget user/42\r\n" \
                             "get user/42/open\r\nget nosuchq/open\r\nget nosuchq/t=100000\r\n" \
                             "set user 0 0 1\r\nu\r\nget user/open\r\nget user/peek\r\ndelete user/42\r\nget user/42\r\n"]
    } [string cat "END\r\nSTORED\r\nVALUE user/42 3 2\r\nhi\r\nEND\r\n" \
           "END\r\nEND\r\nEND\r\n" \
           "STORED\r\nEND\r\nEND\r\nDELETED\r\nEND\r\n"]

    test {set on a key that is not a queue stores a cache value, as always} {
        mc_exchange $fd "set notq 0 0 1\r\na\r\nset notq 0 0 1\r\nb\r\nget notq\r\nget notq\r\nqstats notq\r\n"
    } "STORED\r\nSTORED\r\nVALUE notq 0 1\r\nb\r\nEND\r\nVALUE notq 0 1\r\nb\r\nEND\r\nCLIENT_ERROR key holds another type of value\r\n"

    test {unknown /options are an ordinary miss} {
        mc_exchange $fd "qcreate k19\r\nset k19 0 0 1\r\na\r\nget k19/foo\r\nget k19/t=abc\r\nget k19/OPEN\r\nget k19\r\n"
    } "CREATED\r\nSTORED\r\nEND\r\nEND\r\nEND\r\nVALUE k19 0 1\r\na\r\nEND\r\n"

    test {a multi-key get takes from a queue and reads cache keys} {
        mc_exchange $fd "qcreate k20\r\nset k20 0 0 1\r\na\r\nset c20 0 0 1\r\nc\r\nget c20 k20 k20 c20\r\n"
    } "CREATED\r\nSTORED\r\nSTORED\r\nVALUE c20 0 1\r\nc\r\nVALUE k20 0 1\r\na\r\nVALUE c20 0 1\r\nc\r\nEND\r\n"

    test {other classic verbs on a queue key} {
        mc_exchange $fd "qcreate k21\r\nset k21 0 0 1\r\na\r\n"
        mc_exchange $fd [string cat "add k21 0 0 1\r\nx\r\nreplace k21 0 0 1\r\nx\r\nappend k21 0 0 1\r\nx\r\n" \
                             "prepend k21 0 0 1\r\nx\r\ncas k21 0 0 1 1\r\nx\r\nincr k21 1\r\ndecr k21 1\r\n" \
                             "gat 0 k21\r\ngats 0 k21\r\nmg k21 v\r\nqpeek k21 5\r\n"]
    } [string cat "NOT_STORED\r\n" [string repeat "CLIENT_ERROR key holds another type of value\r\n" 4] \
           [string repeat "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n" 2] \
           "END\r\nEND\r\nEN\r\nITEM * 0 1 0\r\na\r\nEND\r\n"]

    test {ms enqueues on a queue; md and delete remove it} {
        mc_exchange $fd "qcreate k22\r\nms k22 2\r\nhi\r\nget k22\r\nmd k22\r\nqstats k22\r\nqcreate k22\r\ndelete k22\r\nqstats k22\r\n"
    } "CREATED\r\nHD\r\nVALUE k22 0 2\r\nhi\r\nEND\r\nHD\r\nNOT_FOUND\r\nCREATED\r\nDELETED\r\nNOT_FOUND\r\n"

    test {delete of a queue wakes a /t= wait with END} {
        set c [mc_connect]
        mc_exchange $fd "qcreate k23\r\n"
        mc_send $c "get k23/t=100000\r\n"
        q_wait_waiters $fd k23 1
        assert_equal [mc_exchange $fd "delete k23\r\n"] "DELETED\r\n"
        mc_exchange $c ""
    } "END\r\n"

    test {pymemcache: set/get, /peek, /open, /close, /close/open, /abort and /t= on a queue} {
        set py [pymemcache_python]
        assert_equal [mc_exchange $fd "qcreate pyq\r\n"] "CREATED\r\n"
        set script [file join [srcdir] t clients kestrel_pymemcache.py]
        lassign [run_cmd 60 $py $script 127.0.0.1 [srv port] pyq [expr {5 * [time_factor]}]] status out
        if {$status ne "0" || ![string match "*all checks passed*" $out]} {
            fail "kestrel_pymemcache.py exited $status:\n$out"
        }
        verbose $out
        assert_equal [regexp -all -line {^ok - } $out] 8
        # What the client did, seen from the queue.
        lmap n {ready delayed in_flight waiters pushed popped acked released} { q_stat $fd pyq $n }
    } {0 0 0 0 12 13 12 1}
}
