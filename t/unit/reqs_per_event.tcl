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

# A yield lets in the connections that became ready while the yielding one
# ran, not only those ready when its turn began: a client whose pipeline
# is all in the socket cannot keep the worker until it has run dry. With
# one worker and -R 1, client a's 20,000 noreply sets (500 KB) are in its
# socket at once; b's stats, sent just after, must see some of them done
# and some not. (Before, b was answered only after all of them.)
start_server {tags {conn mcds-only} args {-R 1 -t 1}} {
    set a [mc_connect]
    set b [mc_connect]

    test {-R 1: another client is served while a pipeline already in the socket runs} {
        set n 20000
        set batch {}
        for {set i 0} {$i < $n} {incr i} { append batch "set p$i 0 0 1 noreply\r\nx\r\n" }
        set start [mc_stat $b cmd_set]
        mc_send_bg $a $batch
        set seen {}
        while {[llength $seen] < 10000} {
            set done [expr {[mc_stat $b cmd_set] - $start}]
            lappend seen $done
            if {$done >= $n} break
        }
        set between 0
        foreach d $seen { if {$d > 0 && $d < $n} { set between 1 } }
        list $between [lindex $seen end]
    } {1 20000}
}
