# Black-box tests of --persist-items (doc/persistence.md, referenced from
# doc/protocol.md "Other commands"): "every change to a cache value is
# logged as the value it leaves ... deletes and evictions as deletes,
# flush_all as the CAS below which values are gone", so every acknowledged
# change survives kill -9, for every --fsync policy; CAS numbers go on
# 2^32 above the highest block end logged. Written only from the documents.

# Every documented kind of change to cache values, then kill -9.
proc items_workload {fd} {
    set big [string repeat x 100000]
    assert_equal [mc_set $fd k:set hello 7] STORED
    assert_equal [mc_set $fd k:big $big 9] STORED
    assert_equal [mc_exchange $fd "add k:add 3 0 1\r\na\r\n"] "STORED\r\n"
    assert_equal [mc_exchange $fd "set k:app 0 0 1\r\nm\r\nappend k:app 0 0 2\r\n>>\r\nprepend k:app 0 0 2\r\n<<\r\n"] "STORED\r\nSTORED\r\nSTORED\r\n"
    assert_equal [mc_exchange $fd "set k:rep 0 0 3\r\nold\r\nreplace k:rep 5 0 3\r\nnew\r\n"] "STORED\r\nSTORED\r\n"
    assert_equal [mc_exchange $fd "set k:num 0 0 2\r\n10\r\nincr k:num 32\r\ndecr k:num 2\r\n"] "STORED\r\n42\r\n40\r\n"
    lassign [mc_gets $fd k:set] v cas
    assert_equal [mc_exchange $fd "cas k:set 8 0 5 $cas\r\nworld\r\n"] "STORED\r\n"
    assert_equal [mc_exchange $fd "set k:del 0 0 1\r\nd\r\ndelete k:del\r\n"] "STORED\r\nDELETED\r\n"
    assert_equal [mc_exchange $fd "set k:ttl 0 0 1\r\nt\r\ntouch k:ttl 1000\r\n"] "STORED\r\nTOUCHED\r\n"
    assert_equal [mc_exchange $fd "set k:gat 0 0 1\r\ng\r\ngat 2000 k:gat\r\n"] "STORED\r\nVALUE k:gat 0 1\r\ng\r\nEND\r\n"
    assert_equal [mc_exchange $fd "set k:exp 0 100 1\r\ne\r\n"] "STORED\r\n"
    assert_equal [mc_exchange $fd "ms k:meta 4 F11\r\nmeta\r\n"] "HD\r\n"
    assert_equal [mc_exchange $fd "ms k:mdel 1\r\nz\r\nmd k:mdel\r\n"] "HD\r\nHD\r\n"
    assert_equal [mc_exchange $fd "ms k:ma 1\r\n5\r\nma k:ma D10\r\n"] "HD\r\nHD\r\n"
    set ::max_cas [lindex [mc_gets $fd k:ma] 1]
}

proc items_check {fd} {
    set bad {}
    foreach {k want} [list k:set world k:add a k:app <<m>> k:rep new k:num 40 \
            k:ttl t k:gat g k:exp e k:meta meta k:ma 15 k:big [string repeat x 100000]] {
        set got [mc_get $fd $k]
        if {$got ne $want} { lappend bad "$k: '[string range $got 0 40]' want '[string range $want 0 40]'" }
    }
    foreach {k f} {k:set 8 k:big 9 k:add 3 k:rep 5 k:meta 11} {
        set got [lindex [mc_getflags $fd $k] 0]
        if {$got ne $f} { lappend bad "$k flags $got want $f" }
    }
    foreach k {k:del k:mdel} {
        if {[mc_get $fd $k] ne {}} { lappend bad "$k deleted but back" }
    }
    return $bad
}

