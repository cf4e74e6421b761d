# Black-box tests of doc/protocol.md, "6. Lists", written from the doc
# alone: every verb's replies and the error table (hostile numbers, lengths,
# token counts, 250/251-byte keys, odd bytes, data blocks cut or wrong),
# counts after random mixes of every verb checked against a Tcl model,
# maxlen, -I and -m (all or nothing), blocking pops (first come first
# served, hang-ups lose nothing, delete/flush_all/TTL end the wait), and
# --data-dir with kill -9 (doc/persistence.md, "What is logged").

# dl_model_range model off limit -> elements of lrange/ltrim's selection
# (an offset before the head counts as 0, past the tail selects nothing).
proc dl_start {len off} {
    if {$off < 0} { set off [expr {$off + $len < 0 ? 0 : $off + $len}] }
    return $off
}
proc dl_range {model off limit} {
    set s [dl_start [llength $model] $off]
    if {$limit == 0 || $s >= [llength $model]} { return {} }
    lrange $model $s [expr {$s + $limit - 1}]
}
proc dl_index {len idx} {
    if {$idx < 0} { incr idx $len }
    if {$idx < 0 || $idx >= $len} { return -1 }
    return $idx
}

# dl_try_read fd ms -> whatever arrives within ms ("" if nothing).
proc dl_try_read {fd ms} {
    fconfigure $fd -blocking 0
    set deadline [expr {[clock milliseconds] + $ms}]
    set out ""
    while {[clock milliseconds] < $deadline} {
        if {[catch {read $fd} chunk]} break
        append out $chunk
        if {[eof $fd]} break
        after 20
    }
    catch {fconfigure $fd -blocking 1}
    return $out
}

# dl_len_settles fd key n ?ms? -> llen of key once it equals n, or its
# last value after ms (elements given back by a hang-up may take a moment).
proc dl_len_settles {fd key n {ms 3000}} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while 1 {
        set r [string trimright [mc_exchange $fd "llen $key\r\n"] "\r\n"]
        if {$r eq $n || [clock milliseconds] > $deadline} { return $r }
        after 100
    }
}

