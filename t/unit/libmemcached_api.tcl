# libmemcached's C API against the server under test: t/clients/
# libmemcached_client.c is compiled here, into the unit's scratch directory
# (cc + pkg-config libmemcached), and run once over the text protocol and
# once over the binary protocol. It checks set/get (flags, binary-safe and
# 200 KB values), add/replace, a multi-get of 100 keys with
# memcached_mget + memcached_fetch_result, noreply sets, gets + cas (success
# and conflicts), incr/decr (wrap, floor, non-numeric),
# memcached_increment_with_initial, touch, delete and append/prepend, and
# exits non-zero at the first mismatch. Then the TTL it set with
# memcached_touch is read back through the text protocol.
# Proven against memcached 1.6.18 (./runtest --server /usr/bin/memcached).

# The client binary, built on first use; a skip when the compiler or
# libmemcached-dev is missing.
proc libmemcached_client {} {
    if {[info exists ::lmc_bin]} { return $::lmc_bin }
    set cc [auto_execok cc]
    if {$cc eq {}} { set cc [auto_execok gcc] }
    if {$cc eq {}} { skip "no C compiler (apt-get install build-essential)" }
    if {[auto_execok pkg-config] eq {} ||
            [catch {exec pkg-config --cflags --libs libmemcached} flags]} {
        skip "libmemcached's pkg-config file is missing (apt-get install libmemcached-dev pkg-config)"
    }
    set src [file join [srcdir] t clients libmemcached_client.c]
    set bin [file join [tmpdir build] libmemcached_client]
    lassign [run_cmd 60 {*}$cc -std=c99 -O1 -g -Wall -Wextra -o $bin $src {*}$flags] status out
    if {$status ne "0"} { fail "building $src failed ($status):\n$out" }
    set ::lmc_bin $bin
    return $bin
}

# lmc_run mode -> output; fails with the program's output unless it passes
# every check.
proc lmc_run {mode} {
    set cmd [list [libmemcached_client] --timeout-ms [expr {5000 * [time_factor]}]]
    if {$mode eq "binary"} { lappend cmd --binary }
    lappend cmd 127.0.0.1:[srv port]
    lassign [run_cmd 60 {*}$cmd] status out
    if {$status ne "0"} { fail "libmemcached_client ($mode) exited $status:\n$out" }
    if {![string match "*all checks passed ($mode)*" $out]} {
        fail "libmemcached_client ($mode) did not finish:\n$out"
    }
    verbose $out
    return $out
}

# The remaining TTL of key from `mg <key> t`; fails on a miss.
proc ttl_of_key {fd key} {
    set line [mc_cmd $fd "mg $key t"]
    if {$line eq "EN"} { fail "$key is missing" }
    if {![regexp {^HD t(-?\d+)$} $line -> ttl]} { fail "mg $key t: unexpected '$line'" }
    return $ttl
}

start_server {tags {clients libmemcached}} {
    set fd [mc_connect]

    foreach {mode prefix} {text lmc-text- binary lmc-bin-} {
        test "libmemcached API ($mode): set/get, 100-key mget, cas, incr with initial, touch, delete, append/prepend" {
            set out [lmc_run $mode]
            set n [regexp -all -line {^ok - } $out]
            assert_equal $n 14 "checks passed:\n$out"
            set ::lmc_ran($mode) 1
        }

        test "libmemcached API ($mode): its memcached_touch TTL and its values seen over text" {
            if {![info exists ::lmc_ran($mode)]} { skip "the libmemcached client did not run" }
            assert_range [ttl_of_key $fd ${prefix}touched] 4990 5000
            assert_equal [mc_getflags $fd ${prefix}touched] {8 keep}
            # Keys it wrote through the API read back through the text protocol.
            assert_equal [mc_getflags $fd ${prefix}mget-49] {5 quiet-49}
            assert_equal [mc_getflags $fd ${prefix}ap] {77 start-middle-end!}
            assert_equal [mc_get $fd ${prefix}del] {}
            mc_getflags $fd ${prefix}bin
        } [list [expr {0xdeadbeef}] "a\0b\r\nc\nEND\r\n\xff"]
    }
}
