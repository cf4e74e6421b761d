# The hash table doubles online, one bucket at a time, while clients keep
# reading and writing. Starting at 2^12 buckets, 30000 keys force at least
# three doublings; every key must stay readable throughout.

start_server {tags {hash mcds-only} args {-o hashpower=12}} {
    test {the table grows from 2^12 buckets and no key is lost} {
        set fd [mc_connect]
        set reader [mc_connect]
        assert_equal [mc_stat $fd hash_power_level] 12
        set n 30000
        for {set batch 0} {$batch < $n} {incr batch 1000} {
            set req {}
            for {set i $batch} {$i < $batch + 1000} {incr i} {
                append req "set key:$i 0 0 [string length $i] noreply\r\n$i\r\n"
            }
            mc_send $fd $req
            assert_equal [mc_exchange $fd ""] ""
            # Read back a spread of earlier keys while the table may be moving.
            for {set j 0} {$j < $batch} {incr j 997} {
                assert_equal [mc_get $reader key:$j] $j "key:$j during growth"
            }
        }
        wait_for {[mc_stat $fd hash_is_expanding] == 0} 100 50
        assert_true {[mc_stat $fd hash_power_level] >= 15} "hash_power_level [mc_stat $fd hash_power_level]"
        assert_equal [mc_stat $fd curr_items] $n
        set missing 0
        for {set batch 0} {$batch < $n} {incr batch 500} {
            set req {}
            for {set i $batch} {$i < $batch + 500} {incr i} { append req " key:$i" }
            set r [mc_exchange $fd "get$req\r\n"]
            incr missing [expr {500 - [regexp -all {VALUE key:} $r]}]
        }
        set missing
    } 0
}