set DL_K250 [string repeat k 250]
set DL_K251 [string repeat k 251]

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {doc-list: every verb's happy reply, exactly as the doc writes it} {
        set r [mc_exchange $fd [string cat "lcreate d1\r\nlcreate d1 maxlen=9\r\n" \
            [l_blocks "lpush d1 1 1" a b] [l_blocks "rpush d1 1" c] "llen d1\r\nlrange d1 0 10\r\n" \
            "lindex d1 -1\r\n" [l_blocks "lset d1 0 1" B] [l_blocks "linsert d1 after 1 1" a X] \
            [l_blocks "lexists d1 1" X] [l_blocks "lexists d1 1" Q] [l_blocks "lrem d1 0 1" X] \
            "ltrim d1 1 1\r\nlrange d1 0 10\r\nlpop d1\r\nrpop d1\r\nllen d1\r\n"]]
        assert_equal $r [string cat "CREATED\r\nEXISTS\r\n2\r\n3\r\n3\r\n" [l_vals d1 {b a c}] [l_vals d1 c] \
            "STORED\r\n4\r\n1\r\n0\r\n1\r\n2\r\n" [l_vals d1 a] [l_vals d1 a] "END\r\n0\r\n"]
        # Missing lists: END for reads and pops, NOT_FOUND for the rest.
        mc_exchange $fd [string cat "llen m1\r\nlrange m1 0 5\r\nlindex m1 0\r\nlpop m1\r\nrpop m1 5\r\n" \
            [l_blocks "lset m1 0 1" x] [l_blocks "linsert m1 before 1 1" x y] "ltrim m1 0 1\r\n" \
            [l_blocks "lrem m1 0 1" x] [l_blocks "lexists m1 1" x] "llen m1\r\n"]
    } [string cat "NOT_FOUND\r\nEND\r\nEND\r\nEND\r\nEND\r\n" [string repeat "NOT_FOUND\r\n" 6]]

    test {doc-list: lpush k 1 1 with blocks a, b makes the list b a (the doc's example)} {
        l_push $fd lpush ex {a b}
        l_all $fd ex
    } {b a}

    test {doc-list: lcreate's error rows} {
        mc_exchange $fd [string cat "lcreate\r\nlcreate c1 maxlen=\r\nlcreate c1 maxlen=-1\r\n" \
            "lcreate c1 maxlen=x\r\nlcreate c1 maxlen=18446744073709551616\r\nlcreate c1 foo=1\r\n" \
            "lcreate c1 noreply\r\nllen c1\r\nlcreate $::DL_K251\r\nlcreate $::DL_K250 maxlen=18446744073709551615\r\n"]
    } [string cat "ERROR\r\n" [string repeat "CLIENT_ERROR bad value for maxlen\r\n" 4] \
           "CLIENT_ERROR unknown option foo\r\nCLIENT_ERROR unknown option noreply\r\nNOT_FOUND\r\n" \
           "CLIENT_ERROR key too long\r\nCREATED\r\n"]

    test {doc-list: lpop/rpop count and wait= rows (1..1000, a fraction allowed, up to 100000000)} {
        mc_exchange $fd [string cat "lpop\r\nlpop p1 0\r\nlpop p1 1001\r\nrpop p1 -1\r\nlpop p1 x\r\n" \
            "lpop p1 99999999999999999999\r\nlpop p1 1000\r\nlpop p1 wait=1 5\r\nlpop p1 wait=x\r\n" \
            "rpop p1 wait=-1\r\nlpop p1 wait=100000001\r\nlpop p1 2 wait=0.05\r\nlpop p1 foo=2\r\n" \
            "lpop $::DL_K251\r\nrpop $::DL_K251 wait=1\r\n"]
    } [string cat "ERROR\r\n" [string repeat "CLIENT_ERROR count must be 1..1000\r\n" 5] "END\r\n" \
           "CLIENT_ERROR unknown option 5\r\n" [string repeat "CLIENT_ERROR bad value for wait\r\n" 3] \
           "END\r\nCLIENT_ERROR unknown option foo\r\n" [string repeat "CLIENT_ERROR key too long\r\n" 2]]

    test {doc-list: bad offsets, limits, indexes and counts are named; offsets and indexes are signed 64-bit} {
        l_push $fd rpush n1 {a b c d e}
        set r [mc_exchange $fd [string cat "lrange n1 0 1001\r\nlrange n1 0 -1\r\nlrange n1 x 1\r\n" \
            "lrange n1 9223372036854775808 1\r\nlindex n1 9223372036854775808\r\nlindex n1 x\r\n" \
            "ltrim n1 0 18446744073709551616\r\nltrim n1 0 -1\r\nltrim n1 -9223372036854775809 1\r\n" \
            [l_blocks "lset n1 x 1" z] [l_blocks "lrem n1 9223372036854775808 1" z] [l_blocks "lrem n1 y 1" z] \
            "lrange n1 0\r\nlrange n1 0 1 2\r\nlindex n1\r\nlindex n1 0 1\r\nllen n1 x\r\nllen\r\n"]]
        assert_equal $r [string cat [string repeat "CLIENT_ERROR bad limit\r\n" 2] \
            [string repeat "CLIENT_ERROR bad offset\r\n" 2] [string repeat "CLIENT_ERROR bad index\r\n" 2] \
            [string repeat "CLIENT_ERROR bad limit\r\n" 2] "CLIENT_ERROR bad offset\r\n" \
            "CLIENT_ERROR bad index\r\n" [string repeat "CLIENT_ERROR bad count\r\n" 2] \
            [string repeat "ERROR\r\n" 6]]
        # The extremes that are numbers: clamped or out of range, never an error.
        mc_exchange $fd [string cat "lrange n1 -9223372036854775808 1\r\nlrange n1 9223372036854775807 1\r\n" \
            "lindex n1 9223372036854775807\r\nlindex n1 -9223372036854775808\r\n" \
            "ltrim n1 -9223372036854775808 18446744073709551615\r\n" \
            [l_blocks "lrem n1 -9223372036854775808 2" zz] [l_blocks "lset n1 -9223372036854775808 1" z] "llen n1\r\n"]
    } [string cat [l_vals n1 a] "END\r\nEND\r\nEND\r\n0\r\n0\r\nNOT_FOUND\r\n5\r\n"]

    test {doc-list: lrem with count -2^63 takes every match from the tail (no overflow)} {
        l_push $fd rpush rm {a b a c a}
        list [mc_exchange $fd [l_blocks "lrem rm -9223372036854775808 1" a]] [l_all $fd rm]
    } [list "3\r\n" {b c}]

    test {doc-list: lengths: not a whole number, negative, past 2147483645 -> bad length and a close, nothing pushed} {
        set r {}
        foreach len {-1 x 2147483646 +1 0x1} {
            append r [mc_last_reply "rpush bl $len\r\nllen bl\r\n"]
        }
        append r [mc_exchange $fd "llen bl\r\n"]
    } [string cat [string repeat "CLIENT_ERROR bad length\r\n" 5] "NOT_FOUND\r\n"]

    test {doc-list: 250-byte keys work for every verb, 251 answer key too long and skip their blocks} {
        set k $::DL_K250
        set r [mc_exchange $fd [string cat [l_blocks "rpush $k 1" a] "llen $k\r\n"]]
        set k $::DL_K251
        append r [mc_exchange $fd [string cat [l_blocks "rpush $k 9" flush_all] [l_blocks "lpush $k 1 1" a b] \
            "llen $k\r\nlrange $k 0 1\r\nlindex $k 0\r\n" [l_blocks "lset $k 0 9" flush_all] \
            [l_blocks "linsert $k before 1 9" a flush_all] "ltrim $k 0 1\r\n" [l_blocks "lrem $k 0 9" flush_all] \
            [l_blocks "lexists $k 9" flush_all]]]
        append r [mc_exchange $fd "llen $::DL_K250\r\n"]
    } [string cat "1\r\n1\r\n" [string repeat "CLIENT_ERROR key too long\r\n" 10] "1\r\n"]

    test {doc-list: keys and values with odd bytes (UTF-8, DEL, control bytes, NUL, CR LF) round-trip} {
        set vals [list "" "\0" "a\r\nb" "\r\n" "END\r\n" "VALUE x 0 1" [binary format c* {0 255 13 10 127}]]
        set r ""
        foreach k [list "\xc3\xa9t\xc3\xa9" "a\x7fb" "a\x01b"] {
            lappend r [l_push $fd rpush $k $vals] [expr {[l_all $fd $k] eq $vals}]
        }
        set r
    } [list "7\r\n" 1 "7\r\n" 1 "7\r\n" 1]

    test {doc-list: a data block not ending in CRLF where its length says: bad data chunk, nothing pushed} {
        set r [mc_exchange $fd "rpush dc 1 1\r\nab\r\nc\r\n"]
        list [string match "CLIENT_ERROR bad data chunk\r\n*" $r] [mc_exchange $fd "llen dc\r\n"]
    } [list 1 "NOT_FOUND\r\n"]

    test {doc-list: too many tokens for lset/linsert/lrem/lexists: named, and the blocks are skipped} {
        assert_equal [mc_set $fd guard G] STORED
        l_push $fd rpush tm {a b}
        set r [mc_exchange $fd [string cat [l_blocks "lset tm 0 9 x" flush_all] [l_blocks "lset tm 0 9 x y z" flush_all] \
            [l_blocks "linsert tm before 1 9 x" a flush_all] [l_blocks "lrem tm 0 9 x" flush_all] \
            [l_blocks "lexists tm 9 x" flush_all] [l_blocks "lset tm 0 9 noreply x" flush_all] \
            [l_blocks "lrem tm 0 9 noreply x" flush_all]]]
        list $r [mc_get $fd guard] [l_all $fd tm]
    } [list [string cat [string repeat "CLIENT_ERROR too many tokens\r\n" 5] \
                 [string repeat "CLIENT_ERROR noreply must be the last token\r\n" 2]] G {a b}]

    test {doc-list: a push with noreply before a length: named, and its blocks are skipped, never run} {
        # "noreply followed by another token (in place of a length ...)" ->
        # noreply must be the last token; "A refused command whose lengths
        # could be read skips its data blocks."
        assert_equal [mc_set $fd guard2 G] STORED
        set r [mc_exchange $fd [l_blocks "rpush np 9 noreply 1" flush_all Z]]
        list $r [mc_get $fd guard2] [mc_exchange $fd "llen np\r\n"]
    } [list "CLIENT_ERROR noreply must be the last token\r\n" G "NOT_FOUND\r\n"]

    test {doc-list: a push with a token after noreply: named, and its blocks are skipped, never run} {
        assert_equal [mc_set $fd guard3 G] STORED
        set r [mc_exchange $fd [l_blocks "lpush np2 1 9 noreply x" Q flush_all]]
        list $r [mc_get $fd guard3] [mc_exchange $fd "llen np2\r\n"]
    } [list "CLIENT_ERROR noreply must be the last token\r\n" G "NOT_FOUND\r\n"]

    test {doc-list: a push of 64 values works; of 65 is ERROR and pushes nothing, its blocks not run} {
        assert_equal [mc_set $fd guard4 G] STORED
        set v64 [lrepeat 64 x]
        assert_equal [l_push $fd rpush p64 $v64] "64\r\n"
        # 65 lengths that can all be read: the blocks must not become commands.
        set r [mc_exchange $fd [l_blocks "rpush p65 [join [lrepeat 64 1] { }] 9" {*}[lrepeat 64 x] flush_all]]
        list $r [mc_get $fd guard4] [mc_exchange $fd "llen p65\r\n"]
    } [list "ERROR\r\n" G "NOT_FOUND\r\n"]

    test {doc-list: noreply silences the replies of pushes, lset, linsert, ltrim, lrem} {
        set r [mc_exchange $fd [string cat [l_blocks "rpush nr 1 1 noreply" a b] [l_blocks "lpush nr 1 noreply" c] \
            [l_blocks "lset nr 0 1 noreply" C] [l_blocks "linsert nr after 1 1 noreply" a X] \
            "ltrim nr 0 3 noreply\r\n" [l_blocks "lrem nr 0 1 noreply" b]]]
        list $r [l_all $fd nr]
    } [list "" {C a X}]

    test {doc-list: wrong types both ways} {
        assert_equal [mc_set $fd cv V] STORED
        assert_equal [mc_exchange $fd "qcreate qq\r\n"] "CREATED\r\n"
        set r [mc_exchange $fd [string cat [l_blocks "rpush cv 1" a] "lcreate cv\r\nlpop cv\r\nllen cv\r\nlrange cv 0 1\r\n" \
            [l_blocks "lset cv 0 1" x] [l_blocks "lexists qq 1" x] "lpop qq wait=1\r\n"]]
        l_push $fd rpush lk {a}
        append r [mc_exchange $fd [string cat "get lk\r\n" [l_blocks "set lk 0 0 1" x] [l_blocks "add lk 0 0 1" x] \
            [l_blocks "replace lk 0 0 1" x] [l_blocks "append lk 0 0 1" x] [l_blocks "prepend lk 0 0 1" x] \
            [l_blocks "cas lk 0 0 1 1" x] [l_blocks "qpush lk 0 0 1" x] "qpop lk\r\nqcreate lk\r\nllen lk\r\n"]]
    } [string cat [string repeat "CLIENT_ERROR key holds another type of value\r\n" 8] "END\r\n" \
           [string repeat "CLIENT_ERROR key holds another type of value\r\n" 9] "1\r\n"]
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {doc-list: random mixes of every verb on 4 lists match a model; llen and list_elements agree} {
        expr {srand(20240611)}
        set alpha {a b c d {} {a b}}
        array set model {L0 {} L1 {} L2 {} L3 {}}
        set bad {}
        set t0 [clock milliseconds]
        for {set i 0} {$i < 1500 && [clock milliseconds] - $t0 < 12000} {incr i} {
            set k L[expr {int(rand() * 4)}]
            set m $model($k)
            set len [llength $m]
            set op [expr {int(rand() * 11)}]
            set v [lindex $alpha [expr {int(rand() * [llength $alpha])}]]
            switch $op {
                0 - 1 {
                    set n [expr {1 + int(rand() * 3)}]
                    set vs {}
                    for {set j 0} {$j < $n} {incr j} { lappend vs [lindex $alpha [expr {int(rand() * 6)}]] }
                    set verb [expr {$op ? "rpush" : "lpush"}]
                    set got [l_push $fd $verb $k $vs]
                    foreach x $vs { if {$op} { lappend m $x } else { set m [linsert $m 0 $x] } }
                    set want "[llength $m]\r\n"
                }
                2 - 3 {
                    set c [expr {1 + int(rand() * 3)}]
                    set verb [expr {$op == 2 ? "lpop" : "rpop"}]
                    set got [mc_exchange $fd "$verb $k $c\r\n"]
                    if {$op == 2} {
                        set out [lrange $m 0 [expr {$c - 1}]]
                        set m [lrange $m $c end]
                    } else {
                        set out [lreverse [lrange $m end-[expr {$c - 1}] end]]
                        set m [lrange $m 0 end-$c]
                    }
                    set want [l_vals $k $out]
                }
                4 {
                    set idx [expr {int(rand() * ($len + 4)) - 2 - ($len / 2)}]
                    set got [mc_exchange $fd [l_blocks "lset $k $idx [string length $v]" $v]]
                    set p [dl_index $len $idx]
                    if {$p < 0} { set want "NOT_FOUND\r\n" } else { lset m $p $v; set want "STORED\r\n" }
                }
                5 {
                    set where [expr {rand() < 0.5 ? "before" : "after"}]
                    set pv [lindex $alpha [expr {int(rand() * 6)}]]
                    set got [mc_exchange $fd [l_blocks "linsert $k $where [string length $pv] [string length $v]" $pv $v]]
                    set p [lsearch -exact $m $pv]
                    if {$p < 0} { set want "NOT_FOUND\r\n" } else {
                        if {$where eq "after"} { incr p }
                        set m [linsert $m $p $v]
                        set want "[llength $m]\r\n"
                    }
                }
                6 {
                    set c [expr {int(rand() * 5) - 2}]
                    set got [mc_exchange $fd [l_blocks "lrem $k $c [string length $v]" $v]]
                    set idx [lsearch -all -exact $m $v]
                    if {$c > 0} { set idx [lrange $idx 0 [expr {$c - 1}]] }
                    if {$c < 0} { set idx [lrange $idx end-[expr {-$c - 1}] end] }
                    foreach j [lsort -integer -decreasing $idx] { set m [lreplace $m $j $j] }
                    set want "[llength $idx]\r\n"
                }
                7 {
                    if {rand() < 0.7} continue
                    set off [expr {int(rand() * 6) - 3}]
                    set lim [expr {int(rand() * ($len + 2))}]
                    set got [mc_exchange $fd "ltrim $k $off $lim\r\n"]
                    set keep [dl_range $m $off $lim]
                    set want "[expr {$len - [llength $keep]}]\r\n"
                    set m $keep
                }
                8 {
                    set idx [expr {int(rand() * ($len + 4)) - 2 - ($len / 2)}]
                    set got [mc_exchange $fd "lindex $k $idx\r\n"]
                    set p [dl_index $len $idx]
                    set want [expr {$p < 0 ? "END\r\n" : [l_vals $k [list [lindex $m $p]]]}]
                }
                9 {
                    set got [mc_exchange $fd [l_blocks "lexists $k [string length $v]" $v]]
                    set want "[expr {[lsearch -exact $m $v] >= 0}]\r\n"
                }
                10 {
                    set off [expr {int(rand() * 8) - 4}]
                    set lim [expr {int(rand() * 5)}]
                    set got [mc_exchange $fd "lrange $k $off $lim\r\n"]
                    set want [l_vals $k [dl_range $m $off $lim]]
                }
            }
            # A list never created answers NOT_FOUND to what needs one.
            if {$got ne $want && !($got eq "NOT_FOUND\r\n" && $len == 0 && $op in {4 5 6 7 9})} {
                lappend bad "op $i ($op) on $k: got '[visible $got]' want '[visible $want]'"
                break
            }
            set model($k) $m
        }
        set total 0
        foreach k {L0 L1 L2 L3} {
            if {[l_all $fd $k] ne $model($k)} { lappend bad "$k differs: [l_all $fd $k] vs $model($k)" }
            set n [string trimright [mc_exchange $fd "llen $k\r\n"] "\r\n"]
            if {$n ne "NOT_FOUND" && $n != [llength $model($k)]} { lappend bad "llen $k $n" }
            incr total [llength $model($k)]
        }
        if {[mc_stat $fd list_elements] != $total} { lappend bad "list_elements [mc_stat $fd list_elements] != $total" }
        set bad
    } {}

    test {doc-list: maxlen: a push that would pass it answers NOT_STORED and pushes nothing; linsert at maxlen too} {
        set r [mc_exchange $fd [string cat "lcreate mx maxlen=3\r\n" [l_blocks "rpush mx 1 1 1 1" a b c d] "llen mx\r\n" \
            [l_blocks "rpush mx 1 1" a b] [l_blocks "lpush mx 1 1" c d] [l_blocks "rpush mx 1" e] \
            [l_blocks "linsert mx before 1 1" a X] [l_blocks "lset mx 0 1" Z] "lcreate mx maxlen=9\r\n" \
            [l_blocks "rpush mx 1" f] "lpop mx\r\n" [l_blocks "linsert mx after 1 1" b Y]]]
        list $r [l_all $fd mx]
    } [list [string cat "CREATED\r\nNOT_STORED\r\n0\r\n2\r\nNOT_STORED\r\n3\r\n" \
                 "NOT_STORED\r\nSTORED\r\nEXISTS\r\nNOT_STORED\r\n" [l_vals mx Z] "3\r\n"] {b Y e}]

    test {doc-list: delete, touch and flush_all remove a list; stats lists/list_elements follow} {
        l_push $fd rpush g1 {a b c}
        l_push $fd rpush g2 {a b}
        l_push $fd rpush g3 {a}
        set before [list [mc_stat $fd lists] [mc_stat $fd list_elements]]
        set r [mc_exchange $fd "delete g1\r\nllen g1\r\ntouch g2 1\r\n"]
        wait_for {[mc_exchange $fd "llen g2\r\n"] eq "NOT_FOUND\r\n"} 40 100
        set after [list [mc_stat $fd lists] [mc_stat $fd list_elements]]
        list $r [expr {[lindex $before 0] - [lindex $after 0]}] [expr {[lindex $before 1] - [lindex $after 1]}]
    } [list "DELETED\r\nNOT_FOUND\r\nTOUCHED\r\n" 2 5]
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {doc-list: waiters are served first come first served, each up to its count; the push counts all} {
        set ws {}
        foreach c {2 1 2} {
            set w [mc_connect]
            mc_send $w "lpop f1 $c wait=10\r\n"
            lappend ws $w
            l_waiters $fd [llength $ws]
        }
        set r [l_push $fd rpush f1 {a b c d}]
        set got [lmap w $ws { lmap it [mc_read_values $w] { lindex $it 2 } }]
        list $r $got [mc_exchange $fd "llen f1\r\n"] [mc_stat $fd list_waiters]
    } [list "4\r\n" {{a b} c d} "0\r\n" 0]

    test {doc-list: a waiting pop on a missing key creates the empty list; pipelined commands come after it} {
        set w [mc_connect]
        mc_send $w "rpop f2 2 wait=10\r\nllen f2\r\n"
        l_waiters $fd 1
        set mid [mc_exchange $fd "llen f2\r\n"]
        l_push $fd lpush f2 {x}
        list $mid [dl_try_read $w 500]
    } [list "0\r\n" "[l_vals f2 x]0\r\n"]

    test {doc-list: a wait that ends answers END; a fraction of a second works} {
        set w [mc_connect]
        set t0 [clock milliseconds]
        mc_send $w "lpop f3 wait=0.3\r\n"
        set r [mc_readline $w]
        list $r [expr {[clock milliseconds] - $t0 >= 250}] [mc_stat $fd list_waiters]
    } {END 1 0}

    test {doc-list: delete, flush_all and a TTL end the waits with END; nothing later goes to them} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        set w3 [mc_connect]
        mc_send $w1 "lpop f4 wait=10\r\n"
        mc_send $w2 "lpop f5 wait=10\r\n"
        mc_send $w3 "lpop f6 wait=10\r\n"
        l_waiters $fd 3
        assert_equal [mc_exchange $fd "delete f4\r\n"] "DELETED\r\n"
        set r1 [mc_readline $w1]
        assert_equal [mc_exchange $fd "touch f6 1\r\n"] "TOUCHED\r\n"
        set t [dl_try_read $w3 3000]
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        set r2 [mc_readline $w2]
        l_push $fd rpush f5 {kept}
        list $r1 $r2 $t [dl_try_read $w2 200] [l_all $fd f5] [mc_stat $fd list_waiters]
    } [list END END "END\r\n" "" kept 0]

    test {doc-list: a client that hangs up while waiting loses nothing: the next push stays in the list} {
        set w [mc_connect]
        mc_send $w "lpop h1 3 wait=10\r\n"
        l_waiters $fd 1
        mc_close $w
        wait_for {[mc_stat $fd list_waiters] == 0} 50 50
        l_push $fd rpush h1 {a b c d}
        l_all $fd h1
    } {a b c d}

    test {doc-list: a shutdown of the sending side ends the wait; the push that follows stays} {
        set w [mc_connect]
        mc_send $w "lpop h2 wait=10\r\nllen h2\r\n"
        l_waiters $fd 1
        close $w write
        set r [dl_try_read $w 1500]
        l_push $fd rpush h2 {x}
        list $r [l_all $fd h2]
    } [list "END\r\n0\r\n" x]

    test {doc-list: hang-up of a served waiter whose answer waits behind unread output: all back in order, or gone with the answer} {
        # "elements handed to it go back ... if its hang-up is known when its
        # answer is written ... written means put in the connection's output,
        # where it may still wait behind earlier replies the client has not
        # read (a hang-up after that loses those elements)". The waiter's
        # answer waits behind a 1 MB reply the client never reads; the client
        # hangs up right after the push, so either comes first: a b c d
        # back in order, or d alone (a b c went with the answer). Nothing
        # else (a part, another order) is allowed.
        set big [string repeat B 1000000]
        assert_equal [mc_set $fd big $big] STORED
        set wrong {}
        foreach trial {1 2 3} {
            set w [mc_connect]
            mc_send $w "get big\r\nlpop hb$trial 3 wait=10\r\n"
            l_waiters $fd 1
            assert_equal [l_push $fd rpush hb$trial {a b c d}] "4\r\n"
            mc_close $w
            after 300
            set all [l_all $fd hb$trial]
            if {$all ne {a b c d} && $all ne {d}} { lappend wrong "trial $trial: list $all" }
        }
        set wrong
    } {}

    test {doc-list: a waiting pop served by a push takes what fits in the output limit; the rest stays} {
        # -I 1m: two values of 600000 bytes, one push each; the first push
        # serves the waiter, the second stays.
        set v1 [string repeat 1 600000]
        set w [mc_connect]
        mc_send $w "lpop ol 5 wait=10\r\n"
        l_waiters $fd 1
        mc_exchange $fd "rpush ol 600000\r\n$v1\r\nrpush ol 600000\r\n$v1\r\n"
        set got [mc_read_values $w]
        list [llength $got] [mc_exchange $fd "llen ol\r\n"]
    } [list 1 "1\r\n"]
}

