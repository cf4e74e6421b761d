# incr / decr <key> <delta> [noreply]: 64-bit unsigned arithmetic on
# decimal values, with memcached's in-place update quirks.

set K251 [string repeat k 251]
set MAX 18446744073709551615

start_server {tags {incrdecr}} {
    set fd [mc_connect]

    test {incr and decr of a missing key are NOT_FOUND} {
        mc_exchange $fd "incr nokey 1\r\ndecr nokey 1\r\nget nokey\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\nEND\r\n"

    test {incr adds the delta and returns the new value} {
        mc_exchange $fd "set n 0 0 1\r\n1\r\nincr n 1\r\nincr n 10\r\nget n\r\n"
    } "STORED\r\n2\r\n12\r\nVALUE n 0 2\r\n12\r\nEND\r\n"

    test {decr subtracts the delta} {
        mc_exchange $fd "decr n 2\r\nget n\r\n"
    } "10\r\nVALUE n 0 2\r\n10\r\nEND\r\n"

    test {incr by 0 returns the value} {
        mc_exchange $fd "incr n 0\r\n"
    } "10\r\n"

    test {decr floors at 0} {
        mc_exchange $fd "set n 0 0 1\r\n3\r\ndecr n 5\r\nget n\r\ndecr n 1\r\n"
    } "STORED\r\n0\r\nVALUE n 0 1\r\n0\r\nEND\r\n0\r\n"

    test {incr wraps at 2^64: 2^64-1 + 1 = 0} {
        mc_exchange $fd "set w 0 0 20\r\n$MAX\r\nincr w 1\r\n"
    } "STORED\r\n0\r\n"

    test {incr wraps at 2^64: 2^64-1 + 2 = 1} {
        mc_exchange $fd "set w 0 0 20\r\n$MAX\r\nincr w 2\r\n"
    } "STORED\r\n1\r\n"

    test {incr by 2^64-1 wraps to value - 1} {
        mc_exchange $fd "set w 0 0 1\r\n3\r\nincr w $MAX\r\n"
    } "STORED\r\n2\r\n"

    test {incr up to exactly 2^64-1} {
        mc_exchange $fd "set w 0 0 1\r\n1\r\nincr w 18446744073709551614\r\nget w\r\n"
    } "STORED\r\n$MAX\r\nVALUE w 0 20\r\n$MAX\r\nEND\r\n"

    test {a shorter result is written in place, right-padded with spaces} {
        mc_exchange $fd "set p 5 0 3\r\n100\r\ndecr p 1\r\nget p\r\n"
    } "STORED\r\n99\r\nVALUE p 5 3\r\n99 \r\nEND\r\n"

    test {wrapping to 0 leaves 19 spaces of padding} {
        mc_exchange $fd "set w 0 0 20\r\n$MAX\r\nincr w 1\r\nget w\r\n"
    } "STORED\r\n0\r\nVALUE w 0 20\r\n0[string repeat { } 19]\r\nEND\r\n"

    test {pipelined get, decr, get: the first reply keeps the old value, the item is padded} {
        mc_exchange $fd "set pp 0 0 3\r\n100\r\nget pp\r\ndecr pp 1\r\nget pp\r\n"
    } "STORED\r\nVALUE pp 0 3\r\n100\r\nEND\r\n99\r\nVALUE pp 0 3\r\n99 \r\nEND\r\n"

    test {pipelined get of the key twice, then decr: padded} {
        mc_exchange $fd "set pp 0 0 5\r\n10000\r\nget pp pp\r\ndecr pp 1\r\nget pp\r\n"
    } "STORED\r\nVALUE pp 0 5\r\n10000\r\nVALUE pp 0 5\r\n10000\r\nEND\r\n9999\r\nVALUE pp 0 5\r\n9999 \r\nEND\r\n"

    test {a padded value keeps working: incr back to 3 digits} {
        mc_exchange $fd "incr p 1\r\nget p\r\n"
    } "100\r\nVALUE p 5 3\r\n100\r\nEND\r\n"

    test {a longer result grows the value} {
        mc_exchange $fd "set g 0 0 2\r\n99\r\nincr g 1\r\nget g\r\n"
    } "STORED\r\n100\r\nVALUE g 0 3\r\n100\r\nEND\r\n"

    test {leading zeros: 007 + 1 = 8, stored as "8  "} {
        mc_exchange $fd "set z 0 0 3\r\n007\r\nincr z 1\r\nget z\r\n"
    } "STORED\r\n8\r\nVALUE z 0 3\r\n8  \r\nEND\r\n"

    test {a leading space is skipped: " 12" + 1 = 13} {
        mc_exchange $fd "set s 0 0 3\r\n 12\r\nincr s 1\r\nget s\r\n"
    } "STORED\r\n13\r\nVALUE s 0 3\r\n13 \r\nEND\r\n"

    test {parsing stops at a space: "9 5" + 1 = 10} {
        mc_exchange $fd "set s 0 0 3\r\n9 5\r\nincr s 1\r\nget s\r\n"
    } "STORED\r\n10\r\nVALUE s 0 3\r\n10 \r\nEND\r\n"

    test {a 21-digit zero-padded value: 1 + 1 = 2, padded to 21 bytes} {
        mc_exchange $fd "set zp 0 0 21\r\n000000000000000000001\r\nincr zp 1\r\nget zp\r\n"
    } "STORED\r\n2\r\nVALUE zp 0 21\r\n2[string repeat { } 20]\r\nEND\r\n"

    test {trailing spaces are allowed: "12  " + 1 = "13  "} {
        mc_exchange $fd "set ts 0 0 4\r\n12  \r\nincr ts 1\r\nget ts\r\n"
    } "STORED\r\n13\r\nVALUE ts 0 4\r\n13  \r\nEND\r\n"

    test {parsing stops at a \r inside the value: "1\r2" + 1 = 2} {
        mc_exchange $fd "set cr 0 0 3\r\n1\r2\r\nincr cr 1\r\n"
    } "STORED\r\n2\r\n"

    test {a same-length result: 19 + 1 = 20} {
        mc_exchange $fd "set sl 0 0 2\r\n19\r\nincr sl 1\r\nget sl\r\n"
    } "STORED\r\n20\r\nVALUE sl 0 2\r\n20\r\nEND\r\n"

    test {incr of an appended value: "1" . "2" + 1 = 13} {
        mc_exchange $fd "set ap 0 0 1\r\n1\r\nappend ap 0 0 1\r\n2\r\nincr ap 1\r\nget ap\r\n"
    } "STORED\r\nSTORED\r\n13\r\nVALUE ap 0 2\r\n13\r\nEND\r\n"

    test {"-0" is a number: -0 + 1 = 1} {
        mc_exchange $fd "set m0 0 0 2\r\n-0\r\nincr m0 1\r\n"
    } "STORED\r\n1\r\n"

    test {only spaces, or hex, is non-numeric} {
        mc_exchange $fd "set sp 0 0 2\r\n  \r\nincr sp 1\r\nset hx 0 0 3\r\n0x5\r\nincr hx 1\r\n"
    } "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\nSTORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n"

    test {delta "-0" is 0; hex and decimal-point deltas are invalid} {
        mc_exchange $fd "set dd 0 0 1\r\n5\r\nincr dd -0\r\nincr dd 0x1\r\nincr dd 1.5\r\n"
    } "STORED\r\n5\r\nCLIENT_ERROR invalid numeric delta argument\r\nCLIENT_ERROR invalid numeric delta argument\r\n"

    test {a plus sign is accepted: "+5" + 1 = 6} {
        mc_exchange $fd "set s 0 0 2\r\n+5\r\nincr s 1\r\n"
    } "STORED\r\n6\r\n"

    foreach {what value} [list \
        {a word}            abc \
        {trailing garbage}  12a \
        {an empty value}    {} \
        {a negative number} -1 \
        {2^64}              18446744073709551616 \
    ] {
        test "incr of $what is CLIENT_ERROR non-numeric" {
            assert_equal [mc_set $fd nn $value] STORED
            mc_exchange $fd "incr nn 1\r\ndecr nn 1\r\nget nn\r\n"
        } "CLIENT_ERROR cannot increment or decrement non-numeric value\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\nVALUE nn 0 [string length $value]\r\n$value\r\nEND\r\n"
    }

    foreach {what delta} {
        {a word}            abc
        {a negative number} -1
        {2^64}              18446744073709551616
        {trailing garbage}  1x
    } {
        test "incr by $what is CLIENT_ERROR invalid numeric delta argument" {
            mc_exchange $fd "set d 0 0 1\r\n5\r\nincr d $delta\r\ndecr d $delta\r\nget d\r\n"
        } "STORED\r\nCLIENT_ERROR invalid numeric delta argument\r\nCLIENT_ERROR invalid numeric delta argument\r\nVALUE d 0 1\r\n5\r\nEND\r\n"
    }

    test {a bad delta is reported even for a missing key} {
        mc_exchange $fd "incr nokey abc\r\n"
    } "CLIENT_ERROR invalid numeric delta argument\r\n"

    test {deltas with a leading zero or plus sign} {
        mc_exchange $fd "set d 0 0 1\r\n1\r\nincr d 01\r\nincr d +1\r\n"
    } "STORED\r\n2\r\n3\r\n"

    test {incr without a delta is ERROR} {
        mc_exchange $fd "incr d\r\ndecr d\r\nincr\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\n"

    test {incr with too many tokens is ERROR} {
        mc_exchange $fd "incr d 1 noreply extra\r\nget d\r\n"
    } "ERROR\r\nVALUE d 0 1\r\n3\r\nEND\r\n"

    test {incr ignores an extra token that is not noreply} {
        mc_exchange $fd "incr d 1 junk\r\n"
    } "4\r\n"

    test {incr of a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "incr $K251 1\r\ndecr $K251 1\r\n"
    } "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\n"

    test {incr keeps the flags and changes the cas unique} {
        assert_equal [mc_set $fd fl 5 77] STORED
        set c1 [lindex [mc_gets $fd fl] 1]
        assert_equal [mc_cmd $fd "incr fl 1"] 6
        mc_send $fd "gets fl\r\n"
        set v [lindex [mc_read_values $fd] 0]
        assert_equal [lrange $v 0 2] {fl 77 6}
        assert_not_equal [lindex $v 3] $c1
    }

    test {incr keeps the TTL} {
        mc_exchange $fd "set ttl 0 100 1\r\n1\r\nincr ttl 100\r\ndebugtime 50\r\nget ttl\r\ndebugtime 60\r\nget ttl\r\n"
    } "STORED\r\n101\r\nOK\r\nVALUE ttl 0 3\r\n101\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {incr of an expired item is NOT_FOUND} {
        mc_exchange $fd "set ex 0 -1 1\r\n1\r\nincr ex 1\r\n"
    } "STORED\r\nNOT_FOUND\r\n"

    test {counters: incr_hits incr_misses decr_hits decr_misses} {
        set before [mc_stats $fd]
        mc_exchange $fd "set c 0 0 1\r\n5\r\nincr c 1\r\nincr c 1\r\nincr nokey 1\r\ndecr c 1\r\ndecr nokey 1\r\ndecr nokey 1\r\n"
        set after [mc_stats $fd]
        set out {}
        foreach s {incr_hits incr_misses decr_hits decr_misses} {
            lappend out [expr {[dict get $after $s] - [dict get $before $s]}]
        }
        set out
    } {2 1 1 2}

    test {1000 increments add up} {
        assert_equal [mc_set $fd many 0] STORED
        set cmds {}
        for {set i 0} {$i < 1000} {incr i} { append cmds "incr many 3\r\n" }
        mc_send $fd $cmds
        for {set i 1} {$i <= 1000} {incr i} {
            set r [mc_readline $fd]
            if {$r != $i * 3} { fail "reply $i was $r" }
        }
        mc_get $fd many
    } 3000
}
