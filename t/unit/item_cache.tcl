# Kept blocks (doc/performance.md, "Large values: kept blocks" and "Small
# blocks"): a worker keeps the blocks of large items it frees (16 KB and
# up) for its next items of about their size, and small blocks (1 KB or
# less: the blocks small values are built in before they are copied into
# a segment) for its next items of exactly their block's size.
# They stay in total_malloced and under -m, item_kept_bytes shows them,
# item_kept_reuses counts the items built in one, and they never cost a
# live item its place.

# slab_stat fd name: one figure of stats slabs.
proc slab_stat {fd name} {
    dict get [mc_stats $fd slabs] $name
}

start_server {tags {item_cache mcds-only} args {-t 1 -m 64}} {
    set fd [mc_connect]

    test {values between the small and the large blocks (1000 bytes here) are never kept} {
        for {set i 0} {$i < 20} {incr i} {
            mc_set $fd small [randstring 1000]
        }
        mc_exchange $fd "delete small\r\n"
        list [mc_stat $fd item_kept_bytes] [mc_stat $fd item_kept_reuses]
    } {0 0}

    test {overwriting a large value builds the new item in the old one's block: total_malloced stays put} {
        set v [randstring 100000]
        assert_equal [mc_set $fd big $v] STORED
        assert_equal [mc_set $fd big $v] STORED
        set before [slab_stat $fd total_malloced]
        set reuses [mc_stat $fd item_kept_reuses]
        for {set i 0} {$i < 10} {incr i} {
            assert_equal [mc_set $fd big [randstring 100000]] STORED
        }
        assert_equal [mc_set $fd big $v] STORED
        assert_equal [mc_get $fd big] $v
        list [expr {[slab_stat $fd total_malloced] - $before}] \
            [expr {[mc_stat $fd item_kept_reuses] - $reuses}]
    } {0 11}

    test {a deleted large item's block is kept and counted: total_malloced does not drop, item_kept_bytes covers it} {
        mc_set $fd big2 [randstring 60000]
        set before [slab_stat $fd total_malloced]
        set kept [mc_stat $fd item_kept_bytes]
        assert_equal [mc_exchange $fd "delete big2\r\n"] "DELETED\r\n"
        set grew [expr {[mc_stat $fd item_kept_bytes] - $kept}]
        list [expr {[slab_stat $fd total_malloced] - $before}] [expr {$grew >= 60000 && $grew < 60000 + 256}]
    } {0 1}

    test {a block is reused only by an item of about its size (an eighth more at most)} {
        set reuses [mc_stat $fd item_kept_reuses]
        mc_set $fd other [randstring 20000]
        mc_exchange $fd "delete other\r\n"
        mc_set $fd other [randstring 40000]
        expr {[mc_stat $fd item_kept_reuses] - $reuses}
    } 0

    test {flush_all keeps at most -m / 64 in blocks (1 MB here), counted in total_malloced} {
        for {set i 0} {$i < 40} {incr i} {
            mc_set $fd many$i [randstring 100000]
        }
        mc_exchange $fd "flush_all\r\n"
        set kept [mc_stat $fd item_kept_bytes]
        list [expr {$kept > 0 && $kept <= 1048576}] [expr {[slab_stat $fd total_malloced] >= $kept}]
    } {1 1}
}

start_server {tags {item_cache mcds-only} args {-t 1 -m 4}} {
    set fd [mc_connect]

    test {under -m, large values evict each other and reuse the victims' blocks, and total_malloced stays under the limit} {
        set over 0
        for {set i 0} {$i < 200} {incr i} {
            # keys of one length: valgrind's malloc gives exact sizes
            assert_equal [mc_set $fd [format ev%03d $i] [randstring 50000]] STORED
            if {[slab_stat $fd total_malloced] > 4 * 1048576} { incr over }
        }
        list $over [expr {[mc_stat $fd evictions] > 100}] [expr {[mc_stat $fd item_kept_reuses] > 100}] \
            [string length [mc_get $fd ev199]]
    } {0 1 1 50000}

    test {a kept block is given back before a live item is evicted} {
        mc_exchange $fd "flush_all\r\n"
        # fill up to the limit with 50 KB items, keep one block (delete),
        # then store 40 KB, which cannot reuse it: the block goes, no item
        set ev [mc_stat $fd evictions]
        for {set i 0} {[mc_stat $fd evictions] == $ev} {incr i} {
            mc_set $fd f$i [randstring 50000]
        }
        set ev [mc_stat $fd evictions]
        mc_exchange $fd "delete f[expr {$i - 1}]\r\n"
        set kept [mc_stat $fd item_kept_bytes]
        mc_set $fd tiny [randstring 40000]
        list [expr {$kept >= 50000}] [expr {[mc_stat $fd evictions] - $ev}] [mc_stat $fd item_kept_bytes]
    } {1 0 0}
}

start_server {tags {item_cache mcds-only} args {-t 1 -m 64}} {
    set fd [mc_connect]

    test {stats slabs: chunk_size is the mean footprint of the stored items, kept blocks left out} {
        mc_set $fd one [randstring 1000]
        mc_set $fd gone [randstring 100000]
        mc_exchange $fd "delete gone\r\n"
        assert_true {[mc_stat $fd item_kept_bytes] >= 100000}
        set size [slab_stat $fd 1:chunk_size]
        expr {$size >= 1000 && $size < 1200}
    } 1
}

# Small blocks are kept only when malloc made them the size it rounds a
# request to; valgrind's and the sanitizers' mallocs do not round. A small
# value is built in a block of its own as it is read, and copied into a
# segment as it is linked (t/unit/seg.tcl): the block then goes back to
# its worker's kept blocks, and the next value of its size is built in it.
start_server {tags {item_cache mcds-only glibc-malloc} args {-t 1 -m 64}} {
    set fd [mc_connect]

    test {a small value is built in a kept block, copied into a segment as it is linked, and its block kept for the next} {
        mc_set $fd k [randstring 32]
        mc_set $fd k [randstring 32]
        set kept [mc_stat $fd item_kept_bytes]
        set reuses [mc_stat $fd item_kept_reuses]
        for {set i 0} {$i < 100} {incr i} {
            assert_equal [mc_set $fd k [randstring 32]] STORED
        }
        list [expr {$kept > 0}] [expr {[mc_stat $fd item_kept_bytes] - $kept}] \
            [expr {[mc_stat $fd item_kept_reuses] - $reuses}]
    } {1 0 100}
}
