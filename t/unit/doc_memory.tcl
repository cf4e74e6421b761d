# Black-box tests of doc/protocol.md, "Memory and eviction", and of the
# stats it names (bytes, total_malloced, limit_maxbytes, curr_items,
# evictions, item_moves, expired_unfetched, evicted_unfetched). Written
# from the doc alone: each test quotes the sentence it checks.

# A CAS number far from any a segment's base (the doc: "one chosen with
# E, say").
set ::dm_far 1152921504606846976

# dm_bytes_delta fd request -> what request changed the bytes stat by.
proc dm_bytes_delta {fd request} {
    set before [mc_stat $fd bytes]
    mc_exchange $fd $request
    expr {[mc_stat $fd bytes] - $before}
}

# dm_item_bytes keylen valuelen flags far: the doc's size of an item,
# unrounded (what bytes counts): a 32-byte header, the key, the value with
# its \r\n; flags other than 0 add 4, a far CAS 8; an item in a block of
# its own (value over 512 bytes with its \r\n) holds both fields.
proc dm_item_bytes {keylen valuelen flags far} {
    set n [expr {32 + $keylen + $valuelen + 2}]
    if {$valuelen + 2 > 512} { return [expr {$n + 12}] }
    if {$flags != 0} { incr n 4 }
    if {$far} { incr n 8 }
    return $n
}

# dm_present fd keys -> how many of keys are held, looked up with mg u
# (no read counted, so the lookups do not change what is evicted).
proc dm_present {fd keys} {
    set n 0
    for {set i 0} {$i < [llength $keys]} {incr i 2000} {
        set batch ""
        foreach k [lrange $keys $i [expr {$i + 1999}]] { append batch "mg $k u\r\n" }
        incr n [regexp -all -line {^HD} [mc_exchange $fd $batch]]
    }
    return $n
}

# dm_present_list fd keys -> a list of 1/0, one per key.
proc dm_present_list {fd keys} {
    set out {}
    for {set i 0} {$i < [llength $keys]} {incr i 2000} {
        set batch ""
        foreach k [lrange $keys $i [expr {$i + 1999}]] { append batch "mg $k u\r\n" }
        foreach line [split [string trimright [mc_exchange $fd $batch] \n] \n] {
            lappend out [string match HD* $line]
        }
    }
    return $out
}

# dm_keys prefix from n -> prefix<6 digits> keys, all of one length.
proc dm_keys {prefix from n} {
    set out {}
    for {set i $from} {$i < $from + $n} {incr i} { lappend out [format "%s%06d" $prefix $i] }
    return $out
}

# dm_fill fd prefix from n len: stores values of len bytes under
# fixed-width keys (so every item has one size), noreply, a thousand a
# round trip.
proc dm_fill {fd prefix from n len} {
    set v [string repeat f $len]
    set said ""
    for {set i $from} {$i < $from + $n} {incr i 1000} {
        set batch ""
        for {set j $i} {$j < $i + 1000 && $j < $from + $n} {incr j} {
            append batch [format "set %s%06d 0 0 %d noreply\r\n%s\r\n" $prefix $j $len $v]
        }
        append said [mc_exchange $fd $batch]
    }
    return $said
}

# dm_watch_drain w ms -> every byte the watcher sent until it was quiet
# for ms.
proc dm_watch_drain {w ms} {
    fconfigure $w -blocking 0
    set buf ""
    set quiet 0
    while {$quiet < $ms} {
        set chunk [read $w]
        if {$chunk eq ""} {
            if {[eof $w]} break
            after 20
            incr quiet 20
        } else {
            append buf $chunk
            set quiet 0
        }
    }
    fconfigure $w -blocking 1
    return $buf
}