foreach policy {always everysec no} {
    set dir [tmpdir items-$policy]
    with_data_dir $dir [list --persist-items --fsync $policy] {
        test "persist-items, fsync $policy: every kind of change to cache values, then kill -9" {
            set fd [mc_connect]
            items_workload $fd
            list [mc_stat $fd persistence] [dict get [mc_stats $fd settings] persist_items] [dict get [mc_stats $fd settings] fsync]
        } [list on yes $policy]
    }
    with_data_dir $dir [list --persist-items --fsync $policy] {
        test "persist-items, fsync $policy: after kill -9 every acknowledged value, flag and delete is back" {
            items_check [mc_connect]
        } {}
        test "persist-items, fsync $policy: a CAS number after the restart is above every one before" {
            set fd [mc_connect]
            assert_equal [mc_set $fd k:new x] STORED
            set ::cas_after [lindex [mc_gets $fd k:new] 1]
            expr {$::cas_after > $::max_cas}
        } 1
        # doc/persistence.md: "After a restart both go on 2^32 above the
        # highest end logged (0 when none is yet: the first block's end is
        # not logged), which is more than 2^20 above any number handed out
        # before the crash": here no block end was logged (a few CAS numbers).
        test "persist-items, fsync $policy: CAS numbers go on 2^32 above the highest end logged, above every earlier one" {
            expr {$::cas_after > 4294967296 && $::cas_after > $::max_cas + 1048576 ? "yes" : "no: $::cas_after after $::max_cas"}
        } yes
        test "persist-items, fsync $policy: TTLs are absolute across the restart" {
            set fd [mc_connect]
            mc_exchange $fd "debugtime 101\r\n"
            list [mc_get $fd k:exp] [mc_get $fd k:ttl]
        } {{} t} {debugtime}
    }
}

# flush_all: values before it are gone after a restart, values after it stay.
set dir [tmpdir items-flush]
with_data_dir $dir --persist-items {
    test {persist-items: flush_all then new values, kill -9} {
        set fd [mc_connect]
        for {set i 0} {$i < 50} {incr i} { mc_set $fd f:old$i v$i }
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        for {set i 0} {$i < 50} {incr i} { mc_set $fd f:new$i n$i }
        mc_get $fd f:old3
    } {}
}
with_data_dir $dir --persist-items {
    test {persist-items: after kill -9 flushed values stay gone and later ones are back} {
        set fd [mc_connect]
        set old 0; set new 0
        for {set i 0} {$i < 50} {incr i} {
            if {[mc_get $fd f:old$i] ne {}} { incr old }
            if {[mc_get $fd f:new$i] eq "n$i"} { incr new }
        }
        list $old $new
    } {0 50}
}

# Without --persist-items cache values are not kept, structures are.
set dir [tmpdir items-off]
with_data_dir $dir {} {
    test {without --persist-items: a cache value is not kept, a queue is} {
        set fd [mc_connect]
        mc_set $fd plain v
        q_push $fd pq m
        dict get [mc_stats $fd settings] persist_items
    } no
}
with_data_dir $dir {} {
    test {without --persist-items: after kill -9 the value is gone, the message is there} {
        set fd [mc_connect]
        list [mc_get $fd plain] [q_stat $fd pq ready]
    } {{} 1}
}

# Evictions are logged as deletes: an evicted key never comes back.
set dir [tmpdir items-evict]
with_data_dir $dir {--persist-items -m 8} {
    test {persist-items: evictions under -m 8, then kill -9} {
        set fd [mc_connect]
        set val [string repeat e 20000]
        for {set i 0} {$i < 1500} {incr i} { mc_set $fd ev:$i $val }
        set ::present {}
        for {set i 0} {$i < 1500} {incr i} {
            if {[mc_get $fd ev:$i] ne {}} { lappend ::present $i }
        }
        list [expr {[mc_stat $fd evictions] > 0}] [expr {[llength $::present] < 1500}]
    } {1 1}
}
with_data_dir $dir {--persist-items -m 8} {
    test {persist-items: after kill -9 exactly the keys present before are back (no evicted key returns)} {
        set fd [mc_connect]
        set now {}
        for {set i 0} {$i < 1500} {incr i} {
            if {[mc_get $fd ev:$i] ne {}} { lappend now $i }
        }
        set lost [lmap i $::present { expr {$i in $now ? [continue] : $i} }]
        set back [lmap i $now { expr {$i in $::present ? [continue] : $i} }]
        list [llength $lost] [llength $back]
    } {0 0}
}

# The documented stats and a second server on one directory.
start_server {tags {persist mcds-only}} {
    test {without --data-dir: persistence off, snapshot refused} {
        set fd [mc_connect]
        list [mc_stat $fd persistence] [mc_exchange $fd "snapshot\r\n"]
    } [list off "SERVER_ERROR persistence is off (start with --data-dir)\r\n"]
}

set dir [tmpdir items-lock]
with_data_dir $dir --persist-items {
    test {a second server on the same directory refuses to start, and the first keeps its data} {
        set fd [mc_connect]
        mc_set $fd lk v
        lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir $dir --persist-items] status out
        list [expr {$status ne 0}] [string match "*persistence: * is in use by another mcds-server*" $out] [mc_get $fd lk] \
            [lsort [glob -nocomplain -tails -directory $dir *]]
    } {1 1 v {LOCK log.0000000000000000}}
}