start_server {tags {list mcds-only} args {-I 4m}} {
    set fd [mc_connect]

    test {doc-list: a pop or waiting pop stops at the output limit and removes only what it sent} {
        set vs [list [string repeat A 600000] [string repeat B 600000] [string repeat C 600000]]
        assert_equal [l_push $fd rpush big1 $vs] "3\r\n"
        set got [mc_exchange $fd "lpop big1 3\r\n"]
        set n1 [llength [l_parse big1 $got]]
        set left [mc_exchange $fd "llen big1\r\n"]
        set w [mc_connect]
        mc_send $w "lpop big2 3 wait=10\r\n"
        l_waiters $fd 1
        assert_equal [l_push $fd rpush big2 $vs] "3\r\n"
        set n2 [llength [mc_read_values $w]]
        # Nothing lost either way: sent + left = 3.
        list [expr {$n1 + [string trimright $left "\r\n"]}] [expr {$n2 + [string trimright [mc_exchange $fd "llen big2\r\n"] "\r\n"]}] \
            [expr {$n2 >= 1}]
    } {3 3 1}
}

start_server {tags {list mcds-only} args {-m 2 -I 1k}} {
    set fd [mc_connect]

    test {doc-list: values over -I, or together over -I: object too large, nothing changes} {
        set k [string repeat x 1024]
        set over [string repeat x 1025]
        set h [string repeat y 600]
        l_push $fd rpush i1 [list $k]
        mc_exchange $fd [string cat [l_blocks "rpush i1 1025" $over] [l_blocks "rpush i1 600 600" $h $h] \
            [l_blocks "lset i1 0 1025" $over] [l_blocks "linsert i1 before 1024 1025" $k $over] \
            [l_blocks "linsert i1 before 600 600" $h $h] [l_blocks "lrem i1 0 1025" $over] \
            [l_blocks "lexists i1 1025" $over] "llen i1\r\n"]
    } [string cat [string repeat "SERVER_ERROR object too large for cache\r\n" 7] "1\r\n"]

    test {doc-list: under -m, out of memory pushes nothing, not even part of a multi-value push} {
        set v [string repeat f 1000]
        set n 0
        set t0 [clock milliseconds]
        set r ""
        while {[clock milliseconds] - $t0 < 10000} {
            set r [mc_exchange $fd [string repeat "rpush fill 1000\r\n$v\r\n" 50]]
            if {[string match *SERVER_ERROR* $r]} break
        }
        assert_match "*SERVER_ERROR out of memory storing object*" $r
        set n [string trimright [mc_exchange $fd "llen fill\r\n"] "\r\n"]
        set elems [mc_stat $fd list_elements]
        set r2 [mc_exchange $fd [string cat [l_blocks "rpush fill 100 100 100 100 100 100 100 100 100 100" \
            {*}[lrepeat 10 [string repeat z 100]]] [l_blocks "lpush fill 1 1" a b] "llen fill\r\n"]]
        list [expr {$r2 eq "SERVER_ERROR out of memory storing object\r\nSERVER_ERROR out of memory storing object\r\n$n\r\n"}] \
            [expr {[mc_stat $fd list_elements] - $elems}]
    } {1 0}

    test {doc-list: deleting the full list gives the memory back to pushes} {
        assert_equal [mc_exchange $fd "delete fill\r\n"] "DELETED\r\n"
        wait_for {[mc_stat $fd list_reclaiming] == 0} 50 100
        set v [string repeat g 1000]
        mc_exchange $fd [string cat [l_blocks "rpush after 1000" $v] [l_blocks "rpush after 1000" $v]]
    } "1\r\n2\r\n"
}

