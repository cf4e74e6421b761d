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
