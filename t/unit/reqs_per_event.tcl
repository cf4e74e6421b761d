# -R (reqs_per_event): a connection yields to others after -R commands
# with more input waiting. A command with a data block (set, lpush …) is
# one command, as in memcached.

# yields_of_sets fd n: n pipelined sets (and mc_exchange's version); the yields they
# cost.
proc yields_of_sets {fd n} {
    set before [mc_stat $fd conn_yields]
    set batch {}
    for {set i 0} {$i < $n} {incr i} { append batch "set y$i 0 0 1\r\nx\r\n" }
    assert_equal [mc_exchange $fd $batch] [string repeat "STORED\r\n" $n]
    expr {[mc_stat $fd conn_yields] - $before}
}

start_server {tags {conn mcds-only} args {-R 5}} {
    set fd [mc_connect]

    # mc_exchange sends one more command (version) after the batch.
    test {-R 5: four pipelined sets with data blocks and a version are served without a yield} {
        yields_of_sets $fd 4
    } 0

    test {-R 5: ten pipelined sets and a version yield twice} {
        yields_of_sets $fd 10
    } 2
}