start_server {tags {doc_memory mcds-only} args {-m 64 -t 1}} {
    set fd [mc_connect]

    # "An item in a segment takes a 32-byte header, its key and its value
    # with \r\n, rounded up to 8 bytes; client flags other than 0 add 4
    # bytes, and a CAS more than 2^31 away ... (one chosen with E, say)
    # adds 8. bytes counts each item so, without the rounding (an item in
    # a block of its own holds both fields)." Keys of 1 and 250 bytes,
    # values around the 512-byte line, flags 0, 1, 4294967295 and
    # 4294967296 (stored as 0).
    test {bytes counts each item as the doc sizes it: header, key, value, flags, far CAS} {
        set bad {}
        set n 0
        foreach keylen {1 250} {
            foreach len {0 1 508 509 510 511 512 513 1000} {
                foreach flags {0 1 4294967295 4294967296} {
                    foreach far {0 1} {
                        set key [string range [format "%s%06d" [string repeat K $keylen] [incr n]] end-[expr {$keylen - 1}] end]
                        set e [expr {$far ? "E[expr {$::dm_far + $n}]" : ""}]
                        set got [dm_bytes_delta $fd "ms $key $len F$flags $e q\r\n[string repeat v $len]\r\nmn\r\n"]
                        mc_exchange $fd "delete $key\r\n"
                        set want [dm_item_bytes $keylen $len [expr {$flags & 0xffffffff}] $far]
                        if {$got != $want} { lappend bad "key $keylen value $len flags $flags far $far: $got, doc $want" }
                    }
                }
            }
        }
        set bad
    } {}

    # "A cache value of up to 512 bytes (with its \r\n) is kept in a
    # segment ... total_malloced counts the bytes written to segments" and
    # an item there takes its size "rounded up to 8 bytes". 1,000 items a
    # size, 4-byte keys: 32+4+2 = 38 -> 40; 32+4+511 = 547 and 32+4+512 =
    # 548 -> 552.
    test {total_malloced grows by the rounded size of items kept in segments (values of 0, 509, 510 bytes)} {
        set out {}
        foreach len {0 509 510} {
            set v [string repeat s $len]
            # the first store of a size keeps the block values are read into
            mc_exchange $fd "set w$len 0 0 $len\r\n$v\r\n"
            set before [dict get [mc_stats $fd slabs] total_malloced]
            set batch ""
            for {set i 0} {$i < 1000} {incr i} { append batch [format "set %c%03d 0 0 %d noreply\r\n%s\r\n" [expr {65 + $len % 26}] $i $len $v] }
            mc_exchange $fd $batch
            lappend out [expr {round(([dict get [mc_stats $fd slabs] total_malloced] - $before) / 1000.0)}]
        }
        set out
    } {40 552 552}

    # memcached's me/metadump size= is what its bytes stat counts for the
    # item (its ITEM_ntotal: 67 and 71 for these two on 1.6.18); the doc
    # says "size=<bytes held>" and gives an item's bytes above. The item
    # with flags 7 and a far CAS holds 12 bytes more than the other.
    test {me and metadump size= is the bytes the item holds, as bytes counts it} {
        set b1 [dm_bytes_delta $fd "set sz1 0 0 5\r\nworld\r\n"]
        set b2 [dm_bytes_delta $fd "ms sz2 5 F7 E$::dm_far\r\nworld\r\n"]
        regexp {size=(\d+)} [mc_exchange $fd "me sz1\r\n"] -> s1
        regexp {size=(\d+)} [mc_exchange $fd "me sz2\r\n"] -> s2
        set dump [mc_exchange $fd "lru_crawler metadump all\r\n"]
        regexp {key=sz1 [^\n]* size=(\d+)} $dump -> d1
        regexp {key=sz2 [^\n]* size=(\d+)} $dump -> d2
        mc_exchange $fd "delete sz1\r\ndelete sz2\r\n"
        list "bytes $b1 $b2" "me $s1 $s2" "metadump $d1 $d2"
    } {{bytes 42 54} {me 42 54} {metadump 42 54}}

    # "The CAS numbers the server hands out still only grow: each is higher
    # than every one handed out before it. A CAS chosen with E is the
    # client's: it does not move the server's count, so the next number
    # handed out may be lower than it (as in memcached)."
    test {CAS numbers handed out only grow; one chosen with E does not move the count} {
        regexp {VALUE first 0 1 (\d+)} [mc_exchange $fd "set first 0 0 1\r\nx\r\ngets first\r\n"] -> c1
        mc_exchange $fd "ms before 1 E$::dm_far\r\nx\r\n"
        regexp {VALUE after 0 1 (\d+)} [mc_exchange $fd "set after 0 0 1\r\nx\r\ngets after\r\n"] -> c2
        mc_exchange $fd "delete first\r\ndelete before\r\ndelete after\r\n"
        list [expr {$c2 > $c1}] [expr {$c2 < $::dm_far}]
    } {1 1}

    test {after a flush_all of 30,000 items: curr_items and bytes are 0, segments given back} {
        mc_exchange $fd "flush_all\r\n"
        dm_fill $fd fl 0 30000 100
        assert_equal [mc_stat $fd curr_items] 30000
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        set tm [dict get [mc_stats $fd slabs] total_malloced]
        # "total_malloced can stay up to about a segment per worker above
        # what live items hold" (one worker here, segments of 1 MB at most)
        list [mc_stat $fd curr_items] [mc_stat $fd bytes] \
            [expr {$tm - [mc_stat $fd item_kept_bytes] <= 2 * 1048576 ? "ok" : "total_malloced $tm"}]
    } {0 0 ok}

    # flush_all: "Without a delay ... every item stored before the command
    # is invalidated at once"; "An immediate flush takes its items out
    # before it answers OK, so curr_items, bytes ... have dropped".
    test {flush_all invalidates items whose CAS was chosen with E (far, and 2^64-1)} {
        mc_exchange $fd "flush_all\r\n"
        mc_exchange $fd "set plain 0 0 1\r\nx\r\nms farcas 1 E$::dm_far\r\nx\r\nms maxcas 1 E18446744073709551615\r\nx\r\n"
        mc_exchange $fd "ms oldfar 1\r\nx\r\nmd oldfar I E[expr {$::dm_far + 5}]\r\n"
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        list [mc_exchange $fd "get plain farcas maxcas oldfar\r\n"] [mc_stat $fd curr_items] [mc_stat $fd bytes]
    } [list "END\r\n" 0 0]

    # "... items stored afterwards are not affected."
    test {flush_all leaves items stored after it, whatever CAS E gives them (E2)} {
        mc_exchange $fd "set f1 0 0 1\r\nx\r\nset f2 0 0 1\r\nx\r\n"
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        set items [mc_stat $fd curr_items]
        list [mc_exchange $fd "ms low 1 E2 c\r\nx\r\n"] [mc_exchange $fd "get low\r\n"] \
            [mc_exchange $fd "mg low v c\r\n"] [expr {[mc_stat $fd curr_items] - $items}]
    } [list "HD c2\r\n" "VALUE low 0 1\r\nx\r\nEND\r\n" "VA 1 c2\r\nx\r\n" 1]

    # Malformed E tokens: "T N R C E numbers"; md answers every token
    # error as "CLIENT_ERROR invalid or duplicate flag"; md I on a missing
    # key is NF.
    test {E tokens: 2^64-1 accepted, 2^64, -1 and non-digits refused; md I on a missing key NF} {
        set r {}
        lappend r [mc_exchange $fd "ms emax 1 E18446744073709551615 c\r\nx\r\n"]
        lappend r [mc_exchange $fd "ms ebad 1 E18446744073709551616\r\nx\r\n"]
        lappend r [mc_exchange $fd "ms ebad 1 E-1\r\nx\r\n"]
        lappend r [mc_exchange $fd "ms ebad 1 Eabc\r\nx\r\n"]
        lappend r [mc_exchange $fd "md emax I E12x\r\n"]
        lappend r [mc_exchange $fd "md nosuchkey I E$::dm_far\r\n"]
        lappend r [mc_exchange $fd "get ebad\r\n"]
    } [list "HD c18446744073709551615\r\n" \
          "CLIENT_ERROR bad token in command line format\r\n" \
          "CLIENT_ERROR bad token in command line format\r\n" \
          "CLIENT_ERROR bad token in command line format\r\n" \
          "CLIENT_ERROR invalid or duplicate flag\r\n" "NF\r\n" "END\r\n"]
}

