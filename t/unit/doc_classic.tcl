# Black-box tests of doc/protocol.md, "1. Classic text protocol": storage
# verbs, retrieval, touch, delete, incr/decr, flush_all, their errors and
# limits, written from the doc alone. Tests without the mcds-only tag check
# behaviour the doc gives as memcached 1.6.18's and also run against stock
# memcached (./runtest --server /usr/bin/memcached).

# dcl_x fd bytes -> the replies, CAS numbers of gets/gats masked as '#'.
proc dcl_x {fd bytes} {
    regsub -all -line {^(VALUE \S+ \d+ \d+) \d+(\r)$} [mc_exchange $fd $bytes] {\1 #\2} out
    return $out
}

# dcl_first line -> the first reply line to line (sent alone, with no
# data) on a connection of its own, closed after.
proc dcl_first {line} {
    set c [mc_connect]
    mc_send $c "$line\r\n"
    set r [mc_readline $c]
    mc_close $c
    return $r
}

proc dcl_stime {fd} { mc_stat $fd time }

start_server {tags {doc_classic} args {-t 1}} {
    set fd [mc_connect]

    # --- flush_all ---------------------------------------------------------

    test {flush_all: OK with no delay, 0 or a negative one; noreply silent; bad delays} {
        dcl_x $fd "flush_all\r\nflush_all 0\r\nflush_all -1\r\nflush_all noreply\r\nflush_all 0 noreply\r\nflush_all abc\r\nflush_all 10x\r\nflush_all -\r\nflush_all 99999999999999999999\r\nflush_all 1 2 3\r\nflush_all 0\r\n"
    } "OK\r\nOK\r\nOK\r\nCLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR invalid exptime argument\r\nERROR\r\nOK\r\n"

    # "flush_all [delay] [noreply]": in "flush_all noreply x" the delay
    # token is "noreply", which is not numeric (and the line does not end
    # in noreply): "CLIENT_ERROR invalid exptime argument for a non-numeric
    # delay" (memcached 1.6.18 answers so).
    test {flush_all: "flush_all noreply x" is a non-numeric delay} {
        dcl_x $fd "flush_all noreply x\r\nflush_all 0\r\n"
    } "CLIENT_ERROR invalid exptime argument\r\nOK\r\n"

    test {flush_all: items stored before are invalidated, items stored after are not (pipelined)} {
        dcl_x $fd "set a 0 0 1\r\n1\r\nset b 0 0 1\r\n2\r\nflush_all\r\nset c 0 0 1\r\n3\r\nget a b c\r\nadd a 0 0 1\r\n4\r\nget a\r\n"
    } "STORED\r\nSTORED\r\nOK\r\nSTORED\r\nVALUE c 0 1\r\n3\r\nEND\r\nSTORED\r\nVALUE a 0 1\r\n4\r\nEND\r\n"

    test {flush_all noreply flushes} {
        dcl_x $fd "set a 0 0 1\r\n1\r\nflush_all noreply\r\nget a\r\n"
    } "STORED\r\nEND\r\n"

    # "With a delay ... the items last accessed up to that time become
    # invalid when it arrives."
    test {flush_all 2: items stored before and after it go when the delay ends; later ones stay} {
        mc_exchange $fd "flush_all\r\n"
        set r1 [dcl_x $fd "set a 0 0 1\r\n1\r\nflush_all 2\r\nset b 0 0 1\r\n2\r\nget a b\r\n"]
        after 3100
        set r2 [dcl_x $fd "get a b\r\nset c 0 0 1\r\n3\r\nget c\r\n"]
        list $r1 $r2
    } [list "STORED\r\nOK\r\nSTORED\r\nVALUE a 0 1\r\n1\r\nVALUE b 0 1\r\n2\r\nEND\r\n" "END\r\nSTORED\r\nVALUE c 0 1\r\n3\r\nEND\r\n"]

    test {flush_all with an absolute time (as an exptime): items go when it arrives} {
        mc_exchange $fd "flush_all\r\n"
        set now [dcl_stime $fd]
        # 5 s ahead: a slow run (valgrind on a loaded machine) must still
        # read the item before the flush time arrives.
        set r1 [dcl_x $fd "set a 0 0 1\r\n1\r\nflush_all [expr {$now + 5}]\r\nget a\r\n"]
        after 6100
        list $r1 [dcl_x $fd "get a\r\n"]
    } [list "STORED\r\nOK\r\nVALUE a 0 1\r\n1\r\nEND\r\n" "END\r\n"]

    # Time and expiry: "an absolute Unix time; a time in the past expires at
    # once"; memcached 1.6.18 flushes every item stored so far when the
    # delay is an absolute time already past (but after its start).
    test {flush_all with an absolute time in the past (after the server started) flushes at once} {
        mc_exchange $fd "flush_all\r\n"
        after 1100
        set now [dcl_stime $fd]
        dcl_x $fd "set b 0 0 1\r\n2\r\nflush_all [expr {$now - 1}]\r\nget b\r\n"
    } "STORED\r\nOK\r\nEND\r\n"

    # --- storage -----------------------------------------------------------

    test {storage replies: STORED NOT_STORED EXISTS NOT_FOUND} {
        mc_exchange $fd "flush_all\r\n"
        dcl_x $fd "add k 0 0 1\r\na\r\nadd k 0 0 1\r\nb\r\nreplace nope 0 0 1\r\nx\r\nappend nope 0 0 1\r\nx\r\nprepend nope 0 0 1\r\nx\r\nreplace k 0 0 1\r\nr\r\nappend k 0 0 1\r\nz\r\nprepend k 0 0 1\r\na\r\nget k\r\ncas nope 0 0 1 1\r\nx\r\ncas k 0 0 1 1\r\nx\r\n"
    } "STORED\r\nNOT_STORED\r\nNOT_STORED\r\nNOT_STORED\r\nNOT_STORED\r\nSTORED\r\nSTORED\r\nSTORED\r\nVALUE k 0 3\r\narz\r\nEND\r\nNOT_FOUND\r\nEXISTS\r\n"

    test {storage: cas with the CAS gets returned stores; a second one with it is EXISTS} {
        mc_exchange $fd "flush_all\r\nset k 0 0 1\r\na\r\n"
        lassign [mc_gets $fd k] v c
        list [mc_cas $fd k b $c] [mc_cas $fd k c $c] [mc_get $fd k]
    } {STORED EXISTS b}

    # "set k 0 0 3\r\nabcdef\r\n answers CLIENT_ERROR bad data chunk then ERROR"
    test {storage: data of the wrong length is a bad data chunk, nothing stored, the rest read as a command} {
        mc_exchange $fd "flush_all\r\n"
        dcl_x $fd "set k 0 0 3\r\nabcdef\r\nget k\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nEND\r\n"

    test {storage: bad command line format (key over 250, bad numbers, negative or too large length)} {
        set out {}
        foreach line [list "set [string repeat k 251] 0 0 1" "set k x 0 1" "set k 0 x 1" "set k 0 0 -1" \
                "set k 0 0 2147483646" "set k 0 0 x" "cas k 0 0 1 x" "cas k 0 0 1 -1" "add k -1 0 1" \
                "set k 4294967296x 0 1" "append k 0 99999999999999999999 1"] {
            lappend out [dcl_first $line]
        }
        lsort -unique $out
    } {{CLIENT_ERROR bad command line format}}

    # "With a negative or unparseable length nothing is discarded."
    test {storage: with a negative or unparseable length the data is read as a command} {
        dcl_x $fd "set k 0 0 -1\r\nmn\r\nset k 0 0 x\r\nmn\r\n"
    } "CLIENT_ERROR bad command line format\r\nMN\r\nCLIENT_ERROR bad command line format\r\nMN\r\n"

    test {storage: wrong number of tokens is ERROR} {
        dcl_x $fd "set a 0 0\r\ncas a 0 0 1\r\nmn\r\nset\r\nadd a\r\n"
    } "ERROR\r\nERROR\r\nMN\r\nERROR\r\nERROR\r\n"

    test {storage: a key of 250 bytes is stored and read} {
        set k [string repeat k 250]
        dcl_x $fd "set $k 0 0 1\r\nx\r\nget $k\r\n"
    } "STORED\r\nVALUE [string repeat k 250] 0 1\r\nx\r\nEND\r\n"

    test {storage: a 0-byte value} {
        dcl_x $fd "set z 0 0 0\r\n\r\nget z\r\n"
    } "STORED\r\nVALUE z 0 0\r\n\r\nEND\r\n"

    # "a value that does not fit in 32 bits is truncated to its low 32 bits
    # (so a flags value of 4294967296 is stored as 0), a leading + is
    # accepted, -1 is an error where an unsigned value is expected."
    test {storage: flags truncated to 32 bits, leading + accepted, -1 refused} {
        list [dcl_x $fd "set f 4294967296 0 1\r\nx\r\nget f\r\nset f 4294967297 0 1\r\nx\r\nget f\r\nset f +7 +0 +1\r\nx\r\nget f\r\n"] \
            [dcl_first "set f -1 0 1"]
    } [list "STORED\r\nVALUE f 0 1\r\nx\r\nEND\r\nSTORED\r\nVALUE f 1 1\r\nx\r\nEND\r\nSTORED\r\nVALUE f 7 1\r\nx\r\nEND\r\n" "CLIENT_ERROR bad command line format"]

    test {storage: negative exptime stores an item already expired; an absolute time in the past too} {
        dcl_x $fd "set e 0 -1 1\r\nx\r\nget e\r\nset e 0 1000000000 1\r\nx\r\nget e\r\n"
    } "STORED\r\nEND\r\nSTORED\r\nEND\r\n"

    test {storage: a sixth token on set that is not noreply is ignored} {
        dcl_x $fd "set s 0 0 1 junk\r\nx\r\nget s\r\n"
    } "STORED\r\nVALUE s 0 1\r\nx\r\nEND\r\n"

    test {storage: append/prepend keep the item's flags and exptime} {
        mc_exchange $fd "flush_all\r\nset ap 5 100 1\r\nb\r\n"
        set r [dcl_x $fd "append ap 9 0 1\r\nc\r\nprepend ap 8 -1 1\r\na\r\nmg ap v f t\r\n"]
        # t counts down: a slow run (valgrind) may cross a second
        # boundary after the set; the exptime kept is 100 s, not 0 or -1.
        regsub {^(STORED\r\nSTORED\r\nVA 3 f5 t)(99|100)(\r\nabc\r\n)$} $r {\1100\3}
    } "STORED\r\nSTORED\r\nVA 3 f5 t100\r\nabc\r\n"

    test {storage: every successful store gives a new CAS} {
        mc_exchange $fd "flush_all\r\nset c 0 0 1\r\na\r\n"
        set c1 [lindex [mc_gets $fd c] 1]
        mc_exchange $fd "append c 0 0 1\r\nb\r\n"
        set c2 [lindex [mc_gets $fd c] 1]
        mc_exchange $fd "incr nope 1\r\nset c 0 0 1\r\n1\r\n"
        set c3 [lindex [mc_gets $fd c] 1]
        mc_exchange $fd "incr c 1\r\n"
        set c4 [lindex [mc_gets $fd c] 1]
        list [expr {$c2 != $c1}] [expr {$c3 != $c2}] [expr {$c4 != $c3}]
    } {1 1 1}

    test {noreply: every storage verb, incr, decr, touch and delete send nothing} {
        mc_exchange $fd "flush_all\r\nset c 0 0 1\r\n1\r\n"
        set c [lindex [mc_gets $fd c] 1]
        dcl_x $fd "set a 0 0 1 noreply\r\n1\r\nadd a 0 0 1 noreply\r\n1\r\nreplace a 0 0 1 noreply\r\n2\r\nappend a 0 0 1 noreply\r\n3\r\nprepend a 0 0 1 noreply\r\n0\r\ncas c 0 0 1 $c noreply\r\n5\r\ncas c 0 0 1 $c noreply\r\n6\r\nincr a 1 noreply\r\ndecr a 2 noreply\r\nincr nope 1 noreply\r\ntouch a 100 noreply\r\ntouch nope 1 noreply\r\ndelete nope noreply\r\nget a c\r\ndelete a noreply\r\nget a\r\n"
    } "VALUE a 0 3\r\n22 \r\nVALUE c 0 1\r\n5\r\nEND\r\nEND\r\n"

    # "Numbers are parsed as memcached parses them": memcached's strtol /
    # strtoull accept trailing whitespace (tab, \v, \f) in a token, and a
    # tab is not a separator.
    test {numbers: a token ending in a tab is parsed as memcached parses it} {
        mc_exchange $fd "flush_all\r\nset x 0 0 1\r\n1\r\n"
        dcl_x $fd "incr x 1\t\r\ndecr x 1\t\r\nset y 5\t 0 1\r\nz\r\nset y 0 0\t 1\r\nz\r\nset y 0 0 1\t\r\nz\r\ntouch x 10\t\r\ngat 10\t x\r\n"
    } "2\r\n1\r\nSTORED\r\nSTORED\r\nSTORED\r\nTOUCHED\r\nVALUE x 0 1\r\n1\r\nEND\r\n"

    test {numbers: a token ending in \v or \f is parsed as memcached parses it} {
        mc_exchange $fd "flush_all\r\nset x 0 0 1\r\n1\r\n"
        dcl_x $fd "incr x 1\x0b\r\nincr x 1\x0c\r\nflush_all 0\x0b\r\n"
    } "2\r\n3\r\nOK\r\n"

    # --- retrieval, touch, delete -----------------------------------------

    test {get: values in request order, a key may repeat; gets adds the CAS} {
        mc_exchange $fd "flush_all\r\nset a 1 0 1\r\nA\r\nset b 2 0 1\r\nB\r\n"
        dcl_x $fd "get b nope a b\r\ngets a\r\n"
    } "VALUE b 2 1\r\nB\r\nVALUE a 1 1\r\nA\r\nVALUE b 2 1\r\nB\r\nEND\r\nVALUE a 1 1 #\r\nA\r\nEND\r\n"

    test {get: a key over 250 bytes anywhere makes the reply CLIENT_ERROR alone; get with no key is ERROR} {
        set k [string repeat k 251]
        dcl_x $fd "get a $k\r\nget\r\n"
    } "CLIENT_ERROR bad command line format\r\nERROR\r\n"

    test {gat/gats: set the exptime and return the items; bad exptime; no key answers END} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\nA\r\n"
        dcl_x $fd "gat 100 a nope\r\nmg a t\r\ngats 200 a\r\nmg a t\r\ngat x a\r\ngat 10\r\n"
    } "VALUE a 0 1\r\nA\r\nEND\r\nHD t100\r\nVALUE a 0 1 #\r\nA\r\nEND\r\nHD t200\r\nCLIENT_ERROR invalid exptime argument\r\nEND\r\n"

    test {gat with a negative exptime returns the item and expires it} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\nA\r\n"
        dcl_x $fd "gat -1 a\r\nget a\r\n"
    } "VALUE a 0 1\r\nA\r\nEND\r\nEND\r\n"

    test {touch: TOUCHED, NOT_FOUND, bad exptime, key too long; negative expires} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\nA\r\n"
        set k [string repeat k 251]
        dcl_x $fd "touch a 100\r\nmg a t\r\ntouch nope 1\r\ntouch a x\r\ntouch $k 1\r\ntouch a -1\r\nget a\r\n"
    } "TOUCHED\r\nHD t100\r\nNOT_FOUND\r\nCLIENT_ERROR invalid exptime argument\r\nCLIENT_ERROR bad command line format\r\nTOUCHED\r\nEND\r\n"

    test {delete: DELETED, NOT_FOUND, the legacy 0, other extra tokens, too many tokens} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\nA\r\nset b 0 0 1\r\nB\r\n"
        dcl_x $fd "delete a\r\ndelete a\r\ndelete b 0\r\ndelete b 1\r\ndelete b x y z\r\ndelete\r\n"
    } "DELETED\r\nNOT_FOUND\r\nDELETED\r\nCLIENT_ERROR bad command line format.  Usage: delete <key> \[noreply\]\r\nERROR\r\nERROR\r\n"

    # --- incr / decr --------------------------------------------------------

    test {incr/decr: wrap at 2^64, stop at 0, NOT_FOUND} {
        mc_exchange $fd "flush_all\r\nset n 0 0 20\r\n18446744073709551615\r\n"
        dcl_x $fd "incr n 1\r\ndecr n 5\r\nincr n 18446744073709551615\r\nincr nope 1\r\ndecr nope 1\r\n"
    } "0\r\n0\r\n18446744073709551615\r\nNOT_FOUND\r\nNOT_FOUND\r\n"

    test {incr/decr: bad deltas answer invalid numeric delta argument} {
        mc_exchange $fd "flush_all\r\nset n 0 0 1\r\n5\r\n"
        dcl_x $fd "incr n -1\r\nincr n x\r\nincr n 18446744073709551616\r\ndecr n 1x\r\nincr n\r\nincr n +1\r\n"
    } "CLIENT_ERROR invalid numeric delta argument\r\nCLIENT_ERROR invalid numeric delta argument\r\nCLIENT_ERROR invalid numeric delta argument\r\nCLIENT_ERROR invalid numeric delta argument\r\nERROR\r\n6\r\n"

    # "(so " 12" incremented is 13, "9 5" is 10)"; "100 decremented by 1 is
    # stored as "99 ", 3 bytes"
    test {incr/decr: leading and trailing blanks; in-place results right-padded} {
        mc_exchange $fd "flush_all\r\nset s 0 0 3\r\n 12\r\nset t 0 0 3\r\n9 5\r\nset h 3 100 3\r\n100\r\n"
        dcl_x $fd "incr s 1\r\nincr t 1\r\ndecr h 1\r\nget h\r\nmg h f t\r\nincr h 1\r\nget h\r\nincr h 900\r\nget h\r\n"
    } "13\r\n10\r\n99\r\nVALUE h 3 3\r\n99 \r\nEND\r\nHD f3 t100\r\n100\r\nVALUE h 3 3\r\n100\r\nEND\r\n1000\r\nVALUE h 3 4\r\n1000\r\nEND\r\n"

    test {incr/decr: a value that is not a decimal number} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\nx\r\nset b 0 0 0\r\n\r\nset c 0 0 2\r\n-1\r\nset d 0 0 20\r\n18446744073709551616\r\n"
        dcl_x $fd "incr a 1\r\nincr b 1\r\ndecr c 1\r\nincr d 1\r\n"
    } [string repeat "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n" 4]

    # --- lines ------------------------------------------------------------

    test {lines: a bare \n ends a line; command names are case-sensitive; empty line is ERROR} {
        mc_exchange $fd "flush_all\r\n"
        dcl_x $fd "set x 0 0 1\nA\r\nget x\nGET x\r\n\r\n"
    } "STORED\r\nVALUE x 0 1\r\nA\r\nEND\r\nERROR\r\nERROR\r\n"

    test {lines: a tab is not a separator, control characters are key bytes} {
        mc_exchange $fd "flush_all\r\n"
        dcl_x $fd "set a\tb 0 0 1\r\nx\r\nget a\tb\r\nget a\r\nset \x01\x7f 0 0 1\r\ny\r\nget \x01\x7f\r\n"
    } "STORED\r\nVALUE a\tb 0 1\r\nx\r\nEND\r\nEND\r\nSTORED\r\nVALUE \x01\x7f 0 1\r\ny\r\nEND\r\n"

    test {lines: a command split across writes} {
        mc_send $fd "se"
        after 50
        mc_send $fd "t sp 0 0 3\r\na"
        after 50
        dcl_x $fd "bc\r\nget sp\r\n"
    } "STORED\r\nVALUE sp 0 3\r\nabc\r\nEND\r\n"
}

