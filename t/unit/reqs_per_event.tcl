# -R (reqs_per_event): a connection yields to others after -R commands
# with more input waiting. A command with a data block (set, lpush …) is
# one command, as in memcached.

start_server {tags {conn mcds-only} args {-R 5}} {
    set fd [mc_connect]

    # mc_exchange sends one more command (version) after the batch.
    test {-R 5: four pipelined sets with data blocks and a version are served without a yield} {
        set before [mc_stat $fd conn_yields]
        set batch {}
        for {set i 0} {$i < 4} {incr i} { append batch "set y$i 0 0 1\r\nx\r\n" }
        assert_equal [mc_exchange $fd $batch] [string repeat "STORED\r\n" 4]
        expr {[mc_stat $fd conn_yields] - $before}
    } 0

    test {-R 5: ten pipelined sets and a version yield twice} {
        set before [mc_stat $fd conn_yields]
        set batch {}
        for {set i 0} {$i < 10} {incr i} { append batch "set y$i 0 0 1\r\nx\r\n" }
        assert_equal [mc_exchange $fd $batch] [string repeat "STORED\r\n" 10]
        expr {[mc_stat $fd conn_yields] - $before}
    } 2
}
