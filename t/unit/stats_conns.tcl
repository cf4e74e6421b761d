# stats conns: memcached's lines for each listening socket and connection.
# The untagged tests pass against memcached 1.6.18.

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

# mc_half_close_reply bytes -> everything the server sends for bytes on a
# new connection whose client shuts its side down right after sending.
proc mc_half_close_reply {bytes} {
    set fd [mc_connect]
    puts -nonewline $fd $bytes
    flush $fd
    close $fd write
    set r [mc_read_until_close $fd]
    mc_close $fd
    return $r
}

# A client that sends a request and shuts its side down (nc -N, a script
# that half-closes) is owed the whole answer: the report waits for every
# worker, then is written, then the connection closes.
start_server {tags {stats}} {
    test {stats conns, stats, a metadump: a client that half-closes after the request gets the whole reply} {
        set idle {}
        for {set i 0} {$i < 64} {incr i} { lappend idle [mc_connect] }
        set fd [mc_connect]
        for {set i 0} {$i < 500} {incr i} { mc_send $fd "set hc$i 0 0 1 noreply\r\nx\r\n" }
        mc_cmd $fd version
        set cut {}
        foreach req {"stats conns\r\n" "stats\r\n" "lru_crawler metadump all\r\n"} {
            for {set i 0} {$i < 40} {incr i} {
                set r [mc_half_close_reply $req]
                if {![string match "*END\r\n" $r] || [string first "ERROR" $r] >= 0} {
                    lappend cut "[string trim $req] ([string length $r] bytes): ...[visible [string range $r end-60 end]]"
                }
            }
        }
        foreach c $idle { mc_close $c }
        set cut
    } {}
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
