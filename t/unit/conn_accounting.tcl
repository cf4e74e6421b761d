# Connection buffers are counted while a connection lives and given back
# when it closes (doc/protocol.md, "Limits a client meets"): the total that
# --conn-buffer-limit bounds returns to its idle value after clients come
# and go, so a long-lived server keeps accepting clients, and `stats reset`
# leaves those gauges alone (they are current values, not totals).

# Buffer bytes held by connections as seen by fd: output buffers plus the
# read buffers lent out (each worker keeps a few free ones cached).
proc conn_buffer_bytes {fd} {
    set s [mc_stats $fd]
    expr {[dict get $s response_obj_bytes] + [dict get $s read_buf_bytes] -
          [dict get $s read_buf_bytes_free]}
}

start_server {tags {conn mcds-only}} {
    set fd [mc_connect]

    test {20 connections that come and go give their buffer memory back} {
        # The observer's own buffers grow to hold the stats reply: once.
        conn_buffer_bytes $fd
        set before [conn_buffer_bytes $fd]
        for {set i 0} {$i < 20} {incr i} {
            set c [mc_connect]
            assert_equal [mc_set $c k$i v] STORED
            mc_close $c
        }
        if {[catch {wait_for {[conn_buffer_bytes $fd] == $before}} err]} {
            set s [mc_stats $fd]
            fail "$err: before $before, now [conn_buffer_bytes $fd]; stats:\
                  [dict filter $s key curr_connections total_connections response_obj_bytes read_buf*]"
        }
        assert_equal [conn_buffer_bytes $fd] $before
    }

    test {stats reset leaves the buffer gauges alone} {
        set before [list [mc_stat $fd response_obj_bytes] [mc_stat $fd read_buf_bytes]]
        assert_true {[lindex $before 0] > 0} "the open connection holds output buffers"
        assert_equal [mc_cmd $fd "stats reset"] RESET
        assert_equal [list [mc_stat $fd response_obj_bytes] [mc_stat $fd read_buf_bytes]] $before
    }
}

start_server {tags {conn mcds-only} args {--conn-buffer-limit 200k}} {
    test {the 500th connection in a row is still served under a 200k buffer limit} {
        for {set i 0} {$i < 500} {incr i} {
            set c [mc_connect]
            set r [mc_set $c k v]
            mc_close $c
            if {$r ne "STORED"} { fail "connection $i answered $r" }
        }
        set r
    } STORED
}
