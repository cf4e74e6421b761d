# --receipts-only (doc/protocol.md, "3. Queues", receipts): qack,
# qrelease, qtouch (single and batch forms) and qpop ack= act only
# through a receipt <id>:<deliveries>; a bare id answers CLIENT_ERROR
# receipt required and changes nothing, so a slow consumer whose lease ran
# out can never ack another consumer's delivery. Kestrel's reads, which
# name no message, work as always. Helpers are in t/support/queue.tcl.

start_server {tags {queue mcds-only} args {--receipts-only}} {
    set fd [mc_connect]

    test {--receipts-only: stats settings says so} {
        dict get [mc_stats $fd settings] receipts_only
    } yes

    test {a bare id is refused by every verb and changes nothing; noreply silences it} {
        set a [q_push $fd r1 x]
        assert_equal [llength [q_pop $fd r1]] 1
        set r [mc_exchange $fd [string cat "qack r1 $a\r\nqrelease r1 $a\r\nqrelease r1 $a 5\r\n" \
                                    "qtouch r1 $a\r\nqtouch r1 $a 10\r\nqack r1 $a:1 $a\r\n" \
                                    "qrelease r1 $a $a:1 delay=0\r\nqtouch r1 $a:1 $a lease=5\r\n" \
                                    "qpop r1 ack=$a\r\nqack r1 $a noreply\r\nqack r1 $a:1 $a noreply\r\n"]]
        list $r [q_counts $fd r1] [q_stat $fd r1 acked] [q_stat $fd r1 released]
    } [list [string repeat "CLIENT_ERROR receipt required\r\n" 9] {0 0 1} 0 0]

    test {receipts act as always: ack, release, touch, batches, qpop ack=} {
        foreach d {a b c d} { q_push $fd r2 $d }
        set got [q_pop $fd r2 4]
        set rs [lmap m $got { string cat [lindex $m 0] : [lindex $m 3] }]
        lassign $rs ra rb rc rd
        assert_equal [mc_exchange $fd "qack r2 $ra\r\nqtouch r2 $rb 50\r\nqrelease r2 $rc\r\nqack r2 $rd $rb\r\n"] \
            "ACKED\r\nTOUCHED\r\nRELEASED\r\nACKED\r\nACKED\r\n"
        set m [lindex [q_pop $fd r2] 0]
        set r [mc_exchange $fd "qpop r2 ack=[lindex $m 0]:[lindex $m 3]\r\n"]
        list $r [q_counts $fd r2] [q_stat $fd r2 acked] [q_stat $fd r2 released]
    } [list "ACKED\r\nEND\r\n" {0 0 0} 4 1]

    test {a slow consumer cannot ack the delivery another consumer holds now} {
        set a [q_push $fd r3 job]
        set slow [q_pop $fd r3 lease=1]
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set fast [q_pop $fd r3]
        assert_equal [lindex $fast 0 3] 2
        assert_equal [mc_exchange $fd "qack r3 $a\r\nqack r3 $a:1\r\n"] \
            "CLIENT_ERROR receipt required\r\nNOT_FOUND\r\n"
        list [q_counts $fd r3] [mc_exchange $fd "qack r3 $a:2\r\n"] [q_counts $fd r3]
    } [list {0 0 1} "ACKED\r\n" {0 0 0}] {debugtime}

    test {malformed ids are still bad ids; the first wrong token is named} {
        mc_exchange $fd "qack r4 abc\r\nqack r4 1:0\r\nqack r4 1:x\r\nqrelease r4 7 x\r\nqtouch r4 7:1 0\r\nqpop r4 ack=x\r\n"
    } [string cat "CLIENT_ERROR bad id\r\n" "CLIENT_ERROR bad id\r\n" "CLIENT_ERROR bad id\r\n" \
           "CLIENT_ERROR receipt required\r\n" "CLIENT_ERROR bad lease\r\n" "CLIENT_ERROR bad value for ack\r\n"]

    test {on a missing queue a bare id is refused too, a receipt is NOT_FOUND} {
        mc_exchange $fd "qack nosuch 5\r\nqack nosuch 5:1\r\n"
    } "CLIENT_ERROR receipt required\r\nNOT_FOUND\r\n"

    test {Kestrel's dialect keeps working: get, /open, /close, /abort} {
        foreach d {k1 k2 k3} { q_push $fd r5 $d }
        mc_exchange $fd "get r5\r\nget r5/open\r\nget r5/abort\r\nget r5/close/open\r\nget r5/close\r\nget r5\r\n"
    } [string cat "VALUE r5 0 2\r\nk1\r\nEND\r\n" "VALUE r5/open 0 2\r\nk2\r\nEND\r\n" "END\r\n" \
           "VALUE r5/close/open 0 2\r\nk2\r\nEND\r\n" "END\r\n" "VALUE r5 0 2\r\nk3\r\nEND\r\n"]
}

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]
    test {without --receipts-only a bare id acts, as before} {
        set a [q_push $fd r6 x]
        q_pop $fd r6
        list [dict get [mc_stats $fd settings] receipts_only] [mc_exchange $fd "qack r6 $a\r\n"]
    } [list no "ACKED\r\n"]
}