# --data-dir and kill -9: every acknowledged list change survives.
set dl_dir [tmpdir dlpersist]
start_server [list tags {list persist mcds-only} args [list --data-dir $dl_dir --fsync no]] {
    test {doc-list: kill -9 after pushes, pops, lset, linsert, lrem, ltrim, maxlen, a served wait, a TTL} {
        set fd [mc_connect]
        set r [mc_exchange $fd [string cat "lcreate pm maxlen=4\r\n" [l_blocks "rpush pm 1 1" q r] \
            [l_blocks "rpush pp 1 1 1 1 1 1" a b c d e f] "lpop pp\r\nrpop pp\r\n" [l_blocks "lset pp 1 1" X] \
            [l_blocks "linsert pp before 1 1" d Y] [l_blocks "lrem pp 1 1" b] "ltrim pp 1 10\r\n" \
            [l_blocks "rpush pt 1" t] "touch pt 1000\r\n" [l_blocks "rpush pd 1" gone] "delete pd\r\n"]]
        set w [mc_connect]
        mc_send $w "lpop pw 2 wait=10\r\n"
        l_waiters $fd 1
        l_push $fd rpush pw {1 2 3}
        mc_read_values $w
        set ::dl_before [list [l_all $fd pp] [l_all $fd pw] [l_all $fd pm]]
        kill_pid [srv pid] KILL
        wait_server_exit
        set ::dl_before
    } {{Y d e} 3 {q r}}
}
start_server [list tags {list persist mcds-only} args [list --data-dir $dl_dir --fsync no]] {
    test {doc-list: after the restart every list is as acknowledged; maxlen kept; the deleted one gone} {
        set fd [mc_connect]
        list [l_all $fd pp] [l_all $fd pw] [l_all $fd pm] [mc_exchange $fd [l_blocks "rpush pm 1 1 1" s t u]] \
            [mc_exchange $fd "llen pd\r\nllen pt\r\n"]
    } [list {Y d e} 3 {q r} "NOT_STORED\r\n" "NOT_FOUND\r\n1\r\n"]
}
