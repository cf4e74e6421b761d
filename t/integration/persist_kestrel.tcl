# A message held by a Kestrel open read (get <queue>/open) when the server
# is killed: its connection is gone with the server, so after the restart
# it is back in the queue, as when a connection that holds one closes
# (doc/protocol.md, "Queues through classic commands"). Found by the
# torture test: it stayed in flight, held by nobody, for ever.

foreach {policy} {always no} {
    set dir [tmpdir kestrel]
    with_data_dir $dir [list --fsync $policy] {
        test "kestrel (--fsync $policy): a message held by an open read, then kill -9" {
            set fd [mc_connect]
            assert_equal [mc_exchange $fd "qpush jk 0 0 3\r\nabc\r\nqpush jk 0 0 3\r\ndef\r\n"] "PUSHED 1\r\nPUSHED 2\r\n"
            mc_exchange $fd "get jk/open\r\n"
        } "VALUE jk/open 0 3\r\nabc\r\nEND\r\n"
    }
    with_data_dir $dir [list --fsync $policy] {
        test "kestrel (--fsync $policy): after the restart the held message is ready again, delivered once more" {
            set fd [mc_connect]
            set counts [q_counts $fd jk]
            list $counts [mc_exchange $fd "get jk/open\r\nget jk/close\r\nget jk\r\nget jk\r\n"]
        } [list {2 0 0} "VALUE jk/open 0 3\r\nabc\r\nEND\r\nEND\r\nVALUE jk 0 3\r\ndef\r\nEND\r\nEND\r\n"]
    }
}
