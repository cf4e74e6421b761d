# Text protocol framing: pipelining, split writes, line endings, tokens,
# unknown commands, line length limits, data blocks and hostile input.

start_server {tags {protocol}} {
    set fd [mc_connect]

    # ---- pipelining and split writes ----------------------------------

    test {a pipeline of 900 commands in one write is answered in order} {
        set cmds {}
        set expect {}
        for {set i 0} {$i < 300} {incr i} {
            append cmds "set p$i $i 0 [string length v$i]\r\nv$i\r\n"
            append expect "STORED\r\n"
        }
        for {set i 0} {$i < 300} {incr i} {
            append cmds "get p$i\r\n"
            append expect "VALUE p$i $i [string length v$i]\r\nv$i\r\nEND\r\n"
        }
        for {set i 0} {$i < 300} {incr i} {
            append cmds "delete p$i\r\n"
            append expect "DELETED\r\n"
        }
        assert_equal [mc_exchange $fd $cmds] $expect
    }

    test {a pipeline mixing large values and small commands} {
        set v1 [randstring 200000]
        set v2 [randstring 70000]
        set r [mc_exchange $fd "set l1 0 0 200000\r\n$v1\r\nget nokey\r\nset l2 1 0 70000\r\n$v2\r\nget l1 l2\r\nincr nokey 1\r\n"]
        assert_equal $r "STORED\r\nEND\r\nSTORED\r\nVALUE l1 0 200000\r\n$v1\r\nVALUE l2 1 70000\r\n$v2\r\nEND\r\nNOT_FOUND\r\n"
    }

    test {a command split byte by byte across writes} {
        set c [mc_connect]
        foreach b [split "set split 3 0 5\r\nhello\r\nget split\r\n" {}] {
            mc_send $c $b
            after 2
        }
        mc_expect $c "STORED\r\nVALUE split 3 5\r\nhello\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    test {a pipeline split at every possible point} {
        set msg "set sp 0 0 4\r\nab\r\n\r\nget sp\r\n"
        set expect "STORED\r\nVALUE sp 0 4\r\nab\r\n\r\nEND\r\n"
        set c [mc_connect]
        for {set i 1} {$i < [string length $msg]} {incr i} {
            mc_send $c [string range $msg 0 $i-1]
            after 5
            mc_send $c [string range $msg $i end]
            mc_expect $c $expect
        }
        mc_exchange $c ""
    } {}

    test {the data block arrives in several writes} {
        set c [mc_connect]
        set v [randstring 100000]
        mc_send $c "set chunked 0 0 100000\r\n"
        for {set i 0} {$i < 100000} {incr i 10000} {
            mc_send $c [string range $v $i [expr {$i + 9999}]]
            after 1
        }
        mc_send $c "\r\n"
        assert_equal [mc_readline $c] STORED
        assert_equal [mc_get $c chunked] $v
    }

    test {replies to many clients do not mix} {
        set clients {}
        for {set i 0} {$i < 10} {incr i} { lappend clients [mc_connect] }
        set i 0
        foreach c $clients {
            mc_send $c "set mix$i 0 0 [string length $i]\r\n$i\r\nget mix$i\r\n"
            incr i
        }
        set i 0
        foreach c $clients {
            mc_expect $c "STORED\r\nVALUE mix$i 0 [string length $i]\r\n$i\r\nEND\r\n"
            incr i
        }
    }

    # ---- line endings, case, whitespace ----------------------------------

    test {bare \n ends a command line} {
        mc_exchange $fd "set lf 0 0 2\nab\r\nget lf\ndelete lf\n"
    } "STORED\r\nVALUE lf 0 2\r\nab\r\nEND\r\nDELETED\r\n"

    test {a data block must end in \r\n: a bare \n is a bad data chunk} {
        # "x\ng" are the 3 block bytes; "et lf\r\n" is then a command.
        mc_exchange $fd "set lf 0 0 1\r\nx\nget lf\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\n"

    test {commands are case-sensitive} {
        mc_exchange $fd "GET a\r\nGets a\r\nDELETE a\r\nIncr a 1\r\nVersion\r\nFLUSH_ALL\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\n"

    test {an upper-case storage command is ERROR and its data line too} {
        mc_exchange $fd "SET a 0 0 1\r\nx\r\nget a\r\n"
    } "ERROR\r\nERROR\r\nEND\r\n"

    test {a tab does not separate the command from its key} {
        mc_exchange $fd "get\ta\r\nset\ta 0 0 1\r\nx\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\n"

    test {a tab inside a key is part of the key} {
        mc_exchange $fd "set t\tk 0 0 1\r\nx\r\nget t\tk\r\nget t\r\n"
    } "STORED\r\nVALUE t\tk 0 1\r\nx\r\nEND\r\nEND\r\n"

    test {repeated, leading and trailing spaces are allowed} {
        mc_exchange $fd "  set   sp2   4  0   1  \r\nx\r\n   get   sp2   \r\n"
    } "STORED\r\nVALUE sp2 4 1\r\nx\r\nEND\r\n"

    test {an empty line is ERROR} {
        mc_exchange $fd "\r\n\n"
    } "ERROR\r\nERROR\r\n"

    test {a line of spaces is ERROR} {
        mc_exchange $fd "     \r\n"
    } "ERROR\r\n"

    test {an unknown command is ERROR} {
        mc_exchange $fd "bogus\r\nbogus with args\r\ngetx a\r\nsets a 0 0 1\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\n"

    test {binary junk lines are ERROR and the connection survives} {
        mc_exchange $fd "\xff\xfe\r\n\x01\x02\x03\r\n\r\r\nget nokey\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nEND\r\n"

    test {a NUL byte in a command line does not break the connection} {
        mc_exchange $fd "get nul\0key\r\nget nokey\r\n"
    } "END\r\nEND\r\n"

    test {a set with 30 extra tokens is ERROR} {
        mc_exchange $fd "set many 0 0 1[string repeat { x} 30]\r\nx\r\n"
    } "ERROR\r\nERROR\r\n"

    # ---- line length ----------------------------------------------------

    test {more than 2048 bytes without a newline closes the connection} {
        set c [mc_connect]
        mc_send $c [string repeat x 2100]
        mc_read_until_close $c
    } {}

    test {a storage command line over 2048 bytes without a newline closes} {
        set c [mc_connect]
        mc_send $c "set [string repeat k 2100]"
        mc_read_until_close $c
    } {}

    test {2048 bytes of junk then a newline is just ERROR} {
        set c [mc_connect]
        mc_send $c [string repeat x 2048]
        after 100
        mc_send $c "\r\nget nokey\r\n"
        mc_expect $c "ERROR\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    test {a get line over 130 KB works} {
        set line get
        set expect {}
        for {set i 0} {$i < 20} {incr i} {
            assert_equal [mc_set $fd long$i $i] STORED
        }
        set i 0
        while {[string length $line] < 133000} {
            if {$i < 20} {
                append line " long$i"
                append expect "VALUE long$i 0 [string length $i]\r\n$i\r\n"
            } else {
                append line " [string repeat m 240]$i"
            }
            incr i
        }
        assert_equal [mc_exchange $fd "$line\r\n"] "${expect}END\r\n"
    }

    test {a gets line over 130 KB works} {
        set line gets
        while {[string length $line] < 133000} { append line " missing[string length $line]" }
        mc_exchange $fd "$line\r\n"
    } "END\r\n"

    test {a long get line split across writes works} {
        set c [mc_connect]
        set line get
        while {[string length $line] < 20000} { append line " z[string length $line]" }
        append line " long1\r\n"
        for {set i 0} {$i < [string length $line]} {incr i 3000} {
            mc_send $c [string range $line $i [expr {$i + 2999}]]
            after 2
        }
        mc_expect $c "VALUE long1 0 1\r\n1\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    # Found by the fuzz harness's stream target (t/fuzz): the same bytes got
    # other answers depending on how the network cut them into reads.
    test {a line over 2048 bytes closes the connection also when its newline comes with it} {
        set c [mc_connect]
        mc_send $c "incr k 1[string repeat x 3000]\r\nget nokey\r\n"
        mc_read_until_close $c
    } {}

    test {2048 bytes of junk and a \r, then its \n in another write, is just ERROR} {
        set c [mc_connect]
        mc_send $c "[string repeat x 2048]\r"
        after 100
        mc_send $c "\nget nokey\r\n"
        mc_expect $c "ERROR\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    test {a qack line over 2048 bytes that arrives in pieces is answered as when whole} {
        set c [mc_connect]
        set line "qack kpieces[string repeat " 1" 3000]"
        mc_send $c [string range $line 0 2099]
        after 100
        mc_send $c "[string range $line 2100 end]\r\n"
        mc_expect $c "CLIENT_ERROR too many ids\r\n"
        mc_exchange $c ""
    } {}

    test {a get line under 16 KB that arrives in pieces is checked whole (its Kestrel read pops)} {
        set c [mc_connect]
        assert_equal [mc_exchange $c "qpush kwhole 0 0 1\r\nx\r\n"] "PUSHED 1\r\n"
        set line "get kwhole"
        while {[string length $line] < 3000} { append line " miss[string length $line]" }
        mc_send $c [string range $line 0 2099]
        after 100
        mc_send $c "[string range $line 2100 end]\r\n"
        mc_expect $c "VALUE kwhole 0 1\r\nx\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    # Every verb that takes a list longer than 2048 bytes by its own limits
    # is served up to the read buffer: qpopany (16 names of 250 bytes),
    # the tree-counter verbs (256 limits, 256 counters or periods).
    test {qpopany of 16 long queue names, a line of 4 KB, is answered} {
        set c [mc_connect]
        set names {}
        for {set i 0} {$i < 16} {incr i} { lappend names [format %03d%s $i [string repeat q 247]] }
        mc_exchange $c "qpopany [join $names { }]\r\n"
    } "END\r\n"

    test {ctobj with 200 limits, a line of 7 KB, is answered} {
        set c [mc_connect]
        assert_equal [mc_exchange $c "ctdef 4000000000 104:0\r\n"] "CREATED\r\n"
        set limits {}
        for {set i 0} {$i < 200} {incr i} { lappend limits "4000000000:104:[expr {9223372036854775000 + $i}]" }
        assert_true {[string length [join $limits ,]] > 2048}
        mc_exchange $c "ctobj kbiglimits limits=[join $limits ,]\r\n"
    } "CREATED\r\n"

    test {ctvalues with 256 periods, a line of 2.5 KB, is answered} {
        set c [mc_connect]
        set periods {}
        for {set i 0} {$i < 256} {incr i} {
            lappend periods [clock format [expr {1609459200 + $i * 86400}] -format %Y%m%d -gmt 1]
        }
        mc_exchange $c "ctvalues kbiglimits counters=4000000000 type=104 periods=[join $periods ,]\r\n"
    } "END\r\n"

    # ---- data blocks ------------------------------------------------------

    test {a data block longer than announced is a bad data chunk, the rest is a command} {
        mc_exchange $fd "set bc 0 0 3\r\nabcdef\r\nget bc\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nEND\r\n"

    test {a data block shorter than announced eats the next line} {
        # "ab\r\n\r" are the 5 bytes; the leftover "\n" is an empty line.
        mc_exchange $fd "set bc 0 0 3\r\nab\r\n\r\nget bc\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nEND\r\n"

    test {a bad data chunk keeps the old value} {
        mc_exchange $fd "set bk 0 0 1\r\nx\r\nset bk 0 0 1\r\nyz\r\nget bk\r\n"
    } "STORED\r\nCLIENT_ERROR bad data chunk\r\nERROR\r\nVALUE bk 0 1\r\nx\r\nEND\r\n"

    test {a zero-length block must be just \r\n} {
        # "xx" are the 2 block bytes; the leftover "\r\n" is an empty line.
        mc_exchange $fd "set z0 0 0 0\r\nxx\r\nget z0\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nEND\r\n"

    test {a data block may contain a command} {
        mc_exchange $fd "set dc 0 0 11\r\nget dc\r\nend\r\nget dc\r\n"
    } "STORED\r\nVALUE dc 0 11\r\nget dc\r\nend\r\nEND\r\n"

    test {a client that disconnects in the middle of a data block stores nothing} {
        set c [mc_connect]
        mc_send $c "set half 0 0 100\r\nabc"
        mc_close $c
        after 50
        mc_get $fd half
    } {}

    # ---- oversize values --------------------------------------------------

    test {a value of 1,000,000 bytes is stored (default -I 1m)} {
        set v [string repeat a 1000000]
        assert_equal [mc_set $fd big1 $v] STORED
        string length [mc_get $fd big1]
    } 1000000

    test {a value of 1 MB is too large: SERVER_ERROR, data swallowed, next command answered} {
        set v [string repeat b 1048576]
        mc_exchange $fd "set big2 0 0 1048576\r\n$v\r\nget big2\r\n"
    } "SERVER_ERROR object too large for cache\r\nEND\r\n"

    test {an oversize set deletes the old item} {
        set v [string repeat c 2000000]
        mc_exchange $fd "set old 0 0 3\r\nold\r\nset old 0 0 2000000\r\n$v\r\nget old\r\n"
    } "STORED\r\nSERVER_ERROR object too large for cache\r\nEND\r\n"

    test {an oversize add, replace or append keeps the old item} {
        set v [string repeat d 2000000]
        mc_exchange $fd [string cat "set keep 0 0 1\r\nk\r\n" \
            "add keep 0 0 2000000\r\n$v\r\n" \
            "replace keep 0 0 2000000\r\n$v\r\n" \
            "append keep 0 0 2000000\r\n$v\r\n" \
            "prepend keep 0 0 2000000\r\n$v\r\n" \
            "cas keep 0 0 2000000 1\r\n$v\r\n" \
            "get keep\r\n"]
    } [string cat "STORED\r\n" [string repeat "SERVER_ERROR object too large for cache\r\n" 5] \
        "VALUE keep 0 1\r\nk\r\nEND\r\n"]

    test {an append that would grow past the item size limit is NOT_STORED} {
        set v [string repeat e 1000000]
        assert_equal [mc_set $fd grow $v] STORED
        mc_exchange $fd "append grow 0 0 100000\r\n[string repeat f 100000]\r\nget nokey\r\n"
    } "NOT_STORED\r\nEND\r\n"

    test {an oversize value is counted in store_too_large} {
        set before [mc_stat $fd store_too_large]
        mc_exchange $fd "set big3 0 0 2000000\r\n[string repeat g 2000000]\r\n"
        expr {[mc_stat $fd store_too_large] - $before}
    } 1

    test {an oversize data block split over many writes is swallowed} {
        set c [mc_connect]
        mc_send $c "set big4 0 0 3000000\r\n"
        set chunk [string repeat h 100000]
        for {set i 0} {$i < 30} {incr i} { mc_send $c $chunk }
        mc_send $c "\r\nget big4\r\n"
        mc_expect $c "SERVER_ERROR object too large for cache\r\nEND\r\n"
        mc_exchange $c ""
    } {}

    # ---- hostile ------------------------------------------------------------

    test {an HTTP request line closes the connection silently} {
        set c [mc_connect]
        mc_send $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        mc_read_until_close $c
    } {}

    test {an HTTP request after a command: the command is answered, then close} {
        set c [mc_connect]
        mc_send $c "get nokey\r\nPOST /x HTTP/1.0\r\n"
        mc_read_until_close $c
    } "END\r\n"

    test {HTTP/ not in last position is just ERROR} {
        mc_exchange $fd "foo HTTP/1.1 bar\r\n"
    } "ERROR\r\n"

    test {200 connections opened and closed: curr_connections comes back} {
        set before [mc_stat $fd curr_connections]
        for {set i 0} {$i < 200} {incr i} {
            set c [mc_connect]
            if {$i % 2} { mc_cmd $c "get nokey" }
            if {$i % 3 == 0} { mc_send $c "set half 0 0 10\r\nabc" }
            mc_close $c
        }
        wait_for {[mc_stat $fd curr_connections] <= $before}
        mc_get $fd half
    } {}

    test {the server is still healthy after all this} {
        mc_exchange $fd "set ok 0 0 2\r\nok\r\nget ok\r\n"
    } "STORED\r\nVALUE ok 0 2\r\nok\r\nEND\r\n"
}
