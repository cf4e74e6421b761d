# Black-box tests of doc/protocol.md, "4. Binary protocol" (packets, the
# command table, quiet forms, CAS, status codes, bad requests), written
# from the doc alone. The doc says the binary protocol is "answered as
# memcached 1.6.18 answers it", so tests without the mcds-only tag also run
# with ./runtest --server /usr/bin/memcached.

# dbin_x fd bytes -> bin_exchange with whether each response carries a CAS
# (cas=0 or cas=#).
proc dbin_x {fd bytes} {
    bin_exchange $fd $bytes 1
}

# dbin_closed fd bytes -> {the responses read before the close} after
# sending bytes; fails if the connection stays open.
proc dbin_closed {fd bytes} {
    mc_send $fd $bytes
    set out {}
    set buf [mc_read_until_close $fd]
    while {[string length $buf] >= 24} {
        binary scan $buf cucuSucucuSuIu magic op kl el dt st bl
        set body [string range $buf 24 [expr {23 + $bl}]]
        set buf [string range $buf [expr {24 + $bl}] end]
        lappend out [list [bin_opname $op] [dict get $::bin_statuses $st] [string range $body [expr {$kl + $el}] end]]
    }
    return $out
}

start_server {tags {doc_binary}} {
    set fd [mc_connect]
    set tfd [mc_connect]
    mc_cmd $tfd version

    # "Every response carries the request's opcode and opaque; error
    # responses have CAS 0, no extras and no key, and the error text as
    # their value."
    test {binary: every response echoes opcode and opaque; errors have CAS 0, no extras, no key} {
        mc_exchange $tfd "flush_all\r\nset here 3 0 1\r\nx\r\n"
        set out {}
        foreach {op args} [list \
            GET {-key nokey} ADD {-key here -ext [bin_store_ext] -value y} \
            REPLACE {-key nokey -ext [bin_store_ext] -value y} APPEND {-key nokey -value y} \
            DELETE {-key nokey} INCREMENT {-key here -ext [bin_arith_ext 1]} \
            TOUCH {-key nokey -ext [bin_u32 0]} 0x50 {}] {
            set r [bin_cmd $fd [bin_pkt $op {*}[subst $args] -opaque 0xabcd1234 -cas 77]]
            lappend out [list [dict get $r op] [dict get $r opaque] [dict get $r cas] \
                [dict get $r extlen] [dict get $r keylen] [expr {[dict get $r value] ne {}}]]
        }
        set out
    } [list {0 2882343476 0 0 0 1} {2 2882343476 0 0 0 1} {3 2882343476 0 0 0 1} \
           {14 2882343476 0 0 0 1} {4 2882343476 0 0 0 1} {5 2882343476 0 0 0 1} \
           {28 2882343476 0 0 0 1} {80 2882343476 0 0 0 1}]

    # The command table, row by row.
    test {binary: get, getk, getq, getkq hit: flags, key only for the k forms, value, CAS} {
        mc_exchange $tfd "flush_all\r\n"
        dbin_x $fd [string cat [bin_pkt SET -key g1 -ext [bin_store_ext 9 0] -value hey] \
            [bin_pkt GET -key g1] [bin_pkt GETK -key g1] [bin_pkt GETQ -key g1] [bin_pkt GETKQ -key g1]]
    } {{SET OK cas=#} {GET OK flags=9 hey cas=#} {GETK OK flags=9 key=g1 hey cas=#} {GETQ OK flags=9 hey cas=#} {GETKQ OK flags=9 key=g1 hey cas=#}}

    test {binary: gat, gatk, gatq, gatkq hit return the value as get does} {
        mc_exchange $tfd "flush_all\r\nset g2 4 0 2\r\nhi\r\n"
        dbin_x $fd [string cat [bin_pkt GAT -key g2 -ext [bin_u32 100]] [bin_pkt GATK -key g2 -ext [bin_u32 100]] \
            [bin_pkt GATQ -key g2 -ext [bin_u32 100]] [bin_pkt GATKQ -key g2 -ext [bin_u32 100]]]
    } {{GAT OK flags=4 hi cas=#} {GATK OK flags=4 key=g2 hi cas=#} {GATQ OK flags=4 hi cas=#} {GATKQ OK flags=4 key=g2 hi cas=#}}

    test {binary: gat sets the expiration (seen by mg t)} {
        mc_exchange $tfd "flush_all\r\nset g3 0 0 1\r\nx\r\n"
        bin_exchange $fd [bin_pkt GAT -key g3 -ext [bin_u32 500]]
        mc_exchange $tfd "mg g3 t\r\n"
    } "HD t500\r\n"

    test {binary: touch answers flags, no value, and a CAS} {
        mc_exchange $tfd "flush_all\r\nset g4 6 0 3\r\nabc\r\n"
        dbin_x $fd [bin_pkt TOUCH -key g4 -ext [bin_u32 0]]
    } {{TOUCH OK flags=6 cas=#}}

    test {binary: get, gat and touch misses are "Not found"; getk and gatk the key and no text; quiet misses say nothing} {
        mc_exchange $tfd "flush_all\r\n"
        dbin_x $fd [string cat [bin_pkt GET -key m] [bin_pkt GAT -key m -ext [bin_u32 0]] \
            [bin_pkt TOUCH -key m -ext [bin_u32 0]] [bin_pkt GETK -key m] [bin_pkt GATK -key m -ext [bin_u32 0]] \
            [bin_pkt GETQ -key m] [bin_pkt GETKQ -key m] [bin_pkt GATQ -key m -ext [bin_u32 0]] \
            [bin_pkt GATKQ -key m -ext [bin_u32 0]]]
    } {{GET KEY_ENOENT {Not found} cas=0} {GAT KEY_ENOENT {Not found} cas=0} {TOUCH KEY_ENOENT {Not found} cas=0} {GETK KEY_ENOENT key=m cas=0} {GATK KEY_ENOENT key=m cas=0}}

    test {binary: set, add, replace, append, prepend answer empty with the new CAS} {
        mc_exchange $tfd "flush_all\r\n"
        set r [dbin_x $fd [string cat [bin_pkt SET -key s -ext [bin_store_ext 1 0] -value b] \
            [bin_pkt ADD -key s2 -ext [bin_store_ext 2 0] -value x] \
            [bin_pkt REPLACE -key s -ext [bin_store_ext 3 0] -value c] \
            [bin_pkt APPEND -key s -value d] [bin_pkt PREPEND -key s -value a] [bin_pkt GET -key s]]]
        list $r [mc_getflags $tfd s2]
    } {{{SET OK cas=#} {ADD OK cas=#} {REPLACE OK cas=#} {APPEND OK cas=#} {PREPEND OK cas=#} {GET OK flags=3 acd cas=#}} {2 x}}

    test {binary: the quiet stores say nothing on success; their failures are sent} {
        mc_exchange $tfd "flush_all\r\nset q 0 0 1\r\nx\r\n"
        dbin_x $fd [string cat [bin_pkt SETQ -key q2 -ext [bin_store_ext] -value x] \
            [bin_pkt ADDQ -key q -ext [bin_store_ext] -value x] [bin_pkt ADDQ -key q3 -ext [bin_store_ext] -value x] \
            [bin_pkt REPLACEQ -key nope -ext [bin_store_ext] -value x] [bin_pkt REPLACEQ -key q -ext [bin_store_ext] -value y] \
            [bin_pkt APPENDQ -key nope -value x] [bin_pkt APPENDQ -key q -value z] \
            [bin_pkt PREPENDQ -key nope -value x] [bin_pkt DELETEQ -key q3] [bin_pkt DELETEQ -key q3] \
            [bin_pkt INCREMENTQ -key n -ext [bin_arith_ext 1 5 0]] [bin_pkt DECREMENTQ -key q -ext [bin_arith_ext 1]] \
            [bin_pkt GET -key q] [bin_pkt GET -key n]]
    } {{ADDQ KEY_EEXISTS {Data exists for key.} cas=0} {REPLACEQ KEY_ENOENT {Not found} cas=0} {APPENDQ NOT_STORED {Not stored.} cas=0} {PREPENDQ NOT_STORED {Not stored.} cas=0} {DELETEQ KEY_ENOENT {Not found} cas=0} {DECREMENTQ DELTA_BADVAL {Non-numeric server-side value for incr or decr} cas=0} {GET OK flags=0 yz cas=#} {GET OK flags=0 5 cas=#}}

    test {binary: delete answers empty} {
        mc_exchange $tfd "flush_all\r\nset d 0 0 1\r\nx\r\n"
        dbin_x $fd [string cat [bin_pkt DELETE -key d] [bin_pkt DELETE -key d]]
    } {{DELETE OK cas=0} {DELETE KEY_ENOENT {Not found} cas=0}}

    test {binary: increment and decrement answer the new number (8 bytes) and a CAS} {
        mc_exchange $tfd "flush_all\r\nset n 0 0 2\r\n10\r\n"
        set r [dbin_x $fd [string cat [bin_pkt INCREMENT -key n -ext [bin_arith_ext 5]] \
            [bin_pkt DECREMENT -key n -ext [bin_arith_ext 3]]]]
        list $r [mc_get $tfd n]
    } {{{INCREMENT OK num=15 cas=#} {DECREMENT OK num=12 cas=#}} 12}

    # "increment/decrement of a missing key stores initial (the delta is not
    # applied) with flags 0 and the given expiration"
    test {binary: incr/decr of a missing key store initial, flags 0, the given expiration} {
        mc_exchange $tfd "flush_all\r\n"
        set r [bin_exchange $fd [string cat [bin_pkt INCREMENT -key i1 -ext [bin_arith_ext 7 100 300]] \
            [bin_pkt DECREMENT -key i2 -ext [bin_arith_ext 7 3 0]]]]
        list $r [mc_getflags $tfd i1] [mc_exchange $tfd "mg i1 t\r\nmg i2 t v\r\n"]
    } [list {{INCREMENT OK num=100} {DECREMENT OK num=3}} {0 100} "HD t300\r\nVA 1 t-1\r\n3\r\n"]

    test {binary: incr/decr of a missing key with expiration 0xffffffff is "Not found" and creates nothing} {
        mc_exchange $tfd "flush_all\r\n"
        list [bin_exchange $fd [string cat [bin_pkt INCREMENT -key i3 -ext [bin_arith_ext 1 5 0xffffffff]] \
            [bin_pkt DECREMENTQ -key i3 -ext [bin_arith_ext 1 5 0xffffffff]]]] [mc_get $tfd i3]
    } {{{INCREMENT KEY_ENOENT {Not found}} {DECREMENTQ KEY_ENOENT {Not found}}} {}}

    test {binary: creating a key by incr counts neither a hit nor a miss; 0xffffffff on a miss is a miss} {
        mc_exchange $tfd "flush_all\r\n"
        set before [mc_stats $tfd]
        bin_exchange $fd [string cat [bin_pkt INCREMENT -key c1 -ext [bin_arith_ext 1 5 0]] \
            [bin_pkt DECREMENT -key c2 -ext [bin_arith_ext 1 5 0]] \
            [bin_pkt INCREMENT -key c3 -ext [bin_arith_ext 1 5 0xffffffff]] \
            [bin_pkt DECREMENT -key c3 -ext [bin_arith_ext 1 5 0xffffffff]]]
        stat_deltas $before [mc_stats $tfd] {incr_hits incr_misses decr_hits decr_misses}
    } {0 1 0 1}

    test {binary: increment wraps at 2^64, decrement stops at 0, a non-number is 0x06} {
        mc_exchange $tfd "flush_all\r\nset w 0 0 20\r\n18446744073709551614\r\nset z 0 0 1\r\n2\r\nset t 0 0 3\r\nabc\r\n"
        bin_exchange $fd [string cat [bin_pkt INCREMENT -key w -ext [bin_arith_ext 3]] \
            [bin_pkt DECREMENT -key z -ext [bin_arith_ext 5]] [bin_pkt INCREMENT -key t -ext [bin_arith_ext 1]]]
    } {{INCREMENT OK num=1} {DECREMENT OK num=0} {INCREMENT DELTA_BADVAL {Non-numeric server-side value for incr or decr}}}

    # CAS: "a non-zero CAS in the header of set, add or replace makes it a
    # compare-and-swap (any of the three: a mismatch is 0x02, a missing key
    # 0x01); append, prepend, delete and increment/decrement compare it too."
    test {binary: a wrong CAS on set, add, replace, append, prepend, delete, incr, decr is 0x02} {
        mc_exchange $tfd "flush_all\r\nset c 0 0 1\r\n1\r\n"
        set bad 987654321
        set r [bin_exchange $fd [string cat \
            [bin_pkt SET -key c -ext [bin_store_ext] -value 2 -cas $bad] \
            [bin_pkt ADD -key c -ext [bin_store_ext] -value 2 -cas $bad] \
            [bin_pkt REPLACE -key c -ext [bin_store_ext] -value 2 -cas $bad] \
            [bin_pkt APPEND -key c -value 2 -cas $bad] [bin_pkt PREPEND -key c -value 2 -cas $bad] \
            [bin_pkt DELETE -key c -cas $bad] [bin_pkt INCREMENT -key c -ext [bin_arith_ext 1] -cas $bad] \
            [bin_pkt DECREMENT -key c -ext [bin_arith_ext 1] -cas $bad]]]
        list [lsort -unique [lmap x $r {lrange $x 1 end}]] [mc_get $tfd c]
    } {{{KEY_EEXISTS {Data exists for key.}}} 1}

    test {binary: the right CAS stores; on a missing key set, add and replace with a CAS are "Not found"} {
        mc_exchange $tfd "flush_all\r\nset c 0 0 1\r\n1\r\n"
        set cas [dict get [bin_cmd $fd [bin_pkt GET -key c]] cas]
        set r [bin_exchange $fd [string cat [bin_pkt REPLACE -key c -ext [bin_store_ext] -value 5 -cas $cas] \
            [bin_pkt SET -key nx -ext [bin_store_ext] -value 2 -cas 5] \
            [bin_pkt ADD -key nx -ext [bin_store_ext] -value 2 -cas 5] \
            [bin_pkt REPLACE -key nx -ext [bin_store_ext] -value 2 -cas 5]]]
        list $r [mc_get $tfd c] [mc_get $tfd nx]
    } {{{REPLACE OK} {SET KEY_ENOENT {Not found}} {ADD KEY_ENOENT {Not found}} {REPLACE KEY_ENOENT {Not found}}} 5 {}}

    test {binary: a too large set is 0x03 "Too large.", its value is skipped and the old value removed} {
        mc_exchange $tfd "flush_all\r\nset big 0 0 3\r\nold\r\nset big2 0 0 3\r\nold\r\n"
        set v [string repeat x [expr {1024 * 1024 + 1}]]
        set r [bin_exchange $fd [string cat [bin_pkt SET -key big -ext [bin_store_ext] -value $v] \
            [bin_pkt SETQ -key big2 -ext [bin_store_ext] -value $v] [bin_pkt VERSION]]]
        list $r [mc_get $tfd big] [mc_get $tfd big2]
    } {{{SET E2BIG {Too large.}} {SETQ E2BIG {Too large.}} {VERSION OK 1.6.18}} {} {}}

    test {binary: a too large add, replace, append or prepend is "Too large." and keeps the old value} {
        mc_exchange $tfd "flush_all\r\nset big 0 0 3\r\nold\r\n"
        set v [string repeat x [expr {1024 * 1024 + 1}]]
        set r [bin_exchange $fd [string cat [bin_pkt REPLACE -key big -ext [bin_store_ext] -value $v] \
            [bin_pkt APPEND -key big -value $v] [bin_pkt PREPEND -key big -value $v]]]
        list $r [mc_get $tfd big]
    } {{{REPLACE E2BIG {Too large.}} {APPEND E2BIG {Too large.}} {PREPEND E2BIG {Too large.}}} old}

    test {binary: flush without a delay empties the cache before answering; flushq says nothing} {
        mc_exchange $tfd "flush_all\r\nset f1 0 0 1\r\nx\r\n"
        set r [bin_exchange $fd [string cat [bin_pkt FLUSH] [bin_pkt GET -key f1]]]
        mc_set $tfd f2 y
        lappend r {*}[bin_exchange $fd [string cat [bin_pkt FLUSHQ] [bin_pkt GET -key f2]]]
    } {{FLUSH OK} {GET KEY_ENOENT {Not found}} {GET KEY_ENOENT {Not found}}}

    test {binary: flush with a 4-byte absolute Unix time flushes when that time comes} {
        mc_exchange $tfd "flush_all\r\nset fa 0 0 1\r\nx\r\n"
        set now [dict get [mc_stats $tfd] time]
        set r [bin_exchange $fd [string cat [bin_pkt FLUSH -ext [bin_u32 [expr {$now + 2}]]] [bin_pkt GET -key fa]]]
        sleep_ms 3100
        lappend r {*}[bin_exchange $fd [bin_pkt GET -key fa]]
    } {{FLUSH OK} {GET OK flags=0 x} {GET KEY_ENOENT {Not found}}}

    test {binary: noop answers empty; version answers 1.6.18} {
        dbin_x $fd [string cat [bin_pkt NOOP] [bin_pkt VERSION]]
    } {{NOOP OK cas=0} {VERSION OK 1.6.18 cas=0}}

    test {binary: a multi-get of getkq ended by a noop: hits only, in order, then the noop} {
        mc_exchange $tfd "flush_all\r\nset k1 0 0 1\r\na\r\nset k3 0 0 1\r\nc\r\n"
        set req {}
        foreach k {k1 k2 k3 k4} { append req [bin_pkt GETKQ -key $k] }
        bin_exchange $fd $req
    } {{GETKQ OK flags=0 key=k1 a} {GETKQ OK flags=0 key=k3 c}}

    test {binary: a pipeline of 300 setq and 300 getkq with 1 KB values, ended by a noop} {
        mc_exchange $tfd "flush_all\r\n"
        set v [string repeat v 1000]
        set req {}
        for {set i 0} {$i < 300} {incr i} { append req [bin_pkt SETQ -key p$i -ext [bin_store_ext $i 0] -value $v] }
        for {set i 0} {$i < 300} {incr i} { append req [bin_pkt GETKQ -key p$i -opaque $i] }
        set r [bin_exchange $fd $req]
        set ok 0
        for {set i 0} {$i < 300} {incr i} {
            if {[lindex $r $i] eq [list GETKQ OK flags=$i key=p$i $v]} { incr ok }
        }
        list [llength $r] $ok
    } {300 300}

    test {binary: quit answers and closes; quitq closes without a reply} {
        set c [mc_connect]
        set a [dbin_closed $c [string cat [bin_pkt QUIT] [bin_pkt NOOP]]]
        set c2 [mc_connect]
        list $a [dbin_closed $c2 [string cat [bin_pkt NOOP] [bin_pkt QUITQ] [bin_pkt NOOP]]]
    } {{{QUIT OK {}}} {{NOOP OK {}}}}

    # ---- stat ----

    test {binary: stat without a key sends the general stats, the same names in the same order as text stats} {
        set c [mc_connect]
        mc_send $c [bin_pkt STAT]
        set names {}
        while 1 {
            set r [bin_read $c]
            if {[dict get $r keylen] == 0} break
            lappend names [dict get $r key]
        }
        set text [dict keys [mc_stats $tfd]]
        expr {$names eq $text ? "same" : "binary: $names\ntext: $text"}
    } same

    test {binary: stat settings, items, slabs, sizes send that group; a key starting with settings selects settings} {
        mc_exchange $tfd "set st 0 0 1\r\nx\r\n"
        set out {}
        foreach g {settings settingsXYZ items slabs sizes} {
            set d [bin_stats $fd $g]
            lappend out [lindex [dict keys $d] 0]
        }
        set out
    } {maxbytes maxbytes items:1:number 1:chunk_size sizes_status}

    test {binary: stat of another group is "Not found"} {
        bin_exchange $fd [string cat [bin_pkt STAT -key foo] [bin_pkt STAT -key itemsX] [bin_pkt STAT -key conns]]
    } {{STAT KEY_ENOENT {Not found}} {STAT KEY_ENOENT {Not found}} {STAT KEY_ENOENT {Not found}}}

    test {binary: stat reset (and a key starting with reset) sends only the empty packet and resets the counters} {
        mc_exchange $tfd "get nothing\r\n"
        set r [bin_exchange $fd [string cat [bin_pkt STAT -key reset] [bin_pkt STAT -key resetfoo]]]
        list $r [dict get [mc_stats $tfd] get_misses]
    } {{{STAT OK} {STAT OK}} 0}

    # ---- status codes and bad requests ----

    test {binary: unknown opcodes and verbosity are 0x81 "Unknown command"; the connection stays open} {
        set c [mc_connect]
        set r [bin_exchange $c [string cat [bin_pkt 0x25] [bin_pkt 0x7f] [bin_pkt 0xff]]]
        # (a NOOP after verbosity: memcached 1.6.18 swallows 4 bytes of
        # the next request, see the doc's Differences)
        mc_send $c [string cat [bin_pkt VERBOSITY -ext [bin_u32 1]] [bin_pkt NOOP]]
        lappend r [bin_show [bin_read $c]]
    } {{0x25 UNKNOWN_COMMAND {Unknown command}} {0x7f UNKNOWN_COMMAND {Unknown command}} {0xff UNKNOWN_COMMAND {Unknown command}} {VERBOSITY UNKNOWN_COMMAND {Unknown command}}}

    test {binary: without -Y the SASL opcodes are unknown commands} {
        bin_exchange $fd [string cat [bin_pkt SASL_LIST_MECHS] [bin_pkt SASL_AUTH -key PLAIN -value "\0a\0b"] \
            [bin_pkt SASL_STEP -key PLAIN -value x]]
    } {{SASL_LIST_MECHS UNKNOWN_COMMAND {Unknown command}} {SASL_AUTH UNKNOWN_COMMAND {Unknown command}} {SASL_STEP UNKNOWN_COMMAND {Unknown command}}}

    test {binary: a bad magic closes the connection without a reply only once 24 bytes have arrived} {
        set c [mc_connect]
        set bad [bin_pkt NOOP -magic 0x81]
        mc_send $c [string cat [bin_pkt NOOP] [string range $bad 0 22]]
        set first [bin_show [bin_read $c]]
        set open [expr {![mc_is_closed $c 300]}]
        mc_send $c [string index $bad 23]
        list $first $open [mc_read_until_close $c]
    } {{NOOP OK} 1 {}}

    test {binary: key plus extras longer than the body is "Unknown command", then the connection closes} {
        set out {}
        foreach p [list [bin_pkt SET -key abc -ext [bin_store_ext] -bodylen 10] \
                       [bin_pkt GAT -key k -ext [bin_u32 0] -bodylen 4] \
                       [bin_pkt INCREMENT -key k -ext [bin_arith_ext 1] -bodylen 12]] {
            lappend out [dbin_closed [mc_connect] [string cat $p [bin_pkt NOOP]]]
        }
        set out
    } {{{SET UNKNOWN_COMMAND {Unknown command}}} {{GAT UNKNOWN_COMMAND {Unknown command}}} {{INCREMENT UNKNOWN_COMMAND {Unknown command}}}}

    foreach {what pkt} [list \
        {a 251-byte key on delete}   [bin_pkt DELETE -key [string repeat k 251]] \
        {a 251-byte key on incr}     [bin_pkt INCREMENT -key [string repeat k 251] -ext [bin_arith_ext 1]] \
        {a 251-byte key on touch}    [bin_pkt TOUCH -key [string repeat k 251] -ext [bin_u32 0]] \
        {a 251-byte key on stat}     [bin_pkt STAT -key [string repeat k 251]] \
        {getk with extras}           [bin_pkt GETK -key k -ext [bin_u32 0]] \
        {getkq without a key}        [bin_pkt GETKQ] \
        {set with 4 bytes of extras} [bin_pkt SET -key k -ext [bin_u32 0] -value v] \
        {add without a key}          [bin_pkt ADD -ext [bin_store_ext] -value v] \
        {incr with a value}          [bin_pkt INCREMENT -key k -ext [bin_arith_ext 1] -value 1] \
        {decr without a key}         [bin_pkt DECREMENT -ext [bin_arith_ext 1]] \
        {delete without a key}       [bin_pkt DELETE] \
        {delete with a value}        [bin_pkt DELETE -key k -value v] \
        {flush with 8 bytes of extras} [bin_pkt FLUSH -ext [bin_store_ext]] \
        {noop with extras}           [bin_pkt NOOP -ext [bin_u32 0]] \
        {quitq with a value}         [bin_pkt QUITQ -value x] \
        {gatq without extras}        [bin_pkt GATQ -key k] \
        {touch without a key}        [bin_pkt TOUCH -ext [bin_u32 0]] \
    ] {
        test "binary: $what is \"Invalid arguments\", then the connection closes" {
            lmap r [dbin_closed [mc_connect] [string cat $pkt [bin_pkt NOOP]]] {lrange $r 1 end}
        } {{EINVAL {Invalid arguments}}}
    }

    test {binary: stat does not check the body length: the rest of the body is read as the next request} {
        set c [mc_connect]
        mc_send $c [bin_pkt STAT -key sizes -value [bin_pkt VERSION -opaque 5]]
        list [bin_show [bin_read $c]] [bin_show [bin_read $c]] [bin_show [bin_read $c]]
    } {{STAT OK key=sizes_status disabled} {STAT OK} {VERSION OK 1.6.18}}

    test {binary: expirations are unsigned: 0x80000000 and 0xfffffff0 are far-future Unix times, not negative} {
        mc_exchange $tfd "flush_all\r\n"
        bin_exchange $fd [string cat [bin_pkt SET -key x1 -ext [bin_store_ext 0 0x80000000] -value a] \
            [bin_pkt SET -key x2 -ext [bin_store_ext 0 0xfffffff0] -value b] \
            [bin_pkt GET -key x1] [bin_pkt GET -key x2]]
    } {{SET OK} {SET OK} {GET OK flags=0 a} {GET OK flags=0 b}}

    test {binary: an expiration of 2592001 (a Unix time in 1970) expires at once} {
        mc_exchange $tfd "flush_all\r\n"
        bin_exchange $fd [string cat [bin_pkt SET -key x3 -ext [bin_store_ext 0 2592001] -value a] [bin_pkt GET -key x3]]
    } {{SET OK} {GET KEY_ENOENT {Not found}}}

    test {binary: a random mix of valid and broken packets leaves the server answering} {
        expr {srand(42)}
        for {set i 0} {$i < 200} {incr i} {
            set c [mc_connect]
            set op [expr {int(rand() * 40)}]
            set key [string repeat k [lindex {0 1 250 251} [expr {int(rand() * 4)}]]]
            set ext [string repeat \x01 [lindex {0 4 8 20 3} [expr {int(rand() * 5)}]]]
            set args [list -key $key -ext $ext -value [string repeat v [expr {int(rand() * 3)}]] -cas [expr {int(rand() * 3)}]]
            if {rand() < 0.2} { lappend args -bodylen [expr {int(rand() * 300)}] }
            catch {mc_send $c [string cat [bin_pkt $op {*}$args] [bin_pkt NOOP]]}
            mc_close $c
        }
        bin_exchange [mc_connect] [bin_pkt VERSION]
    } {{VERSION OK 1.6.18}}
}

# "With -C every CAS sent is 0." The doc gives no Difference for -C, so
# a CAS a client sends is judged as memcached 1.6.18 judges it with -C:
# there set, add, replace, append and prepend ignore it (items have no
# CAS to compare), while delete and incr/decr compare it with 0.
# (No flush_all here: with -C memcached also hides items stored in the
# second of a flush.)
start_server {tags {doc_binary} args {-C}} {
    set fd [mc_connect]
    set tfd [mc_connect]

    test {binary -C: every CAS sent is 0} {
        mc_exchange $tfd "set c 0 0 1\r\n1\r\n"
        set out {}
        foreach p [list [bin_pkt SET -key c -ext [bin_store_ext] -value 2] [bin_pkt GET -key c] \
                       [bin_pkt INCREMENT -key c -ext [bin_arith_ext 1]] [bin_pkt TOUCH -key c -ext [bin_u32 0]]] {
            lappend out [dict get [bin_cmd $fd $p] cas]
        }
        set out
    } {0 0 0 0}

    # A CAS no server would hand out soon, so no item can hold it.
    set ::dbin_far 0x7fff00000000abcd

    test {binary -C: set, replace, append and prepend with a non-zero CAS store, as in memcached 1.6.18} {
        mc_exchange $tfd "set c 0 0 1\r\n1\r\n"
        set r [bin_exchange $fd [string cat [bin_pkt SET -key c -ext [bin_store_ext] -value s -cas $::dbin_far] \
            [bin_pkt REPLACE -key c -ext [bin_store_ext] -value r -cas $::dbin_far] \
            [bin_pkt APPEND -key c -value a -cas $::dbin_far] [bin_pkt PREPEND -key c -value p -cas $::dbin_far]]]
        list $r [mc_get $tfd c]
    } {{{SET OK} {REPLACE OK} {APPEND OK} {PREPEND OK}} pra}

    test {binary -C: set and add of a missing key with a non-zero CAS store, as in memcached 1.6.18} {
        list [bin_exchange $fd [string cat [bin_pkt SET -key n1 -ext [bin_store_ext] -value 1 -cas $::dbin_far] \
            [bin_pkt ADD -key n2 -ext [bin_store_ext] -value 2 -cas $::dbin_far]]] [mc_get $tfd n1] [mc_get $tfd n2]
    } {{{SET OK} {ADD OK}} 1 2}

    # With -C an item has no CAS a client could name: delete and incr with
    # any non-zero CAS are "Data exists" (memcached compares with 0). A
    # server that still numbers items in secret lets one of them through.
    test {binary -C: delete and incr with any CAS from 1 to 300 are all "Data exists"} {
        for {set i 0} {$i < 20} {incr i} { mc_exchange $tfd "set warm$i 0 0 1\r\nx\r\n" }
        mc_exchange $tfd "set c 0 0 1\r\n1\r\nset d 0 0 1\r\n1\r\n"
        set req {}
        for {set n 1} {$n <= 300} {incr n} {
            append req [bin_pkt DELETE -key c -cas $n] [bin_pkt INCREMENT -key d -ext [bin_arith_ext 1] -cas $n]
        }
        set r [bin_exchange $fd $req]
        list [lsort -unique [lmap x $r {lrange $x 1 end}]] [mc_get $tfd c] [mc_get $tfd d]
    } {{{KEY_EEXISTS {Data exists for key.}}} 1 1}
}

# -F: "With -F flush and flushq answer 0x20 "Auth failure."" (errors are
# sent even for quiet forms).
start_server {tags {doc_binary} args {-F}} {
    test {binary -F: flush and flushq (with or without a delay) answer "Auth failure."} {
        bin_exchange [mc_connect] [string cat [bin_pkt FLUSH] [bin_pkt FLUSHQ] [bin_pkt FLUSH -ext [bin_u32 10]]]
    } {{FLUSH AUTH_ERROR {Auth failure.}} {FLUSHQ AUTH_ERROR {Auth failure.}} {FLUSH AUTH_ERROR {Auth failure.}}}
}

# SASL PLAIN with -Y (mcds's own: memcached 1.6.18's -Y is text only).
set ::dbin_authfile [file join [tmpdir auth] users]
set f [open $::dbin_authfile w]
puts $f "alice:s3cret"
puts $f "bob:pa:ss"
close $f
start_server [list tags {doc_binary mcds-only} args [list -Y $::dbin_authfile]] {
    test {binary -Y: list mechs answers PLAIN; VERSION is served before authenticating} {
        bin_exchange [mc_connect] [string cat [bin_pkt SASL_LIST_MECHS] [bin_pkt VERSION]]
    } {{SASL_LIST_MECHS OK PLAIN} {VERSION OK 1.6.18}}

    test {binary -Y: SASL_AUTH PLAIN with [authzid] NUL user NUL password answers "Authenticated"} {
        bin_exchange [mc_connect] [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"] \
            [bin_pkt SASL_AUTH -key PLAIN -value "zid\0bob\0pa:ss"] [bin_pkt GET -key nokey]]
    } {{SASL_AUTH OK Authenticated} {SASL_AUTH OK Authenticated} {GET KEY_ENOENT {Not found}}}

    test {binary -Y: a wrong password is "Auth failure." and the connection stays open} {
        bin_exchange [mc_connect] [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0nope"] \
            [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"]]
    } {{SASL_AUTH AUTH_ERROR {Auth failure.}} {SASL_AUTH OK Authenticated}}

    test {binary -Y: SASL_STEP always fails} {
        bin_exchange [mc_connect] [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"] \
            [bin_pkt SASL_STEP -key PLAIN -value "\0alice\0s3cret"]]
    } {{SASL_AUTH OK Authenticated} {SASL_STEP AUTH_ERROR {Auth failure.}}}

    test {binary -Y: any other opcode before authenticating is "Auth failure." and closes} {
        dbin_closed [mc_connect] [string cat [bin_pkt NOOP] [bin_pkt VERSION]]
    } {{NOOP AUTH_ERROR {Auth failure.}}}

    # "answers status 0 with body Authenticated, or 0x20 "Auth failure."
    # (the connection stays open)": nothing about the value's length.
    test {binary -Y: a failed SASL_AUTH with a 2000-byte value leaves the connection open} {
        set c [mc_connect]
        set r [bin_exchange $c [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"]]
        mc_send $c [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0[string repeat x 2000]"] [bin_pkt VERSION]]
        lappend r [bin_show [bin_read $c]]
        lappend r [bin_show [bin_read $c]]
    } {{SASL_AUTH OK Authenticated} {SASL_AUTH AUTH_ERROR {Auth failure.}} {VERSION OK 1.6.18}}

    test {binary -Y: stats counts auth_cmds and auth_errors; settings show auth_enabled_sasl yes} {
        set c [mc_connect]
        bin_exchange $c [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"] [bin_pkt STAT -key reset]]
        bin_exchange $c [string cat [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0bad"] \
            [bin_pkt SASL_AUTH -key PLAIN -value "\0alice\0s3cret"]]
        set d [bin_stats $c]
        list [dict get $d auth_cmds] [dict get $d auth_errors] [dict get [bin_stats $c settings] auth_enabled_sasl]
    } {2 1 yes}
}