# -F: "CLIENT_ERROR flush_all not allowed when started with -F"; noreply
# "sends no reply at all, not even an error".
start_server {tags {doc_classic} args {-t 1 -F}} {
    set fd [mc_connect]
    test {flush_all with -F: CLIENT_ERROR flush_all not allowed, nothing flushed; noreply silent} {
        dcl_x $fd "set a 0 0 1\r\n1\r\nflush_all\r\nflush_all 0\r\nflush_all noreply\r\nflush_all 0 noreply\r\nget a\r\n"
    } "STORED\r\nCLIENT_ERROR flush_all not allowed\r\nCLIENT_ERROR flush_all not allowed\r\nVALUE a 0 1\r\n1\r\nEND\r\n"
}

# mcds's own behaviour (Differences and mcds-only limits).
start_server {tags {doc_classic mcds-only} args {-t 1}} {
    set fd [mc_connect]

    # "An immediate flush takes its items out before it answers OK, so
    # curr_items, bytes ... have dropped when the answer comes."
    test {flush_all (mcds): curr_items and bytes are 0 when OK arrives} {
        mc_exchange $fd "flush_all\r\n"
        mc_fill $fd fl 2000 50
        assert_equal [mc_stat $fd curr_items] 2000
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        list [mc_stat $fd curr_items] [mc_stat $fd bytes]
    } {0 0}

    # "on mcds only a delayed flush leaves items for get_flushed to count"
    test {flush_all (mcds): a get after an immediate flush does not count get_flushed} {
        mc_exchange $fd "set a 0 0 1\r\n1\r\n"
        mc_exchange $fd "flush_all\r\n"
        set before [mc_stat $fd get_flushed]
        mc_exchange $fd "get a\r\n"
        expr {[mc_stat $fd get_flushed] - $before}
    } 0

    # "Both hold whatever CAS E gave an item"
    test {flush_all (mcds): an E CAS above every number is flushed; one below kept after} {
        mc_exchange $fd "flush_all\r\nms hi 1 E9999999999999\r\nx\r\n"
        dcl_x $fd "flush_all\r\nms lo 1 E1\r\ny\r\nget hi lo\r\n"
    } "OK\r\nHD\r\nVALUE lo 0 1\r\ny\r\nEND\r\n"

    # Difference: "when a storage line is malformed but its <bytes> token is
    # a valid length, mcds discards the following data block"
    test {storage (mcds): a malformed line with a valid length discards its data} {
        set k [string repeat k 251]
        mc_exchange $fd "set k x 0 3\r\nabc\r\nset k 0 x 3\r\nabc\r\ncas k 0 0 1 -1\r\nx\r\nset $k 0 0 1\r\nx\r\nmn\r\n"
    } "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\nMN\r\n"

    # "a line of more than 2048 bytes (\r\n not counted) ... the connection
    # is closed"
    test {lines (mcds): a 2048-byte line is served, a 2049-byte one closes the connection} {
        set l2048 "set k 0 0 1[string repeat " " 2037]"
        set ok [mc_exchange $fd "$l2048\r\nx\r\n"]
        set c2 [mc_connect]
        mc_send $c2 "set k 0 0 1[string repeat " " 2038]\r\nx\r\n"
        list $ok [mc_is_closed $c2]
    } [list "STORED\r\n" 1]
}

