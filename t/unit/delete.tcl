# delete <key> [0] [noreply]

set K251 [string repeat k 251]

start_server {tags {delete}} {
    set fd [mc_connect]

    test {delete of an existing key is DELETED and the key is gone} {
        mc_exchange $fd "set d1 0 0 1\r\nx\r\ndelete d1\r\nget d1\r\n"
    } "STORED\r\nDELETED\r\nEND\r\n"

    test {delete of a missing key is NOT_FOUND} {
        mc_exchange $fd "delete d1\r\ndelete nokey\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\n"

    test {delete of an expired key is NOT_FOUND} {
        mc_exchange $fd "set dexp 0 -1 1\r\nx\r\ndelete dexp\r\n"
    } "STORED\r\nNOT_FOUND\r\n"

    test {delete k 0 is accepted (old clients)} {
        mc_exchange $fd "set d2 0 0 1\r\nx\r\ndelete d2 0\r\nget d2\r\n"
    } "STORED\r\nDELETED\r\nEND\r\n"

    test {delete k 0 noreply is silent} {
        mc_exchange $fd "set d3 0 0 1\r\nx\r\ndelete d3 0 noreply\r\nget d3\r\n"
    } "STORED\r\nEND\r\n"

    test {delete k noreply is silent} {
        mc_exchange $fd "set d4 0 0 1\r\nx\r\ndelete d4 noreply\r\nget d4\r\n"
    } "STORED\r\nEND\r\n"

    test {delete k 5 is the usage error} {
        mc_exchange $fd "set d5 0 0 1\r\nx\r\ndelete d5 5\r\nget d5\r\n"
    } "STORED\r\nCLIENT_ERROR bad command line format.  Usage: delete <key> \[noreply\]\r\nVALUE d5 0 1\r\nx\r\nEND\r\n"

    test {delete k junk is the usage error} {
        mc_exchange $fd "delete d5 junk\r\n"
    } "CLIENT_ERROR bad command line format.  Usage: delete <key> \[noreply\]\r\n"

    test {delete k 0 0 is the usage error} {
        mc_exchange $fd "delete d5 0 0\r\n"
    } "CLIENT_ERROR bad command line format.  Usage: delete <key> \[noreply\]\r\n"

    test {delete k noreply 0 is the usage error} {
        mc_exchange $fd "delete d5 noreply 0\r\nget d5\r\n"
    } "CLIENT_ERROR bad command line format.  Usage: delete <key> \[noreply\]\r\nVALUE d5 0 1\r\nx\r\nEND\r\n"

    test {delete k 5 noreply: the usage error is suppressed, nothing deleted} {
        mc_exchange $fd "delete d5 5 noreply\r\nget d5\r\n"
    } "VALUE d5 0 1\r\nx\r\nEND\r\n"

    test {delete with too many tokens is ERROR} {
        mc_exchange $fd "delete d5 0 noreply extra\r\nget d5\r\n"
    } "ERROR\r\nVALUE d5 0 1\r\nx\r\nEND\r\n"

    test {bare delete is ERROR} {
        mc_exchange $fd "delete\r\n"
    } "ERROR\r\n"

    test {delete of a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "delete $K251\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {delete counts in delete_hits and delete_misses} {
        set before [mc_stats $fd]
        mc_exchange $fd "set dc 0 0 1\r\nx\r\ndelete dc\r\ndelete dc\r\ndelete nokey\r\n"
        set after [mc_stats $fd]
        list [expr {[dict get $after delete_hits] - [dict get $before delete_hits]}] \
            [expr {[dict get $after delete_misses] - [dict get $before delete_misses]}]
    } {1 2}

    test {delete lowers curr_items} {
        mc_exchange $fd "set dd 0 0 1\r\nx\r\n"
        set before [mc_stat $fd curr_items]
        mc_exchange $fd "delete dd\r\n"
        expr {$before - [mc_stat $fd curr_items]}
    } 1
}
