# touch <key> <exptime> [noreply]

set K251 [string repeat k 251]

start_server {tags {touch}} {
    set fd [mc_connect]

    test {touch of an existing key is TOUCHED, of a missing key NOT_FOUND} {
        mc_exchange $fd "set t1 0 0 1\r\nx\r\ntouch t1 100\r\ntouch nokey 100\r\n"
    } "STORED\r\nTOUCHED\r\nNOT_FOUND\r\n"

    test {touch keeps value and flags} {
        mc_exchange $fd "set t2 42 0 3\r\nabc\r\ntouch t2 1000\r\nget t2\r\n"
    } "STORED\r\nTOUCHED\r\nVALUE t2 42 3\r\nabc\r\nEND\r\n"

    test {touch with a negative exptime expires the item at once} {
        mc_exchange $fd "set t3 0 0 1\r\nx\r\ntouch t3 -1\r\nget t3\r\ntouch t3 100\r\n"
    } "STORED\r\nTOUCHED\r\nEND\r\nNOT_FOUND\r\n"

    test {touch with an absolute time in the past expires the item} {
        mc_exchange $fd "set t4 0 0 1\r\nx\r\ntouch t4 2592001\r\nget t4\r\n"
    } "STORED\r\nTOUCHED\r\nEND\r\n"

    test {touch 0 makes an item with a TTL permanent} {
        mc_exchange $fd "set t5 0 100 1\r\nx\r\ntouch t5 0\r\nget t5\r\n"
    } "STORED\r\nTOUCHED\r\nVALUE t5 0 1\r\nx\r\nEND\r\n"

    test {touch without an exptime is ERROR} {
        mc_exchange $fd "touch t1\r\ntouch\r\n"
    } "ERROR\r\nERROR\r\n"

    test {touch with a non-numeric exptime is CLIENT_ERROR invalid exptime argument} {
        mc_exchange $fd "touch t1 abc\r\ntouch t1 10x\r\n"
    } "CLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\n"

    test {touch with a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "touch $K251 10\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {touch ignores an extra token that is not noreply} {
        mc_exchange $fd "touch t1 10 junk\r\n"
    } "TOUCHED\r\n"

    test {touch with too many tokens is ERROR} {
        mc_exchange $fd "touch t1 10 noreply extra\r\n"
    } "ERROR\r\n"

    test {touch counts in cmd_touch, touch_hits, touch_misses} {
        set before [mc_stats $fd]
        mc_exchange $fd "touch t1 10\r\ntouch t2 10\r\ntouch nokey 10\r\n"
        set after [mc_stats $fd]
        set out {}
        foreach s {cmd_touch touch_hits touch_misses} {
            lappend out [expr {[dict get $after $s] - [dict get $before $s]}]
        }
        set out
    } {3 2 1}

    test {touch extends a TTL} {
        mc_exchange $fd "set tt 0 100 1\r\nx\r\ntouch tt 1000\r\ndebugtime 500\r\nget tt\r\ndebugtime 600\r\nget tt\r\n"
    } "STORED\r\nTOUCHED\r\nOK\r\nVALUE tt 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {touch shortens a TTL} {
        mc_exchange $fd "set ts 0 1000 1\r\nx\r\ntouch ts 100\r\ndebugtime 50\r\nget ts\r\ndebugtime 60\r\nget ts\r\n"
    } "STORED\r\nTOUCHED\r\nOK\r\nVALUE ts 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {gat extends a TTL} {
        mc_exchange $fd "set gt 0 100 1\r\nx\r\ngat 1000 gt\r\ndebugtime 500\r\nget gt\r\ndebugtime 600\r\nget gt\r\n"
    } "STORED\r\nVALUE gt 0 1\r\nx\r\nEND\r\nOK\r\nVALUE gt 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}
}
