# stats conns: memcached's lines for each listening socket and connection.
# The untagged test passes against memcached 1.6.18.

start_server {tags {stats}} {
    test {stats conns: the listener, an idle connection and the asking one} {
        set idle [mc_connect]
        mc_cmd $idle version
        set fd [mc_connect]
        set r [mc_exchange $fd "stats conns\r\n"]
        set port [srv port]
        list [regexp "STAT (\\d+):addr tcp:127.0.0.1:$port\r\nSTAT \\1:state conn_listening\r\nSTAT \\1:secs_since_last_cmd \\d+\r\n" $r] \
            [regexp "STAT (\\d+):addr tcp:127.0.0.1:\\d+\r\nSTAT \\1:listen_addr tcp:127.0.0.1:$port\r\nSTAT \\1:state conn_read\r\nSTAT \\1:secs_since_last_cmd \\d+\r\n" $r] \
            [regexp "STAT (\\d+):listen_addr tcp:127.0.0.1:$port\r\nSTAT \\1:state conn_parse_cmd\r\n" $r] \
            [string match "*\r\nEND\r\n" $r]
    } {1 1 1 1}
}

start_server {tags {stats mcds-only}} {
    test {stats conns: a blocking read is conn_waiting, a watcher conn_watch; commands after it run in order} {
        set fd [mc_connect]
        set b [mc_connect]
        mc_send $b "qpop q wait=30\r\n"
        wait_for {[mc_stat $fd queue_waiters] == 1}
        set w [mc_connect]
        puts -nonewline $w "watch\r\n"
        flush $w
        gets $w
        set r [mc_exchange $fd "stats conns\r\nmn\r\n"]
        list [regexp {state conn_waiting} $r] [regexp {state conn_watch} $r] [string match "*END\r\nMN\r\n" $r]
    } {1 1 1}

    test {stats conns from a connection that hangs up at once} {
        set fd [mc_connect]
        mc_send $fd "stats conns\r\n"
        close $fd
        set fd [mc_connect]
        mc_cmd $fd version
    } {VERSION 1.6.18}
}