# "-I": the item (header + key + data) over the limit.
start_server {tags {doc_classic mcds-only} args {-t 1 -I 2k}} {
    set fd [mc_connect]
    set big [string repeat x 3000]

    test {-I (mcds): an over-size set answers object too large, reads the data, deletes the old value} {
        mc_exchange $fd "set k 0 0 1\r\n1\r\n"
        mc_exchange $fd "set k 0 0 3000\r\n$big\r\nget k\r\n"
    } "SERVER_ERROR object too large for cache\r\nEND\r\n"

    test {-I (mcds): other verbs answer object too large and keep the old value (size checked first)} {
        mc_exchange $fd "set k 0 0 1\r\n1\r\n"
        mc_exchange $fd "add k 0 0 3000\r\n$big\r\nreplace k 0 0 3000\r\n$big\r\ncas k 0 0 3000 1\r\n$big\r\nadd new 0 0 3000\r\n$big\r\nget k new\r\n"
    } "SERVER_ERROR object too large for cache\r\nSERVER_ERROR object too large for cache\r\nSERVER_ERROR object too large for cache\r\nSERVER_ERROR object too large for cache\r\nVALUE k 0 1\r\n1\r\nEND\r\n"

    test {-I (mcds): append/prepend past the limit answer NOT_STORED and keep the item} {
        set v [string repeat y 1900]
        mc_exchange $fd "set k 0 0 1900\r\n$v\r\n"
        mc_exchange $fd "append k 0 0 200\r\n[string repeat z 200]\r\nprepend k 0 0 200\r\n[string repeat z 200]\r\nmg k s\r\n"
    } "NOT_STORED\r\nNOT_STORED\r\nHD s1900\r\n"

    test {-I (mcds): ms over-size answers object too large and discards the data} {
        mc_exchange $fd "set k 0 0 1\r\n1\r\n"
        mc_exchange $fd "ms k 3000\r\n$big\r\nmg k\r\n"
    } "SERVER_ERROR object too large for cache\r\nEN\r\n"
}

