# Retrieval commands: get, gets, gat, gats, single and multi-key, key length
# limits and malformed lines.

set K250 [string repeat k 250]
set K251 [string repeat k 251]

start_server {tags {retrieval}} {
    set fd [mc_connect]
    mc_exchange $fd "set a 1 0 1\r\nA\r\nset b 2 0 2\r\nBB\r\nset c 3 0 3\r\nCCC\r\n"

    test {get of a missing key is just END} {
        mc_exchange $fd "get nokey\r\n"
    } "END\r\n"

    test {get of several keys answers hits in request order, skipping misses} {
        mc_exchange $fd "get c nokey a b\r\n"
    } "VALUE c 3 3\r\nCCC\r\nVALUE a 1 1\r\nA\r\nVALUE b 2 2\r\nBB\r\nEND\r\n"

    test {a key repeated in a multi-get is returned each time} {
        mc_exchange $fd "get a a\r\n"
    } "VALUE a 1 1\r\nA\r\nVALUE a 1 1\r\nA\r\nEND\r\n"

    test {gets adds the cas unique to every VALUE line} {
        set ca [lindex [mc_gets $fd a] 1]
        set cb [lindex [mc_gets $fd b] 1]
        assert_equal [mc_exchange $fd "gets a nokey b\r\n"] \
            "VALUE a 1 1 $ca\r\nA\r\nVALUE b 2 2 $cb\r\nBB\r\nEND\r\n"
    }

    test {get with repeated and trailing spaces} {
        mc_exchange $fd "get  a   b   \r\n"
    } "VALUE a 1 1\r\nA\r\nVALUE b 2 2\r\nBB\r\nEND\r\n"

    test {get with leading spaces} {
        mc_exchange $fd "   get a\r\n"
    } "VALUE a 1 1\r\nA\r\nEND\r\n"

    test {get without a key is ERROR} {
        mc_exchange $fd "get\r\nget \r\ngets\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\n"

    test {get of a 250-byte key works} {
        mc_exchange $fd "set $K250 5 0 2\r\nxy\r\nget $K250\r\n"
    } "STORED\r\nVALUE $K250 5 2\r\nxy\r\nEND\r\n"

    test {get of a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "get $K251\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {gets of a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "gets $K251\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {a 251-byte key in a multi-get makes the whole reply that error} {
        mc_exchange $fd "get a $K251 b\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {a 251-byte key first in a multi-get} {
        mc_exchange $fd "get $K251 a\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {a 251-byte key last in a gets multi-get} {
        mc_exchange $fd "gets a b $K251\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {the connection works normally after a bad multi-get} {
        mc_exchange $fd "get a $K251\r\nget a\r\n"
    } "CLIENT_ERROR bad command line format\r\nVALUE a 1 1\r\nA\r\nEND\r\n"

    test {a 250-byte key inside a multi-get} {
        mc_exchange $fd "get a $K250 b\r\n"
    } "VALUE a 1 1\r\nA\r\nVALUE $K250 5 2\r\nxy\r\nVALUE b 2 2\r\nBB\r\nEND\r\n"

    test {a multi-get of 100 keys} {
        set expect {}
        set line get
        for {set i 0} {$i < 100} {incr i} {
            assert_equal [mc_set $fd mk$i v$i $i] STORED
            append line " mk$i"
            append expect "VALUE mk$i $i [string length v$i]\r\nv$i\r\n"
        }
        assert_equal [mc_exchange $fd "$line\r\n"] "${expect}END\r\n"
    }

    test {a multi-get of 24+ keys with misses in between} {
        set line get
        set expect {}
        for {set i 0} {$i < 60} {incr i} {
            if {$i % 3 == 0} {
                append line " mk$i"
                append expect "VALUE mk$i $i [string length v$i]\r\nv$i\r\n"
            } else {
                append line " missing$i"
            }
        }
        assert_equal [mc_exchange $fd "$line\r\n"] "${expect}END\r\n"
    }

    test {a multi-get of large values (3 x 300 KB)} {
        set v1 [randstring 300000]
        set v2 [randstring 300000]
        set v3 [randstring 300000]
        foreach k {l1 l2 l3} v [list $v1 $v2 $v3] { assert_equal [mc_set $fd $k $v] STORED }
        mc_send $fd "get l1 l2 l3\r\n"
        set vals [mc_read_values $fd]
        assert_equal [llength $vals] 3
        assert_equal [lindex $vals 0 2] $v1
        assert_equal [lindex $vals 1 2] $v2
        assert_equal [lindex $vals 2 2] $v3
    }

    test {the key "noreply" can be fetched like any other} {
        mc_exchange $fd "set noreply 0 0 1\r\nn\r\nget a noreply\r\n"
    } "STORED\r\nVALUE a 1 1\r\nA\r\nVALUE noreply 0 1\r\nn\r\nEND\r\n"

    # ---- gat / gats -----------------------------------------------------

    test {gat returns the values like get} {
        mc_exchange $fd "gat 100 a nokey b\r\n"
    } "VALUE a 1 1\r\nA\r\nVALUE b 2 2\r\nBB\r\nEND\r\n"

    test {gats returns the cas unique} {
        set ca [lindex [mc_gets $fd a] 1]
        assert_equal [mc_exchange $fd "gats 100 a\r\n"] "VALUE a 1 1 $ca\r\nA\r\nEND\r\n"
    }

    test {gat with only an exptime and no key is END} {
        mc_exchange $fd "gat 10\r\n"
    } "END\r\n"

    test {bare gat and gats are ERROR} {
        mc_exchange $fd "gat\r\ngats\r\n"
    } "ERROR\r\nERROR\r\n"

    test {gat with a non-numeric exptime is CLIENT_ERROR invalid exptime argument} {
        mc_exchange $fd "gat abc a\r\ngats 1x a\r\n"
    } "CLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\n"

    test {gat with a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "gat 10 a $K251\r\n"
    } "CLIENT_ERROR bad command line format\r\n"

    test {gat with a negative exptime returns the item and then expires it} {
        mc_exchange $fd "set gneg 4 0 2\r\nhi\r\ngat -1 gneg\r\nget gneg\r\n"
    } "STORED\r\nVALUE gneg 4 2\r\nhi\r\nEND\r\nEND\r\n"

    test {gats with a negative exptime returns the item and then expires it} {
        mc_exchange $fd "set gneg 4 0 2\r\nhi\r\n"
        set c [lindex [mc_gets $fd gneg] 1]
        assert_equal [mc_exchange $fd "gats -1 gneg\r\nget gneg\r\n"] \
            "VALUE gneg 4 2 $c\r\nhi\r\nEND\r\nEND\r\n"
    }

    test {gat 0 makes an item permanent} {
        mc_exchange $fd "set gz 0 100 1\r\nz\r\ngat 0 gz\r\nget gz\r\n"
    } "STORED\r\nVALUE gz 0 1\r\nz\r\nEND\r\nVALUE gz 0 1\r\nz\r\nEND\r\n"

    # ---- counters ---------------------------------------------------------

    test {get counts every key in cmd_get, get_hits, get_misses} {
        set before [mc_stats $fd]
        mc_exchange $fd "get a b nokey1\r\nget nokey2\r\ngets a\r\n"
        set after [mc_stats $fd]
        set out {}
        foreach s {cmd_get get_hits get_misses} {
            lappend out [expr {[dict get $after $s] - [dict get $before $s]}]
        }
        set out
    } {5 3 2}

    test {gat counts in cmd_touch, touch_hits, touch_misses, not in cmd_get} {
        set before [mc_stats $fd]
        mc_exchange $fd "gat 100 a nokey\r\ngats 100 b\r\n"
        set after [mc_stats $fd]
        set out {}
        foreach s {cmd_touch touch_hits touch_misses cmd_get get_hits get_misses} {
            lappend out [expr {[dict get $after $s] - [dict get $before $s]}]
        }
        set out
    } {3 2 1 0 0 0}

    test {get_expired counts a fetch of an expired item} {
        set before [mc_stat $fd get_expired]
        mc_exchange $fd "set gexp 0 -1 1\r\nx\r\nget gexp\r\n"
        expr {[mc_stat $fd get_expired] - $before}
    } {1}
}
