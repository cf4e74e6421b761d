# Key scans (doc/protocol.md, "6. Key scans"): kscan and kscanclose. A
# scan returns every key once on a table that does not grow, and at least
# once while it grows; any connection may continue it; filters run on the
# server; scans end, close, or expire when idle; bad input is refused.

start_server {tags {kscan mcds-only}} {
    set fd [mc_connect]
    for {set i 0} {$i < 2000} {incr i} { mc_send $fd "set s$i 0 0 1 noreply\r\nx\r\n" }
    for {set i 0} {$i < 10} {incr i} {
        mc_send $fd "rpush l$i 1 noreply\r\nx\r\nqpush q$i 0 0 1 noreply\r\nx\r\n"
    }
    mc_exchange $fd ""

    test {a whole scan returns every key exactly once, with its type} {
        set all [k_all $fd count=1000]
        assert_equal [llength $all] 2020
        assert_equal [llength [lsort -unique [lmap k $all { lindex $k 0 }]]] 2020
        lsort [lmap k $all { if {[string match {[lq]*} [lindex $k 0]]} { lrange $k 0 1 } else continue }]
    } [lsort [concat [lmap i {0 1 2 3 4 5 6 7 8 9} { list l$i list }] [lmap i {0 1 2 3 4 5 6 7 8 9} { list q$i queue }]]]

    test {filters: a glob, a prefix, a type} {
        assert_equal [lsort [lmap k [k_all $fd match=s1?? count=1000] { lindex $k 0 }]] \
            [lsort [lmap i [lsort -integer [concat {*}[lmap a {0 1 2 3 4 5 6 7 8 9} { lmap b {0 1 2 3 4 5 6 7 8 9} { expr {100 + 10 * $a + $b} } }]]] { set _ s$i }]]
        assert_equal [llength [k_all $fd match=l* count=1000]] 10
        assert_equal [lsort [lmap k [k_all $fd type=queue count=1000] { lindex $k 0 }]] [lsort [lmap i {0 1 2 3 4 5 6 7 8 9} { set _ q$i }]]
        llength [k_all $fd type=string match=q* count=1000]
    } 0

    test {type=ctree: tree-counter objects, KEY lines naming their type} {
        mc_exchange $fd "ctdef 1 104\r\nctobj co1\r\nctobj co2 parent=co1\r\n"
        set got [lsort [k_all $fd type=ctree count=1000]]
        # the subtree's keys leave the keyspace in the background
        mc_exchange $fd "delete co1\r\n"
        wait_for {[llength [k_all $fd type=ctree count=1000]] == 0}
        set got
    } {{co1 ctree -1} {co2 ctree -1}}

    test {filters: TTL ranges (a key without a TTL has an endless one)} {
        mc_exchange $fd "set t1 0 100 1\r\nx\r\nset t2 0 1000 1\r\nx\r\ntouch l0 500\r\n"
        assert_equal [lsort [lmap k [k_all $fd maxttl=600 count=1000] { lrange $k 0 1 }]] {{l0 list} {t1 string}}
        assert_equal [llength [k_all $fd minttl=200 count=1000]] 2021
        lsort [lmap k [k_all $fd minttl=200 maxttl=2000 count=1000] { lindex $k 0 }]
    } {l0 t2}

    test {a scan continued from another connection; kscanclose; a finished scan is closed} {
        lassign [k_page $fd "kscan 0 count=10"] keys id
        set other [mc_connect]
        lassign [k_page $other "kscan $id count=10"] keys2 id2
        assert_equal $id2 $id
        assert_equal [mc_exchange $other "kscanclose $id\r\nkscanclose $id\r\nkscan $id\r\n"] \
            "DELETED\r\nNOT_FOUND\r\nNOT_FOUND\r\n"
        lassign [k_page $fd "kscan 0 count=10000"] keys id
        set last $id
        while {$id != 0} {
            set last $id
            lassign [k_page $fd "kscan $id count=10000"] keys id
        }
        mc_close $other
        mc_exchange $fd "kscanclose $last\r\nkscan $last\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\n"

    test {a scan idle for 600 s is closed; one used meanwhile is not} {
        lassign [k_page $fd "kscan 0 count=1"] keys a
        lassign [k_page $fd "kscan 0 count=1"] keys b
        assert_equal [mc_exchange $fd "debugtime 400\r\n"] "OK\r\n"
        lassign [k_page $fd "kscan $b count=1"] keys b2
        assert_equal $b2 $b
        assert_equal [mc_exchange $fd "debugtime 201\r\nkscan $a count=1\r\n"] "OK\r\nNOT_FOUND\r\n"
        lassign [k_page $fd "kscan $b count=1"] keys b3
        expr {$b3 == $b}
    } 1 {debugtime}

    test {bad input: cursors, counts, options; filters only when starting} {
        set r {}
        set want {}
        set cnt "count must be 1..10000"
        set late "filters are given only when starting a scan"
        foreach {a why} [list x "bad cursor" -1 "bad cursor" 1x "bad cursor" 18446744073709551616 "bad cursor" \
                             "0 count=0" $cnt "0 count=10001" $cnt "0 count=x" $cnt "0 foo=1" "unknown option foo" \
                             "0 type=set" "bad value for type" "0 match=" "bad value for match" \
                             "0 minttl=-1" "bad value for minttl" "0 maxttl=x" "bad value for maxttl" \
                             "0 count" "unknown option count" "1 match=a" $late "1 type=list" $late \
                             "1 count=5 bar" "unknown option bar"] {
            append r [mc_exchange $fd "kscan $a\r\n"]
            append want "CLIENT_ERROR $why\r\n"
        }
        assert_equal $r $want
        assert_equal [mc_exchange $fd "kscan 0 match=[string repeat a 251]\r\nkscanclose x\r\n"] \
            "CLIENT_ERROR bad value for match\r\nCLIENT_ERROR bad cursor\r\n"
        mc_exchange $fd "kscan\r\nkscan 0 count=1 count=1 count=1 count=1 count=1 count=1\r\nkscanclose\r\nkscanclose 1 2\r\nkscan 424242\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\nNOT_FOUND\r\n"
}

start_server {tags {kscan mcds-only} args {-o hashpower=12}} {
    set fd [mc_connect]

    test {while the table grows, every key there from the start is returned at least once} {
        for {set i 0} {$i < 3000} {incr i} { mc_send $fd "set g$i 0 0 1 noreply\r\nx\r\n" }
        mc_exchange $fd ""
        assert_equal [mc_stat $fd hash_power_level] 12
        lassign [k_page $fd "kscan 0 count=500"] seen id
        for {set i 0} {$i < 12000} {incr i} { mc_send $fd "set n$i 0 0 1 noreply\r\nx\r\n" }
        mc_exchange $fd ""
        set pages 0
        while {$id != 0} {
            lassign [k_page $fd "kscan $id count=200"] keys id
            lappend seen {*}$keys
            incr pages
        }
        assert_true {[mc_stat $fd hash_power_level] >= 13} "the table grew"
        set got [lsort -unique [lmap k $seen { if {[string match g* [lindex $k 0]]} { lindex $k 0 } else continue }]]
        llength $got
    } 3000

    test {at most 1024 open scans} {
        set r {}
        for {set i 0} {$i < 1024} {incr i} { append r [mc_exchange $fd "kscan 0 count=1\r\n"] }
        assert_equal [regexp -all {CURSOR [1-9]} $r] 1024
        mc_exchange $fd "kscan 0 count=1\r\n"
    } "SERVER_ERROR too many open scans\r\n"
}

# A hostile glob does not stall the scan (glibc's fnmatch does not blow up on
# stars; checked here), and the glob features work as documented.
start_server {tags {kscan mcds-only}} {
    set fd [mc_connect]
    for {set i 0} {$i < 50} {incr i} { mc_send $fd "set [string repeat a 245]$i 0 0 1 noreply\r\nx\r\n" }
    mc_exchange $fd ""

    test {a hostile glob (*a*a*…*b on 250-byte keys) is answered at once and matches nothing} {
        llength [k_all $fd match=[string repeat *a 20]*b count=1000]
    } 0

    test {glob features: ?, [classes], [!negation], ranges, \ escapes} {
        foreach k {ab1 ab2 abx a*c} { mc_exchange $fd "set $k 0 0 1\r\nx\r\n" }
        lmap pat {ab? ab\[12\] ab\[!12\] ab\[0-9\] a\\*c} {
            lsort [lmap k [k_all $fd match=$pat count=1000] { lindex $k 0 }]
        }
    } {{ab1 ab2 abx} {ab1 ab2} abx {ab1 ab2} a*c}
}

# count bounds the keys of a page, not the buckets it visits: a nearly
# empty server is scanned in a few calls, never hundreds of empty pages; a
# page visits at most 65,536 buckets, so a sparse big table costs a few
# pages too.
start_server {tags {kscan mcds-only}} {
    set fd [mc_connect]
    for {set i 0} {$i < 20} {incr i} { mc_send $fd "set few$i 0 0 1 noreply\r\nx\r\n" }
    mc_exchange $fd ""

    test {20 keys, count=10: pages of at most 10 keys, the whole scan in at most 3 calls} {
        lassign [k_page $fd "kscan 0 count=10"] keys id
        set sizes [list [llength $keys]]
        set all $keys
        while {$id != 0} {
            lassign [k_page $fd "kscan $id count=10"] keys id
            lappend sizes [llength $keys]
            lappend all {*}$keys
        }
        assert_true {[llength $sizes] <= 3} "[llength $sizes] pages"
        foreach n $sizes { assert_range $n 0 10 "pages: $sizes" }
        llength [lsort -unique [lmap k $all { lindex $k 0 }]]
    } 20

    test {count=1: one key a page (a bucket is never split between pages)} {
        lassign [k_page $fd "kscan 0 count=1"] keys id
        set pages 1
        set all $keys
        while {$id != 0} {
            lassign [k_page $fd "kscan $id count=1"] keys id
            incr pages
            lappend all {*}$keys
        }
        list [llength [lsort -unique [lmap k $all { lindex $k 0 }]]] [expr {$pages <= 21}]
    } {20 1}
}