# -M with little memory: "SERVER_ERROR out of memory storing object ...; a
# set also deletes the old cache value"; meta ma's out-of-memory replies.
start_server {tags {doc_classic mcds-only} args {-t 1 -m 2 -M}} {
    set fd [mc_connect]
    test {-M (mcds): a full cache answers out of memory storing object, a set deletes the old value} {
        mc_exchange $fd "set old 0 0 2\r\n99\r\nset n9 0 0 1\r\n9\r\nset keep 0 0 1\r\nk\r\n"
        set v [string repeat f 1000]
        set full 0
        for {set i 0} {$i < 40 && !$full} {incr i} {
            set b ""
            for {set j 0} {$j < 100} {incr j} { append b "set f$i.$j 0 0 1000 noreply\r\n$v\r\n" }
            if {[string match *SERVER_ERROR* [mc_exchange $fd $b]]} { set full 1 }
        }
        # small values too, until nothing fits
        foreach n {500 100 20 1} {
            for {set i 0} {$i < 5000} {incr i} {
                if {[mc_exchange $fd "set s$n.$i 0 0 $n\r\n[string repeat s $n]\r\n"] ne "STORED\r\n"} break
            }
        }
        list [mc_exchange $fd "set old 0 0 1000\r\n$v\r\nget old\r\nadd keep 0 0 1000\r\n$v\r\nget keep\r\n"]
    } [list "SERVER_ERROR out of memory storing object\r\nEND\r\nSERVER_ERROR out of memory storing object\r\nVALUE keep 0 1\r\nk\r\nEND\r\n"]

    # "SERVER_ERROR out of memory for a number it holds (a longer number ...:
    # the item, its TTL included, is left as it was) and SERVER_ERROR Out of
    # memory allocating new item for one N would create"
    test {-M (mcds): ma out of memory replies, the item left as it was} {
        for {set i 0} {$i < 5000} {incr i} {
            if {[mc_exchange $fd "set t$i 0 0 1\r\nt\r\n"] ne "STORED\r\n"} break
        }
        mc_exchange $fd "ma n9 v T100\r\nmg n9 v t\r\nma newkey N0 v\r\nincr n9 1\r\n"
    } "SERVER_ERROR out of memory\r\nVA 1 t-1\r\n9\r\nSERVER_ERROR Out of memory allocating new item\r\nSERVER_ERROR out of memory\r\n"
}
