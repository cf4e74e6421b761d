# Server limits: memory (-m, eviction; -M, errors instead), connections (-c)
# and the item size limit (-I, with k and m suffixes).

start_server {tags {limits} args {-m 8}} {
    test {-m 8: storing 20 MB evicts the oldest items} {
        set fd [mc_connect]
        set v [string repeat x 100000]
        for {set i 0} {$i < 200} {incr i} {
            set r [mc_set $fd ev$i $v]
            if {$r ne "STORED"} { fail "set ev$i answered $r" }
        }
        set s [mc_stats $fd]
        assert_true {[dict get $s evictions] > 0} "evictions [dict get $s evictions]"
        assert_true {[dict get $s curr_items] < 200} "curr_items [dict get $s curr_items]"
        assert_equal [expr {[dict get $s evictions] + [dict get $s curr_items]}] 200
        assert_equal [mc_get $fd ev0] {}
        assert_equal [mc_get $fd ev199] $v
    }

    test {-m 8: bytes stays below the limit} {
        set fd [mc_connect]
        assert_true {[mc_stat $fd bytes] <= 8 * 1024 * 1024}
        mc_stat $fd limit_maxbytes
    } 8388608

    test {-m 8: evictions keep rising as more is stored} {
        set fd [mc_connect]
        set before [mc_stat $fd evictions]
        set v [string repeat y 100000]
        for {set i 0} {$i < 20} {incr i} { assert_equal [mc_set $fd more$i $v] STORED }
        expr {[mc_stat $fd evictions] - $before >= 20}
    } 1

    test {-m 8: recently read items are kept longer than untouched ones} {
        # Items read again are bumped in the LRU; with the memory limit hit
        # again and again, the item read every round survives.
        set fd [mc_connect]
        set v [string repeat z 100000]
        assert_equal [mc_set $fd hot $v] STORED
        for {set i 0} {$i < 150} {incr i} {
            assert_equal [mc_set $fd cold$i $v] STORED
            if {$i % 5 == 0} { assert_equal [string length [mc_get $fd hot]] 100000 }
        }
        list [string length [mc_get $fd hot]] [mc_get $fd cold0]
    } {100000 {}}
}

start_server {tags {limits} args {-m 8 -M}} {
    test {-M: SERVER_ERROR out of memory storing object instead of evicting} {
        set fd [mc_connect]
        set v [string repeat x 100000]
        set stored 0
        set r {}
        for {set i 0} {$i < 200} {incr i} {
            set r [mc_set $fd nm$i $v]
            if {$r ne "STORED"} break
            incr stored
        }
        assert_equal $r "SERVER_ERROR out of memory storing object"
        assert_true {$stored > 10 && $stored < 200} "stored $stored"
        # The data block was swallowed, the first items are all still there.
        assert_equal [mc_exchange $fd "get nokey\r\n"] "END\r\n"
        assert_equal [mc_get $fd nm0] $v
        set s [mc_stats $fd]
        assert_equal [dict get $s evictions] 0
        assert_true {[dict get $s store_no_memory] >= 1}
        dict get $s curr_items
    } {*[1-9]*}

    test {-M: after deleting items there is room again} {
        set fd [mc_connect]
        set v [string repeat x 100000]
        for {set i 0} {$i < 20} {incr i} { mc_cmd $fd "delete nm$i" }
        mc_set $fd again $v
    } STORED

    test {-M: noreply hides the out of memory error} {
        set fd [mc_connect]
        set v [string repeat w 100000]
        set cmds {}
        for {set i 0} {$i < 100} {incr i} { append cmds "set nr$i 0 0 100000 noreply\r\n$v\r\n" }
        mc_exchange $fd "${cmds}get nokey\r\n"
    } "END\r\n"
}

start_server {tags {limits} args {-c 40 -t 2}} {
    test {-c: a connection over the limit gets ERROR Too many open connections and is closed} {
        set conns {}
        set refused -1
        for {set i 0} {$i < 50} {incr i} {
            set c [mc_connect]
            mc_send $c "version\r\n"
            set r [mc_readline $c]
            if {$r ne "VERSION 1.6.18"} {
                assert_equal $r "ERROR Too many open connections"
                assert_equal [mc_read_until_close $c] {}
                mc_close $c
                set refused $i
                break
            }
            lappend conns $c
        }
        assert_true {$refused > 0 && $refused <= 40} "refused at connection $refused"
        # Every accepted connection still works.
        foreach c $conns { assert_equal [mc_cmd $c version] "VERSION 1.6.18" }
        set ::accepted [llength $conns]
        set ::conns $conns
    }

    test {-c: rejected_connections counts the refusals} {
        mc_stat [lindex $::conns 0] rejected_connections
    } {[1-9]*}

    test {-c: closing connections makes room for new ones} {
        foreach c [lrange $::conns 1 5] { mc_close $c }
        set ok 0
        for {set try 0} {$try < 50 && !$ok} {incr try} {
            set c [mc_connect]
            mc_send $c "version\r\n"
            if {[mc_readline $c] eq "VERSION 1.6.18"} {
                set ok 1
            } else {
                mc_close $c
                after 100
            }
        }
        set ok
    } 1

    test {-c shows as max_connections and maxconns} {
        list [mc_stat [lindex $::conns 0] max_connections] \
            [dict get [mc_stats [lindex $::conns 0] settings] maxconns]
    } {40 40}
}

start_server {tags {limits} args {-I 2m}} {
    test {-I 2m: item_size_max is 2097152} {
        set fd [mc_connect]
        dict get [mc_stats $fd settings] item_size_max
    } 2097152

    test {-I 2m: a 1.5 MB value is stored and read back} {
        set fd [mc_connect]
        set v [randstring 1500000]
        assert_equal [mc_set $fd big $v] STORED
        assert_equal [mc_get $fd big] $v
    }

    test {-I 2m: a 2 MB value is too large} {
        set fd [mc_connect]
        mc_exchange $fd "set big2 0 0 2097152\r\n[string repeat x 2097152]\r\nget big2\r\n"
    } "SERVER_ERROR object too large for cache\r\nEND\r\n"
}

start_server {tags {limits} args {-I 512k}} {
    test {-I 512k: item_size_max is 524288} {
        set fd [mc_connect]
        dict get [mc_stats $fd settings] item_size_max
    } 524288

    test {-I 512k: a 400 KB value fits, a 600 KB value is too large} {
        set fd [mc_connect]
        assert_equal [mc_set $fd ok [string repeat x 400000]] STORED
        mc_exchange $fd "set no 0 0 600000\r\n[string repeat x 600000]\r\nget no\r\n"
    } "SERVER_ERROR object too large for cache\r\nEND\r\n"
}
