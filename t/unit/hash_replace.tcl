# Replacing values in the hash table's chains (doc/protocol.md, "Memory and
# eviction"): a set, cas, append or prepend of an existing key puts its new
# item where the old one was in the bucket's chain. The table starts at its
# smallest size (4,096 buckets) and grows twice while 15,000 keys are
# stored, so keys share buckets and many replaced items sit behind others
# in their chain. Every key must read back its last value, and the counts
# (curr_items, total_items, the table's own hash_items, bytes) must come
# back to zero when every key is deleted.

proc hr_key {i} { return "hr:$i" }

# Value of key i in round r: its length varies with both.
proc hr_value {r i} {
    set v "r$r-$i-"
    append v [string repeat x [expr {($i * 7 + $r * 13) % 40}]]
    return $v
}

# Sends "set" (noreply) of every key in order, in batches.
proc hr_set_all {fd order r} {
    set batch {}
    set n 0
    foreach i $order {
        set v [hr_value $r $i]
        append batch "set [hr_key $i] $r 0 [string length $v] noreply\r\n$v\r\n"
        if {[incr n] % 500 == 0} { mc_send $fd $batch; set batch {} }
    }
    mc_send $fd $batch
}

# The keys whose value is not want($i): checked in multi-gets of 100.
proc hr_wrong {fd nkeys wantvar} {
    upvar $wantvar want
    set wrong {}
    for {set i 0} {$i < $nkeys} {incr i 100} {
        set keys {}
        for {set j $i} {$j < $i + 100 && $j < $nkeys} {incr j} { lappend keys [hr_key $j] }
        mc_send $fd "get [join $keys]\r\n"
        set got [dict create]
        foreach v [mc_read_values $fd] { dict set got [lindex $v 0] [lindex $v 2] }
        for {set j $i} {$j < $i + 100 && $j < $nkeys} {incr j} {
            if {![dict exists $got [hr_key $j]] || [dict get $got [hr_key $j]] ne $want($j)} {
                lappend wrong $j
            }
        }
    }
    return $wrong
}

# Every key's client flags, into flagsvar(i): read in multi-gets of 100.
proc hr_flags {fd nkeys flagsvar} {
    upvar $flagsvar flags
    for {set i 0} {$i < $nkeys} {incr i 100} {
        set keys {}
        for {set j $i} {$j < $i + 100 && $j < $nkeys} {incr j} { lappend keys [hr_key $j] }
        mc_send $fd "get [join $keys]\r\n"
        foreach v [mc_read_values $fd] { set flags([string range [lindex $v 0] 3 end]) [lindex $v 1] }
    }
}

proc hr_shuffled {nkeys seed} {
    expr {srand($seed)}
    set pairs {}
    for {set i 0} {$i < $nkeys} {incr i} { lappend pairs [list [expr {rand()}] $i] }
    set order {}
    foreach p [lsort -real -index 0 $pairs] { lappend order [lindex $p 1] }
    return $order
}

start_server {tags {hash mcds-only} args {-o hashpower=12}} {
    set fd [mc_connect]
    set nkeys 15000

    test {15,000 keys replaced three times in shuffled order while the table grows: each reads its last value} {
        set order {}
        for {set i 0} {$i < $nkeys} {incr i} { lappend order $i }
        hr_set_all $fd $order 0
        foreach r {1 2 3} {
            hr_set_all $fd [hr_shuffled $nkeys $r] $r
        }
        for {set i 0} {$i < $nkeys} {incr i} { set want($i) [hr_value 3 $i] }
        list [hr_wrong $fd $nkeys want] [mc_stat $fd curr_items] [mc_stat $fd total_items] \
            [dict get [mc_stats $fd hash] hash_items]
    } [list {} 15000 60000 15000]

    test {append, prepend and cas replace items inside chains too} {
        set cas_ok 0
        set cas_tried 0
        for {set i 0} {$i < $nkeys} {incr i 3} {
            switch [expr {$i % 9}] {
                0 { mc_exchange $fd "append [hr_key $i] 0 0 2\r\n+a\r\n"; append want($i) +a }
                3 { mc_exchange $fd "prepend [hr_key $i] 0 0 2\r\np+\r\n"; set want($i) "p+$want($i)" }
                6 {
                    incr cas_tried
                    set cas [lindex [mc_gets $fd [hr_key $i]] 1]
                    set v "cas-$i"
                    if {[mc_exchange $fd "cas [hr_key $i] 0 0 [string length $v] $cas\r\n$v\r\n"] eq "STORED\r\n"} {
                        incr cas_ok
                        set want($i) $v
                    }
                }
            }
        }
        list [expr {$cas_ok == $cas_tried && $cas_ok > 1000}] [hr_wrong $fd $nkeys want] \
            [mc_stat $fd curr_items] [dict get [mc_stats $fd hash] hash_items]
    } {1 {} 15000 15000}

    # An item's size is its key's, its value's and whether its client
    # flags are 0 (as in memcached, flags of 0 take no room).
    test {a replacement by a value of the same length and flags leaves bytes unchanged} {
        hr_flags $fd $nkeys flags
        set before [mc_stat $fd bytes]
        set order [hr_shuffled $nkeys 9]
        set batch {}
        foreach i $order {
            append batch "set [hr_key $i] $flags($i) 0 [string length $want($i)] noreply\r\n$want($i)\r\n"
        }
        mc_send $fd $batch
        list [expr {[mc_stat $fd bytes] - $before}] [hr_wrong $fd $nkeys want]
    } {0 {}}

    test {deleting every key brings curr_items, hash_items and bytes to zero} {
        set batch {}
        foreach i [hr_shuffled $nkeys 11] { append batch "delete [hr_key $i] noreply\r\n" }
        mc_send $fd $batch
        list [mc_stat $fd curr_items] [dict get [mc_stats $fd hash] hash_items] [mc_stat $fd bytes]
    } {0 0 0}
}

# SIGTERM while the table grows: the growth thread stops half way (the
# rest of the buckets are moved at once), and the server exits 0 with
# every item freed. Under the sanitizers the stop must race with nothing:
# the end of the block fails on any report.
start_server {tags {hash mcds-only} args {-o hashpower=12}} {
    set fd [mc_connect]
    set filler [mc_connect]

    test {a server told to stop while its table grows exits 0} {
        set seen 0
        for {set round 0} {$round < 40 && !$seen} {incr round} {
            set sets {}
            for {set i 0} {$i < 20000} {incr i} { append sets "set s$round:$i 0 0 1 noreply\r\nx\r\n" }
            mc_send_bg $filler $sets
            for {set poll 0} {$poll < 200 && !$seen} {incr poll} {
                set seen [mc_stat $fd hash_is_expanding]
            }
            mc_exchange $filler ""
        }
        if {$seen} { kill_pid [srv pid] TERM }
        list $seen [wait_server_exit]
    } {1 0}
}
