# Hash flooding (doc/protocol.md, "Limits a client meets"): keys that all
# collide under an unkeyed hash must not pile up in one bucket. The test
# builds 20,000 8-byte keys that collide under MurmurHash3 with seed 0 (the
# hash mcds used before), stores them, and asks the debug-only `stats hash`
# for the longest chain. No timing is measured.

set ::M32 0xffffffff

proc m32_rotl {x r} { expr {(($x << $r) | ($x >> (32 - $r))) & $::M32} }
proc m32_rotr {x r} { expr {(($x >> $r) | ($x << (32 - $r))) & $::M32} }

# The inverse of an odd number modulo 2^32 (Newton's iteration).
proc m32_inverse {c} {
    set x $c
    for {set i 0} {$i < 5} {incr i} { set x [expr {($x * (2 - $c * $x)) & $::M32}] }
    return $x
}

set ::C1 0xcc9e2d51
set ::C2 0x1b873593
set ::C1INV [m32_inverse $::C1]
set ::C2INV [m32_inverse $::C2]
set ::INV5 [m32_inverse 5]

proc m32_mix {k} { expr {([m32_rotl [expr {($k * $::C1) & $::M32}] 15] * $::C2) & $::M32} }
proc m32_unmix {m} { expr {([m32_rotr [expr {($m * $::C2INV) & $::M32}] 15] * $::C1INV) & $::M32} }
proc m32_step {h k} { expr {([m32_rotl [expr {$h ^ [m32_mix $k]}] 13] * 5 + 0xe6546b64) & $::M32} }

# MurmurHash3 x86_32, seed 0, of an 8-byte key given as two words.
proc murmur3_8 {k1 k2} {
    set h [m32_step [m32_step 0 $k1] $k2]
    set h [expr {$h ^ 8}]
    set h [expr {(($h ^ ($h >> 16)) * 0x85ebca6b) & $::M32}]
    set h [expr {(($h ^ ($h >> 13)) * 0xc2b2ae35) & $::M32}]
    expr {$h ^ ($h >> 16)}
}

# The second word that brings the state after word k1 to target.
proc m32_second {k1 target} {
    set x [m32_rotr [expr {(($target - 0xe6546b64) * $::INV5) & $::M32}] 13]
    m32_unmix [expr {[m32_step 0 $k1] ^ $x}]
}

# n distinct 8-byte keys with one MurmurHash3 value, none holding a
# space, a NUL or a line break.
proc colliding_keys {n} {
    set keys {}
    set seen [dict create]
    expr {srand(7)}
    while {[llength $keys] < $n} {
        set k1 [expr {int(rand() * 4294967296)}]
        set k2 [m32_second $k1 0x12345678]
        set key [binary format ii $k1 $k2]
        if {[regexp {[ \x00\r\n]} $key] || [dict exists $seen $key]} continue
        dict set seen $key 1
        lappend keys $key
    }
    return $keys
}

start_server {tags {hash mcds-only}} {
    set fd [mc_connect]

    test {the colliding keys really collide under MurmurHash3 seed 0 (checks the test itself)} {
        set hs {}
        foreach key [colliding_keys 5] {
            binary scan $key ii k1 k2
            lappend hs [murmur3_8 [expr {$k1 & $::M32}] [expr {$k2 & $::M32}]]
        }
        llength [lsort -unique $hs]
    } 1

    test {20,000 keys that collide under an unkeyed hash spread over the table} {
        set keys [colliding_keys 20000]
        set batch {}
        set n 0
        foreach key $keys {
            append batch "set $key 0 0 1 noreply\r\nx\r\n"
            if {[incr n] % 1000 == 0} { mc_send $fd $batch; set batch {} }
        }
        mc_send $fd $batch
        assert_equal [mc_stat $fd curr_items] 20000
        assert_equal [mc_get $fd [lindex $keys 12345]] x
        set longest [dict get [mc_stats $fd hash] hash_longest_chain]
        assert_true {$longest <= 16} "longest chain $longest"
        set longest
    } *

    test {stats hash (a --debug group) reports the table's shape} {
        mc_exchange $fd "stats hash\r\n"
    } "STAT hash_power_level *\r\nSTAT hash_items 20000\r\nSTAT hash_longest_chain *\r\nEND\r\n"
}
