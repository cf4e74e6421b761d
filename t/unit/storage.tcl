# Storage commands of the classic text protocol: set, add, replace, append,
# prepend and cas, with memcached 1.6.18's exact replies, flag rules and
# malformed-line handling.

set K250 [string repeat k 250]
set K251 [string repeat k 251]

start_server {tags {storage}} {
    set fd [mc_connect]

    # ---- set ------------------------------------------------------------

    test {set stores a value and get returns it} {
        mc_exchange $fd "set foo 0 0 3\r\nbar\r\nget foo\r\n"
    } "STORED\r\nVALUE foo 0 3\r\nbar\r\nEND\r\n"

    test {set overwrites the value and the flags} {
        mc_exchange $fd "set foo 7 0 5\r\nhello\r\nset foo 9 0 2\r\nhi\r\nget foo\r\n"
    } "STORED\r\nSTORED\r\nVALUE foo 9 2\r\nhi\r\nEND\r\n"

    test {set with a zero-length value} {
        mc_exchange $fd "set empty 1 0 0\r\n\r\nget empty\r\n"
    } "STORED\r\nVALUE empty 1 0\r\n\r\nEND\r\n"

    test {set keeps binary data: \r\n, NUL and high bytes inside a value} {
        set v "a\r\nb\0c\xff\r\nEND\r\n"
        assert_equal [mc_set $fd bin $v] STORED
        mc_exchange $fd "get bin\r\n"
    } "VALUE bin 0 14\r\na\r\nb\0c\xff\r\nEND\r\n\r\nEND\r\n"

    test {values on both sides of the copy limit (512 bytes with "\r\n") come back whole in one multi-get} {
        set want ""
        set keys ""
        foreach n {0 1 509 510 511 512 4000} {
            set v [string repeat [format %c [expr {97 + $n % 26}]] $n]
            assert_equal [mc_set $fd sz$n $v] STORED
            append want "VALUE sz$n 0 $n\r\n$v\r\n"
            append keys " sz$n"
        }
        assert_equal [mc_exchange $fd "get$keys\r\n"] "${want}END\r\n"
    } {}

    test {a 250-byte key is accepted} {
        mc_exchange $fd "set $K250 0 0 1\r\nx\r\nget $K250\r\n"
    } "STORED\r\nVALUE $K250 0 1\r\nx\r\nEND\r\n"

    test {a 251-byte key is CLIENT_ERROR and the data line is read as a command} {
        stock_memcached_only "it swallows the data block of a malformed storage line"
        mc_exchange $fd "set $K251 0 0 1\r\nx\r\n"
    } "CLIENT_ERROR bad command line format\r\nERROR\r\n"

    test {keys may contain control characters and high bytes} {
        mc_exchange $fd "set a\x01b\x7f\xfe 3 0 1\r\nx\r\nget a\x01b\x7f\xfe\r\n"
    } "STORED\r\nVALUE a\x01b\x7f\xfe 3 1\r\nx\r\nEND\r\n"

    test {a value of 500 KB round-trips} {
        set v [randstring 500000]
        assert_equal [mc_set $fd big $v] STORED
        assert_equal [mc_get $fd big] $v
    }

    # A value's tail is read straight into the item, and what follows it
    # into the read buffer in the same read: the commands after a large
    # value must come out whole, whether they arrived with it or later.
    test {commands pipelined right after large values are all answered, and bytes_read counts every byte} {
        set req {}
        set want {}
        for {set i 0} {$i < 6} {incr i} {
            set pv($i) [randstring [expr {20000 + 9000 * $i}]]
            append req "set pl$i $i 0 [string length $pv($i)]\r\n$pv($i)\r\nmn\r\n"
            append want "STORED\r\nMN\r\n"
        }
        append req "get pl0 pl5\r\n"
        append want "VALUE pl0 0 [string length $pv(0)]\r\n$pv(0)\r\n"
        append want "VALUE pl5 5 [string length $pv(5)]\r\n$pv(5)\r\nEND\r\n"
        set before [mc_stat $fd bytes_read]
        mc_send_bg $fd $req
        mc_expect $fd $want
        # less the "stats\r\n" that asked for the second figure
        expr {[mc_stat $fd bytes_read] - $before - [string length $req]}
    } 7

    test {a large value whose end and the next command arrive later is stored whole} {
        set v [randstring 70000]
        mc_send $fd "set late 0 0 70000\r\n[string range $v 0 29999]"
        after 50
        mc_send $fd "[string range $v 30000 end]\r\nget late\r\n"
        mc_expect $fd "STORED\r\nVALUE late 0 70000\r\n$v\r\nEND\r\n"
    }

    test {extra token that is not noreply is ignored} {
        mc_exchange $fd "set extra 0 0 1 whatever\r\nx\r\nget extra\r\n"
    } "STORED\r\nVALUE extra 0 1\r\nx\r\nEND\r\n"

    test {set with too few tokens is ERROR and its data line too} {
        mc_exchange $fd "set few 0 0\r\nx\r\nget few\r\n"
    } "ERROR\r\nERROR\r\nEND\r\n"

    test {set with too many tokens is ERROR and its data line too} {
        mc_exchange $fd "set many 0 0 1 noreply extra\r\nx\r\nget many\r\n"
    } "ERROR\r\nERROR\r\nEND\r\n"

    test {bare set is ERROR} {
        mc_exchange $fd "set\r\n"
    } "ERROR\r\n"

    # ---- flags (32-bit) ---------------------------------------------------

    test {flags 0 and 4294967295 round-trip} {
        mc_exchange $fd "set f0 0 0 1\r\nx\r\nset fmax 4294967295 0 1\r\ny\r\nget f0 fmax\r\n"
    } "STORED\r\nSTORED\r\nVALUE f0 0 1\r\nx\r\nVALUE fmax 4294967295 1\r\ny\r\nEND\r\n"

    test {flags 4294967296 are silently truncated to 0} {
        mc_exchange $fd "set fover 4294967296 0 1\r\nx\r\nget fover\r\n"
    } "STORED\r\nVALUE fover 0 1\r\nx\r\nEND\r\n"

    test {flags 4294967301 are truncated to 5} {
        mc_exchange $fd "set fover 4294967301 0 1\r\nx\r\nget fover\r\n"
    } "STORED\r\nVALUE fover 5 1\r\nx\r\nEND\r\n"

    test {flags 18446744073709551615 (2^64-1) are truncated to 4294967295} {
        mc_exchange $fd "set fover 18446744073709551615 0 1\r\nx\r\nget fover\r\n"
    } "STORED\r\nVALUE fover 4294967295 1\r\nx\r\nEND\r\n"

    test {flags of 9 and 10 digits, and 9 digits of leading zeros} {
        mc_exchange $fd "set f9 999999999 0 1\r\nx\r\nset f10 1000000000 0 1\r\ny\r\nset fzz 000000007 0 1\r\nz\r\nget f9 f10 fzz\r\n"
    } "STORED\r\nSTORED\r\nSTORED\r\nVALUE f9 999999999 1\r\nx\r\nVALUE f10 1000000000 1\r\ny\r\nVALUE fzz 7 1\r\nz\r\nEND\r\n"

    test {flags with a leading zero or plus sign are parsed as numbers} {
        mc_exchange $fd "set fz 010 0 1\r\nx\r\nset fp +7 0 1\r\ny\r\nget fz fp\r\n"
    } "STORED\r\nSTORED\r\nVALUE fz 10 1\r\nx\r\nVALUE fp 7 1\r\ny\r\nEND\r\n"

    foreach {what line} {
        {negative flags}        "set fbad -1 0 1"
        {non-numeric flags}     "set fbad abc 0 1"
        {flags of 2^64}         "set fbad 18446744073709551616 0 1"
        {flags with garbage}    "set fbad 1x 0 1"
        {non-numeric exptime}   "set fbad 0 abc 1"
        {exptime with garbage}  "set fbad 0 10s 1"
        {append with bad flags} "append fbad x 0 1"
    } {
        test "$what: CLIENT_ERROR, data line read as a command (1.6.18)" {
            stock_memcached_only "it swallows the data block of a malformed storage line"
            mc_exchange $fd "$line\r\nx\r\nget fbad\r\n"
        } "CLIENT_ERROR bad command line format\r\nERROR\r\nEND\r\n"

        test "$what: CLIENT_ERROR and the data block is swallowed" {
            mc_exchange $fd "$line\r\nx\r\nget fbad\r\n"
        } "CLIENT_ERROR bad command line format\r\nEND\r\n" {mcds-only}
    }

    test {a 251-byte key in set: CLIENT_ERROR and the data block is swallowed} {
        mc_exchange $fd "set $K251 0 0 1\r\nx\r\nget $K250\r\n"
    } "CLIENT_ERROR bad command line format\r\nVALUE $K250 0 1\r\nx\r\nEND\r\n" {mcds-only}

    # ---- length token ---------------------------------------------------

    test {negative length: CLIENT_ERROR, nothing swallowed} {
        mc_exchange $fd "set len 0 0 -1\r\nx\r\n"
    } "CLIENT_ERROR bad command line format\r\nERROR\r\n"

    test {negative length: the next command follows directly} {
        mc_exchange $fd "set len 0 0 -1\r\nget len\r\n"
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {length INT_MAX-1 is CLIENT_ERROR, nothing swallowed} {
        mc_exchange $fd "set len 0 0 2147483646\r\nget len\r\n"
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {length beyond 64 bits is CLIENT_ERROR, nothing swallowed} {
        mc_exchange $fd "set len 0 0 99999999999999999999\r\nget len\r\n"
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {non-numeric length is CLIENT_ERROR, nothing swallowed} {
        mc_exchange $fd "set len 0 0 abc\r\nget len\r\n"
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {length with trailing garbage is CLIENT_ERROR, nothing swallowed} {
        mc_exchange $fd "set len 0 0 1x\r\nget len\r\n"
    } "CLIENT_ERROR bad command line format\r\nEND\r\n"

    test {length 4294967297 is truncated to 32 bits (1)} {
        mc_exchange $fd "set len 0 0 4294967297\r\nx\r\nget len\r\n"
    } "STORED\r\nVALUE len 0 1\r\nx\r\nEND\r\n"

    test {length with a leading zero} {
        mc_exchange $fd "set len 0 0 03\r\nabc\r\nget len\r\n"
    } "STORED\r\nVALUE len 0 3\r\nabc\r\nEND\r\n"

    # ---- add --------------------------------------------------------------

    test {add on a missing key stores it} {
        mc_exchange $fd "add addk 3 0 1\r\nx\r\nget addk\r\n"
    } "STORED\r\nVALUE addk 3 1\r\nx\r\nEND\r\n"

    test {add on an existing key is NOT_STORED and keeps the value} {
        mc_exchange $fd "add addk 4 0 1\r\ny\r\nget addk\r\n"
    } "NOT_STORED\r\nVALUE addk 3 1\r\nx\r\nEND\r\n"

    test {add works again after delete} {
        mc_exchange $fd "delete addk\r\nadd addk 5 0 1\r\nz\r\nget addk\r\n"
    } "DELETED\r\nSTORED\r\nVALUE addk 5 1\r\nz\r\nEND\r\n"

    test {add on an expired key stores it} {
        mc_exchange $fd "set addx 0 -1 1\r\nx\r\nadd addx 0 0 1\r\ny\r\nget addx\r\n"
    } "STORED\r\nSTORED\r\nVALUE addx 0 1\r\ny\r\nEND\r\n"

    # ---- replace ----------------------------------------------------------

    test {replace on a missing key is NOT_STORED and creates nothing} {
        mc_exchange $fd "replace repk 0 0 1\r\nx\r\nget repk\r\n"
    } "NOT_STORED\r\nEND\r\n"

    test {replace on an existing key replaces value and flags} {
        mc_exchange $fd "set repk 5 0 1\r\nx\r\nreplace repk 9 0 2\r\nyy\r\nget repk\r\n"
    } "STORED\r\nSTORED\r\nVALUE repk 9 2\r\nyy\r\nEND\r\n"

    # ---- append / prepend -----------------------------------------------

    test {append on a missing key is NOT_STORED} {
        mc_exchange $fd "append appk 0 0 1\r\nx\r\nget appk\r\n"
    } "NOT_STORED\r\nEND\r\n"

    test {prepend on a missing key is NOT_STORED} {
        mc_exchange $fd "prepend appk 0 0 1\r\nx\r\nget appk\r\n"
    } "NOT_STORED\r\nEND\r\n"

    test {append adds at the end and keeps the old flags} {
        mc_exchange $fd "set appk 5 0 3\r\nabc\r\nappend appk 9 0 2\r\nde\r\nget appk\r\n"
    } "STORED\r\nSTORED\r\nVALUE appk 5 5\r\nabcde\r\nEND\r\n"

    test {prepend adds at the front and keeps the old flags} {
        mc_exchange $fd "prepend appk 7 0 2\r\nxy\r\nget appk\r\n"
    } "STORED\r\nVALUE appk 5 7\r\nxyabcde\r\nEND\r\n"

    test {append ignores its exptime (a negative one does not expire the item)} {
        mc_exchange $fd "append appk 0 -1 1\r\nz\r\nget appk\r\n"
    } "STORED\r\nVALUE appk 5 8\r\nxyabcdez\r\nEND\r\n"

    test {append and prepend of an empty block} {
        mc_exchange $fd "append appk 0 0 0\r\n\r\nprepend appk 0 0 0\r\n\r\nget appk\r\n"
    } "STORED\r\nSTORED\r\nVALUE appk 5 8\r\nxyabcdez\r\nEND\r\n"

    test {append to an empty value} {
        mc_exchange $fd "set appe 0 0 0\r\n\r\nappend appe 0 0 3\r\nabc\r\nget appe\r\n"
    } "STORED\r\nSTORED\r\nVALUE appe 0 3\r\nabc\r\nEND\r\n"

    test {many appends grow a value past 100 KB} {
        assert_equal [mc_set $fd grow {}] STORED
        set expect {}
        for {set i 0} {$i < 200} {incr i} {
            set chunk [string repeat [format %c [expr {65 + $i % 26}]] 600]
            append expect $chunk
            assert_equal [mc_set $fd grow $chunk 0 0 append] STORED
        }
        assert_equal [string length [mc_get $fd grow]] 120000
        assert_equal [mc_get $fd grow] $expect
    }

    # ---- cas ----------------------------------------------------------------

    test {gets returns a cas unique and cas with it stores} {
        assert_equal [mc_set $fd casa hello 3] STORED
        lassign [mc_gets $fd casa] v cas
        assert_equal $v hello
        assert_match {[1-9]*} $cas
        mc_exchange $fd "cas casa 4 0 3 $cas\r\nnew\r\nget casa\r\n"
    } "STORED\r\nVALUE casa 4 3\r\nnew\r\nEND\r\n"

    test {cas with a stale unique is EXISTS and keeps the value} {
        lassign [mc_gets $fd casa] v cas
        assert_equal [mc_set $fd casa newer] STORED
        mc_exchange $fd "cas casa 0 0 1 $cas\r\nx\r\nget casa\r\n"
    } "EXISTS\r\nVALUE casa 0 5\r\nnewer\r\nEND\r\n"

    test {cas on a missing key is NOT_FOUND} {
        mc_exchange $fd "cas casmissing 0 0 1 1\r\nx\r\nget casmissing\r\n"
    } "NOT_FOUND\r\nEND\r\n"

    test {cas on a deleted key is NOT_FOUND} {
        lassign [mc_gets $fd casa] v cas
        mc_exchange $fd "delete casa\r\ncas casa 0 0 1 $cas\r\nx\r\n"
    } "DELETED\r\nNOT_FOUND\r\n"

    test {cas 0 against an existing item is EXISTS} {
        mc_exchange $fd "set cas0 0 0 1\r\nx\r\ncas cas0 0 0 1 0\r\ny\r\n"
    } "STORED\r\nEXISTS\r\n"

    test {cas 2^64-1 against an existing item is EXISTS} {
        mc_exchange $fd "cas cas0 0 0 1 18446744073709551615\r\ny\r\n"
    } "EXISTS\r\n"

    test {every cas unique is different and changes on set, append, prepend, incr} {
        assert_equal [mc_set $fd u1 1] STORED
        assert_equal [mc_set $fd u2 1] STORED
        set c1 [lindex [mc_gets $fd u1] 1]
        set c2 [lindex [mc_gets $fd u2] 1]
        assert_not_equal $c1 $c2
        set seen [list $c1 $c2]
        foreach op {
            {set u1 0 0 1\r\n5\r\n}
            {append u1 0 0 1\r\n0\r\n}
            {prepend u1 0 0 1\r\n1\r\n}
            {incr u1 1\r\n}
            {decr u1 1\r\n}
        } {
            mc_send $fd [subst -nocommands -novariables $op]
            mc_readline $fd
            set c [lindex [mc_gets $fd u1] 1]
            assert_true {[lsearch -exact $seen $c] < 0} "cas $c repeated after [visible $op]"
            lappend seen $c
        }
    }

    test {touch and gat do not change the cas unique} {
        assert_equal [mc_set $fd tc x] STORED
        set c [lindex [mc_gets $fd tc] 1]
        assert_equal [mc_cmd $fd "touch tc 100"] TOUCHED
        mc_send $fd "gats 100 tc\r\n"
        set vals [mc_read_values $fd]
        assert_equal [lindex $vals 0 3] $c
        assert_equal [lindex [mc_gets $fd tc] 1] $c
    }

    test {cas replaces flags} {
        mc_exchange $fd "set cf 1 0 1\r\nx\r\n"
        set c [lindex [mc_gets $fd cf] 1]
        mc_exchange $fd "cas cf 77 0 1 $c\r\ny\r\nget cf\r\n"
    } "STORED\r\nVALUE cf 77 1\r\ny\r\nEND\r\n"

    test {cas without its unique is ERROR and the data line too} {
        mc_exchange $fd "cas cf 0 0 1\r\nx\r\n"
    } "ERROR\r\nERROR\r\n"

    foreach {what unique} {
        {non-numeric}   abc
        {negative}      -1
        {beyond 2^64-1} 18446744073709551616
    } {
        test "cas with a $what unique: CLIENT_ERROR, data line read as a command (1.6.18)" {
            stock_memcached_only "it swallows the data block of a malformed storage line"
            mc_exchange $fd "cas cf 0 0 1 $unique\r\nx\r\nget cf\r\n"
        } "CLIENT_ERROR bad command line format\r\nERROR\r\nVALUE cf 77 1\r\ny\r\nEND\r\n"

        test "cas with a $what unique: CLIENT_ERROR and the data block is swallowed" {
            mc_exchange $fd "cas cf 0 0 1 $unique\r\nx\r\nget cf\r\n"
        } "CLIENT_ERROR bad command line format\r\nVALUE cf 77 1\r\ny\r\nEND\r\n" {mcds-only}
    }

    test {cas counters: cas_hits, cas_badval, cas_misses} {
        set before [mc_stats $fd]
        assert_equal [mc_set $fd cs x] STORED
        set c [lindex [mc_gets $fd cs] 1]
        mc_exchange $fd "cas cs 0 0 1 $c\r\ny\r\ncas cs 0 0 1 $c\r\nz\r\ncas csnone 0 0 1 1\r\nz\r\n"
        set after [mc_stats $fd]
        list [expr {[dict get $after cas_hits] - [dict get $before cas_hits]}] \
            [expr {[dict get $after cas_badval] - [dict get $before cas_badval]}] \
            [expr {[dict get $after cas_misses] - [dict get $before cas_misses]}]
    } {1 1 1}

    test {storage commands count in cmd_set, failed ones too} {
        set before [mc_stat $fd cmd_set]
        mc_exchange $fd "set cs1 0 0 1\r\nx\r\nadd cs1 0 0 1\r\nx\r\nreplace nokey 0 0 1\r\nx\r\nappend cs1 0 0 1\r\nx\r\nprepend cs1 0 0 1\r\nx\r\ncas nokey 0 0 1 1\r\nx\r\n"
        expr {[mc_stat $fd cmd_set] - $before}
    } 6
}

start_server {tags {storage} args {-C}} {
    test {-C: gets shows a cas unique of 0} {
        set fd [mc_connect]
        mc_exchange $fd "set nc 0 0 1\r\nx\r\ngets nc\r\n"
    } "STORED\r\nVALUE nc 0 1 0\r\nx\r\nEND\r\n"

    test {-C: cas never matches, whatever the unique} {
        set fd [mc_connect]
        mc_exchange $fd "cas nc 0 0 1 0\r\ny\r\ncas nc 0 0 1 5\r\nz\r\ncas nonc 0 0 1 0\r\nz\r\nget nc\r\n"
    } "EXISTS\r\nEXISTS\r\nNOT_FOUND\r\nVALUE nc 0 1\r\nx\r\nEND\r\n"
}