start_server {tags {doc_memory mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # "a scan of new keys never read does not push out the items that were
    # read"; evicted_unfetched counts evicted items never fetched (all of
    # them here); item_moves "counts the small items the eviction scan
    # copied to a queue's newest end".
    test {2,000 items read once survive 200,000 new unread keys; every eviction is unfetched} {
        dm_fill $fd read 0 2000 100
        for {set i 0} {$i < 2000} {incr i 500} {
            mc_send $fd "get [join [dm_keys read $i 500] { }]\r\n"
            mc_read_values $fd
        }
        set moves [mc_stat $fd item_moves]
        dm_fill $fd scan 0 200000 100
        set st [mc_stats $fd]
        list [dm_present $fd [dm_keys read 0 2000]] \
            [expr {[dict get $st evictions] > 100000}] \
            [expr {[dict get $st evictions] == [dict get $st evicted_unfetched]}] \
            [expr {[dict get $st item_moves] - $moves >= 2000}] \
            [expr {[dict get $st bytes] <= [dict get $st limit_maxbytes]}] \
            [expr {[dict get $st curr_items] + [dict get $st evictions] == [dict get $st total_items]}]
    } {2000 1 1 1 1 1}

    # stats items reports the single class 1 with memcached's names: its
    # counts are the general ones. stats reset zeroes the totals
    # (evictions, evicted_unfetched, item_moves), not the gauges
    # (curr_items, bytes).
    test {stats items mirrors evictions, evicted_unfetched, curr_items and bytes; stats reset zeroes only the totals} {
        set st [mc_stats $fd]
        set it [mc_stats $fd items]
        set r [list [expr {[dict get $it items:1:evicted] == [dict get $st evictions]}] \
                   [expr {[dict get $it items:1:evicted_unfetched] == [dict get $st evicted_unfetched]}] \
                   [expr {[dict get $it items:1:expired_unfetched] == [dict get $st expired_unfetched]}] \
                   [expr {[dict get $it items:1:number] == [dict get $st curr_items]}] \
                   [expr {[dict get $it items:1:mem_requested] == [dict get $st bytes]}]]
        assert_equal [mc_exchange $fd "stats reset\r\n"] "RESET\r\n"
        set after [mc_stats $fd]
        lappend r [dict get $after evictions] [dict get $after evicted_unfetched] [dict get $after item_moves] \
            [expr {[dict get $after curr_items] == [dict get $st curr_items]}] \
            [expr {[dict get $after bytes] == [dict get $st bytes]}]
    } {1 1 1 1 1 0 0 0 1 1}
}

start_server {tags {doc_memory mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # "items all of one size keep their order ... When a long run of items
    # that have not reaches the oldest end, as when a cache first fills, a
    # store that reaches the bound evicts the next items without their
    # trip: older items that were moved then outlive runs of a few hundred
    # newer ones. Once that run has gone round, the items held are the
    # newest again, but for the few that moves for holes (below) kept."
    # Items of one size (fixed-width keys, 100-byte values) under -m 8,
    # none read: after a first fill of 80,000, older items outlive newer
    # ones evicted in runs under 1,000; after 240,000, all but a thousandth
    # of the items held are the newest.
    test {items of one size: after a first fill older ones outlive short runs of newer ones; later the newest are held} {
        dm_fill $fd one 0 80000 100
        set p [dm_present_list $fd [dm_keys one 0 80000]]
        set first [lsearch $p 1]
        set runs {}
        set n 0
        foreach x [lrange $p $first end] {
            if {$x} { if {$n} { lappend runs $n }; set n 0 } else { incr n }
        }
        set longest [tcl::mathfunc::max 0 {*}$runs]
        dm_fill $fd one 80000 160000 100
        set p [dm_present_list $fd [dm_keys one 0 240000]]
        set held [llength [lsearch -all $p 1]]
        set newest [llength [lsearch -all [lrange $p end-[expr {$held - 1}] end] 1]]
        list [expr {[llength $runs] > 0 && $longest < 1000}] [expr {$held - $newest <= $held / 1000}]
    } {1 1}
}

start_server {tags {doc_memory mcds-only} args {-m 8}} {
    set fd [mc_connect]

    test {an idle small item outlives an idle large one stored at the same time} {
        set batch ""
        for {set i 0} {$i < 1000} {incr i} {
            append batch [format "set s%06d 0 0 10 noreply\r\n%s\r\nset l%06d 0 0 400 noreply\r\n%s\r\n" $i [string repeat s 10] $i [string repeat l 400]]
        }
        mc_exchange $fd $batch
        dm_fill $fd f 0 60000 100
        list [dm_present $fd [dm_keys s 0 1000]] [dm_present $fd [dm_keys l 0 1000]]
    } {1000 0}
}

start_server {tags {doc_memory mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # "A new item whose key is in the ghost set (evicted unread from the
    # small queue not long ago) enters the main queue". The keys evicted
    # last (seen with watch evictions) are stored again, each next to a
    # new key; new unread keys then take each other's place in the small
    # queue: the ghost keys stay, the new ones go. Later evictions can
    # take a ghost slot ("the key noted later takes it"), so half will do.
    test {keys evicted unread, stored again, enter the main queue: they outlive new keys stored with them} {
        dm_fill $fd g 0 100000 100
        set w [mc_connect]
        mc_send $w "watch evictions\r\n"
        assert_equal [mc_readline $w] OK
        dm_fill $fd x 0 2000 100
        set lines [dm_watch_drain $w 300]
        mc_close $w
        set evicted [regexp -all -inline {type=eviction key=(\S+)} $lines]
        set ghosts {}
        foreach {- k} [lrange $evicted end-39 end] { lappend ghosts $k }
        assert_equal [llength $ghosts] 20
        set fresh [dm_keys c 0 20]
        set batch ""
        foreach g $ghosts c $fresh {
            append batch "set $g 0 0 100 noreply\r\n[string repeat f 100]\r\nset $c 0 0 100 noreply\r\n[string repeat f 100]\r\n"
        }
        mc_exchange $fd $batch
        dm_fill $fd h 0 100000 100
        list [expr {[dm_present $fd $ghosts] >= 10}] [dm_present $fd $fresh]
    } {1 0}
}

start_server {tags {doc_memory mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # "An md with I ... that gives such an item a CAS its header cannot
    # hold copies the item (everything else about it kept; the copy takes
    # the newest place in its eviction queue)". All items here are one
    # size (146 bytes) once copied: near50 are copied by md I E<far> after
    # 30,000 others; far50 were stored with a far CAS at the start and are
    # not copied; ctl are stored right after the copies.
    test {md I with a far CAS: the copy takes the newest place in its queue} {
        set v [string repeat f 100]
        set batch ""
        for {set i 0} {$i < 50} {incr i} {
            append batch [format "ms N%03d 100 T5000 q\r\n%s\r\n" $i $v]
            append batch [format "ms F%03d 100 E%s q\r\n%s\r\n" $i [expr {$::dm_far + $i}] $v]
        }
        mc_exchange $fd "${batch}mn\r\n"
        mc_exchange $fd "mg N000 v\r\n"
        dm_fill $fd a 0 30000 105
        set batch ""
        for {set i 0} {$i < 50} {incr i} { append batch [format "md N%03d I E%s q\r\n" $i [expr {$::dm_far + 100 + $i}]] }
        mc_exchange $fd "${batch}mn\r\n"
        # the copy is the same item but for its CAS
        set r [mc_exchange $fd "mg N000 f h c s t\r\n"]
        assert_true {[regexp "^HD f0 h1 c[expr {$::dm_far + 100}] s100 t(4\\d\\d\\d|5000) X W\r\n\$" $r]} $r
        set batch ""
        for {set i 0} {$i < 50} {incr i} { append batch [format "ms C%03d 100 E%s q\r\n%s\r\n" $i [expr {$::dm_far + $i}] $v] }
        mc_exchange $fd "${batch}mn\r\n"
        set copies {}
        set olds {}
        set ctls {}
        for {set i 0} {$i < 50} {incr i} {
            lappend copies [format N%03d $i]
            lappend olds [format F%03d $i]
            lappend ctls [format C%03d $i]
        }
        # fill until the items stored after the copies are evicted; note
        # when each group went
        set gone [dict create]
        for {set step 1} {$step <= 40 && [dict size $gone] < 3} {incr step} {
            dm_fill $fd b [expr {$step * 2500}] 2500 105
            foreach {name keys} [list old $olds copy $copies ctl $ctls] {
                if {![dict exists $gone $name] && [dm_present $fd $keys] < 25} { dict set gone $name $step }
            }
        }
        set r [list old [dict get $gone old]]
        foreach name {copy ctl} {
            if {[dict exists $gone $name]} { lappend r $name [dict get $gone $name] } else { lappend r $name never }
        }
        # copies at the newest end go with the items stored after them, not
        # with the items stored before the 30,000 others
        expr {[dict get $gone old] < [dict get $gone ctl] &&
              [dict get $gone copy] >= [dict get $gone ctl] ? "newest" : $r}
    } newest
}

start_server {tags {doc_memory mcds-only} args {-m 8 --debug}} {
    set fd [mc_connect]

    # Items the scan moves ("copied to a queue's newest end") are the same
    # items: TTL, last access, fetched, CAS, flags, value; the dumps list
    # each key once, with its CAS and fetch=yes. The clock is moved 2 s
    # (debugtime) and the fill takes its own time: t and l are checked
    # against both.
    test {items the eviction scan moved keep t, l, h, c, f and the value; dumps list each once} {
        mc_exchange $fd "ms mv1 5 F4294967295 T1000 E$::dm_far\r\nhello\r\nset mv2 7 0 5\r\nworld\r\nget mv1 mv2\r\n"
        set t0 [clock seconds]
        assert_equal [mc_exchange $fd "debugtime 2\r\n"] "OK\r\n"
        set moves [mc_stat $fd item_moves]
        dm_fill $fd m 0 150000 100
        assert_true {[mc_stat $fd item_moves] > $moves}
        set a [mc_exchange $fd "mg mv1 t l h c f v\r\n"]
        set b [mc_exchange $fd "mg mv2 t l h f v\r\n"]
        set took [expr {[clock seconds] - $t0 + 1}]
        set dump [mc_exchange $fd "lru_crawler metadump all\r\n"]
        set keys [regexp -all -inline -line {^key=\S+} $dump]
        set ta [set la [set lb -1]]
        regexp "^VA 5 t(\\d+) l(\\d+) h1 c$::dm_far f4294967295\r\nhello\r\n\$" $a -> ta la
        regexp "^VA 5 t-1 l(\\d+) h1 f7\r\nworld\r\n\$" $b -> lb
        list [expr {$ta >= 998 - $took && $ta <= 998 && $la >= 2 && $la <= 2 + $took}] \
            [expr {$lb >= 2 && $lb <= 2 + $took}] \
            [expr {[llength $keys] == [llength [lsort -unique $keys]]}] \
            [expr {[llength $keys] == [mc_stat $fd curr_items]}] \
            [regexp "key=mv1 exp=\\d+ la=\\d+ cas=$::dm_far fetch=yes cls=1" $dump] \
            [regexp {ITEM mv2 \[5 b; 0 s\]} [mc_exchange $fd "stats cachedump 1 0\r\n"]]
    } {1 1 1 1 1 1}
}

start_server {tags {doc_memory mcds-only} args {-m 8 --debug}} {
    set fd [mc_connect]

    # "When a store needs room, expired items go first ... neither evicts
    # a live item while an expired one holds memory the store could
    # reuse." expired_unfetched counts the expired items never fetched.
    # Their TTL (1000 s) ends by the clock moved with debugtime, however
    # long the stores take.
    test {expired items go first: no live item evicted; expired_unfetched counts the unread ones} {
        set v [string repeat e 100]
        for {set i 0} {$i < 40000} {incr i 1000} {
            set batch ""
            for {set j $i} {$j < $i + 1000} {incr j} { append batch [format "set e%06d 0 1000 100 noreply\r\n%s\r\n" $j $v] }
            mc_exchange $fd $batch
        }
        # 10,000 of them read
        for {set i 0} {$i < 10000} {incr i 500} {
            mc_send $fd "get [join [dm_keys e $i 500] { }]\r\n"
            mc_read_values $fd
        }
        assert_equal [mc_exchange $fd "debugtime 1001\r\n"] "OK\r\n"
        dm_fill $fd live 0 45000 100
        set st [mc_stats $fd]
        list [dict get $st evictions] [dict get $st expired_unfetched] [dict get $st curr_items] \
            [dm_present $fd [dm_keys live 0 45000]]
    } {0 30000 45000 45000}
}

start_server {tags {doc_memory mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    # "With -M, live items are never evicted ... a full cache refuses a
    # store at once"; SERVER_ERROR out of memory storing object, "a set
    # also deletes the old cache value".
    test {-M full: stores refused with SERVER_ERROR out of memory storing object, no eviction, no move} {
        mc_exchange $fd "set old 0 0 100\r\n[string repeat o 100]\r\nms ten 2\r\n10\r\n"
        mc_fill $fd full 20000 100
        set moves [mc_stat $fd item_moves]
        set r [mc_exchange $fd "set new 0 0 100\r\n[string repeat n 100]\r\n"]
        set r2 [mc_exchange $fd "set old 0 0 200\r\n[string repeat n 200]\r\n"]
        list $r $r2 [mc_exchange $fd "get new old\r\n"] [mc_stat $fd evictions] \
            [expr {[mc_stat $fd item_moves] - $moves}] \
            [expr {[mc_stat $fd bytes] <= [mc_stat $fd limit_maxbytes]}]
    } [list "SERVER_ERROR out of memory storing object\r\n" "SERVER_ERROR out of memory storing object\r\n" \
          "END\r\n" 0 0 1]

    # "An md with I or an incr/decr that gives such an item a CAS its
    # header cannot hold copies the item ..., making room as a store does:
    # it may evict, or answer SERVER_ERROR out of memory under -M." The
    # meta incr (ma) is the one that takes E; 10 -> 11 keeps the length.
    test {-M full: ma with a far CAS (E) finds no room for its copy: SERVER_ERROR out of memory, item unchanged} {
        # ten (10) was stored before the cache filled
        set tenbefore [mc_exchange $fd "mg ten v c\r\n"]
        set r [mc_exchange $fd "ma ten E$::dm_far v c\r\n"]
        list $r [expr {[mc_exchange $fd "mg ten v c\r\n"] eq $tenbefore}] [string match "VA 2 c*" $tenbefore]
    } [list "SERVER_ERROR out of memory\r\n" 1 1]
}

# ma out of memory, as memcached answers it: on a number it holds,
# SERVER_ERROR out of memory with nothing changed (not even a TTL asked
# with T); on a missing key it was to create (N), SERVER_ERROR Out of
# memory allocating new item.
start_server {tags {doc_memory mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {-M full: ma out of memory changes no TTL; ma N on a missing key: Out of memory allocating new item} {
        mc_exchange $fd "ms ten 2\r\n10\r\n"
        mc_fill $fd full 20000 100
        assert_equal [mc_exchange $fd "set probe 0 0 1\r\nx\r\n"] "SERVER_ERROR out of memory storing object\r\n"
        list [mc_exchange $fd "ma ten E$::dm_far T100 v\r\n"] [mc_exchange $fd "mg ten t v\r\n"] \
            [mc_exchange $fd "ma newnumber N0 J5 v\r\n"] [mc_exchange $fd "mg newnumber v\r\n"]
    } [list "SERVER_ERROR out of memory\r\n" "VA 2 t-1\r\n10\r\n" \
          "SERVER_ERROR Out of memory allocating new item\r\n" "EN\r\n"]
}
