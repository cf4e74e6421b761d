# What a cache item in a segment leaves out (doc/design.md, "Memory"):
# client flags of 0 take no room, and a CAS number within 2^31 of its
# segment's base is kept as a 4-byte difference in the header. An item
# whose CAS cannot be held that way (meta E, a scan's move of an old item)
# keeps the full number. These tests count the bytes, check that nothing
# about an item changes with its layout, and that CAS numbers keep
# growing as memcached's do (ms I compares them).

# layout_cost fd prefix flags extra: what each of 1,000 values of 40 bytes
# under 5-byte keys, stored with ms and these flags and meta flags, adds to
# total_malloced and to the bytes stat.
proc layout_cost {fd prefix flags extra} {
    set v [string repeat v 40]
    # The first store of a size keeps the block values are read into.
    mc_exchange $fd "ms ${prefix}warm 40 F$flags $extra q\r\n$v\r\n"
    set before [dict get [mc_stats $fd slabs] total_malloced]
    set bytes [mc_stat $fd bytes]
    set batch ""
    for {set i 0} {$i < 1000} {incr i} {
        append batch [format "ms %s%04d 40 F%d %s q\r\n%s\r\n" $prefix $i $flags $extra $v]
    }
    mc_exchange $fd $batch
    list [expr {round(([dict get [mc_stats $fd slabs] total_malloced] - $before) / 1000.0)}] \
        [expr {round(([mc_stat $fd bytes] - $bytes) / 1000.0)}]
}

# layout_far: a CAS number far above any a segment's base is near.
set ::layout_far 1152921504606846976

start_server {tags {item_layout mcds-only} args {-m 64 -t 1}} {
    set fd [mc_connect]

    # 32-byte header + 5 + 42: 79, 80 in the segment (rounded to 8).
    # Client flags add 4, a full CAS 8. The bytes stat counts an item's
    # bytes without the rounding, as memcached's counts its header, key and
    # value.
    test {a small item takes 80 bytes; client flags other than 0 and a far CAS add theirs} {
        list [layout_cost $fd a 0 {}] [layout_cost $fd b 7 {}] \
            [layout_cost $fd c 0 E$::layout_far] [layout_cost $fd d 4294967295 E$::layout_far]
    } {{80 79} {88 83} {88 87} {96 91}}

    test {every layout reads back its flags, CAS and value, small and large} {
        set bad {}
        foreach len {1 40 500 600 5000} {
            foreach flags {0 1 65536 4294967295} {
                foreach e [list {} E$::layout_far E[expr {$::layout_far + $len + $flags}]] {
                    set k "k$len-$flags-[string length $e]"
                    set v [randstring $len]
                    set r [mc_exchange $fd "ms $k $len F$flags $e c\r\n$v\r\n"]
                    regexp {^HD c(\d+)\r\n} $r -> cas
                    if {$e ne {}} { assert_equal $cas [string range $e 1 end] }
                    set want "VALUE $k $flags $len $cas\r\n$v\r\nEND\r\n"
                    if {[mc_exchange $fd "gets $k\r\n"] ne $want} { lappend bad $k }
                }
            }
        }
        set bad
    } {}

    # md I changes a CAS in place; a far one (E) does not fit the header of
    # an item in a segment, which is then copied. The copy must be the same
    # item as the one changed in place, but for the CAS.
    test {md I with a CAS far from its segment's base keeps value, flags, TTL, last access and hit} {
        foreach k {near far} {
            assert_equal [mc_exchange $fd "ms $k 5 F9 T1000\r\nhello\r\n"] "HD\r\n"
            mc_exchange $fd "mg $k v\r\n"
        }
        assert_equal [mc_exchange $fd "md near I\r\n"] "HD\r\n"
        assert_equal [mc_exchange $fd "md far I E$::layout_far\r\n"] "HD\r\n"
        set near [mc_exchange $fd "mg near v f t h l c\r\n"]
        set far [mc_exchange $fd "mg far v f t h l c\r\n"]
        list [regsub { c\d+ } $near { c }] [regsub " c$::layout_far " $far { c }]
    } [list "VA 5 f9 t1000 h1 l0 c X W\r\nhello\r\n" "VA 5 f9 t1000 h1 l0 c X W\r\nhello\r\n"]

    test {incr and decr with a CAS far from the segment's base: the copy holds the number and the CAS} {
        assert_equal [mc_exchange $fd "set n 3 0 2\r\n41\r\n"] "STORED\r\n"
        set a [mc_exchange $fd "ma n E$::layout_far v c\r\n"]
        set b [mc_exchange $fd "ma n MD E[expr {$::layout_far + 1}] v c\r\n"]
        list $a $b [mc_exchange $fd "gets n\r\n"]
    } [list "VA 2 c$::layout_far\r\n42\r\n" "VA 2 c[expr {$::layout_far + 1}]\r\n41\r\n" \
          "VALUE n 3 2 [expr {$::layout_far + 1}]\r\n41\r\nEND\r\n"]
}

start_server {tags {item_layout mcds-only} args {-m 2}} {
    set fd [mc_connect]

    # Each md I below copies its item, leaving a hole in a segment whose
    # other items stay: the copies must make room as stores do, or 12,000
    # items and the holes of half of them would take the account a third
    # past -m.
    test {md I copies of 6,000 items stay within -m; the last one holds its CAS} {
        mc_fill $fd one 12000 100
        set over 0
        for {set i 0} {$i < 12000} {incr i 1000} {
            set batch ""
            for {set j $i} {$j < $i + 1000} {incr j 2} {
                append batch "md one$j I E[expr {$::layout_far + $j}] q\r\n"
            }
            mc_exchange $fd $batch
            if {[dict get [mc_stats $fd slabs] total_malloced] > 2 * 1024 * 1024} { incr over }
        }
        list $over [mc_exchange $fd "mg one11998 c s\r\n"]
    } [list 0 "HD c[expr {$::layout_far + 11998}] s100 X W\r\n"]
}

start_server {tags {item_layout} args {-m 8}} {
    set fd [mc_connect]

    # memcached's bytes never passes limit_maxbytes: items live within it.
    test {bytes stays within limit_maxbytes however small the items} {
        mc_fill $fd k 150000 40
        list [expr {[mc_stat $fd bytes] <= [mc_stat $fd limit_maxbytes]}] [expr {[mc_stat $fd evictions] > 0}]
    } {1 1}
}

start_server {tags {item_layout mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {-M: an md I whose copy finds no room is SERVER_ERROR out of memory, and the item is as it was} {
        mc_fill $fd full 20000 100
        set before [mc_exchange $fd "mg full100 c v\r\n"]
        list [mc_exchange $fd "md full100 I E$::layout_far\r\n"] \
            [expr {[mc_exchange $fd "mg full100 c v\r\n"] eq $before}] [string match "VA 100 c*" $before]
    } [list "SERVER_ERROR out of memory\r\n" 1 1]
}

start_server {tags {item_layout mcds-only} args {-m 8}} {
    set fd [mc_connect]

    # Items read once move to the main queue when the scan reaches them:
    # a copy in a newer segment, whose base is far from a CAS set with E.
    test {items with a full CAS the eviction scan moves keep it, with their flags and value} {
        set want {}
        for {set i 0} {$i < 300} {incr i} {
            set v [randstring 60]
            set cas [expr {$::layout_far + $i * 7}]
            assert_equal [mc_exchange $fd "ms wide$i 60 F$i E$cas\r\n$v\r\n"] "HD\r\n"
            lappend want "VALUE wide$i $i 60 $cas\r\n$v\r\nEND\r\n"
            mc_exchange $fd "mg wide$i v\r\n"
        }
        set ev [mc_stat $fd evictions]
        mc_fill $fd fill 150000 100
        set same 0
        for {set i 0} {$i < 300} {incr i} {
            if {[mc_exchange $fd "gets wide$i\r\n"] eq [lindex $want $i]} { incr same }
        }
        list $same [expr {[mc_stat $fd evictions] - $ev > 50000}]
    } {300 1}
}

start_server {tags {item_layout} args {-t 4}} {
    # memcached hands CAS numbers out from one counter; ms I tells an
    # older CAS from a newer one by comparing them.
    test {CAS numbers only grow, whichever worker stores: each is above every earlier one} {
        set fds {}
        for {set i 0} {$i < 4} {incr i} { lappend fds [mc_connect] }
        set last 0
        set bad 0
        for {set i 0} {$i < 2000} {incr i} {
            set fd [lindex $fds [expr {$i % 4}]]
            set r [mc_exchange $fd "ms key[expr {$i % 50}] 1 c\r\nx\r\n"]
            if {![regexp {^HD c(\d+)\r\n} $r -> cas] || $cas <= $last} { incr bad }
            set last $cas
        }
        set bad
    } 0
}
