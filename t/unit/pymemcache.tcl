# pymemcache (Debian's python3-pymemcache, the text protocol) against the
# server under test: t/clients/pymemcache_check.py does set/get, gets/cas,
# incr/decr, delete, get_many/gets_many of 100 keys, touch, add, replace,
# append/prepend, noreply writes, a 500 KB value and Python objects through
# a serde, and exits non-zero at the first mismatch. What it leaves behind
# (a touched TTL, the flags its serde chose) is then read over the text
# protocol. Proven against memcached 1.6.18
# (./runtest --server /usr/bin/memcached).

proc ttl_of_key {fd key} {
    set line [mc_cmd $fd "mg $key t"]
    if {$line eq "EN"} { fail "$key is missing" }
    if {![regexp {^HD t(-?\d+)$} $line -> ttl]} { fail "mg $key t: unexpected '$line'" }
    return $ttl
}

start_server {tags {clients pymemcache}} {
    set fd [mc_connect]
    set ::pymc_ran 0

    test {pymemcache: set/get/gets/cas/incr/decr/delete/get_many/touch/add/replace/append} {
        set py [pymemcache_python]
        set script [file join [srcdir] t clients pymemcache_check.py]
        lassign [run_cmd 60 $py $script 127.0.0.1 [srv port] [expr {5 * [time_factor]}]] status out
        if {$status ne "0"} { fail "pymemcache_check.py exited $status:\n$out" }
        if {![string match "*all checks passed*" $out]} { fail "pymemcache_check.py did not finish:\n$out" }
        verbose $out
        set ::pymc_ran 1
        regexp -all -line {^ok - } $out
    } 12

    test {pymemcache: its touch TTL and its serde flags seen over the text protocol} {
        if {!$::pymc_ran} { skip "the pymemcache script did not run" }
        assert_range [ttl_of_key $fd py-touched] 4990 5000
        assert_equal [mc_getflags $fd py-touched] {0 keep}
        # pymemcache's serde: FLAG_INTEGER 2, FLAG_TEXT 16 (UTF-8), FLAG_PICKLE 1.
        assert_equal [mc_getflags $fd py-int] {2 42}
        assert_equal [mc_getflags $fd py-text] [list 16 [encoding convertto utf-8 "caf\u00e9"]]
        assert_equal [lindex [mc_getflags $fd py-obj] 0] 1
        assert_equal [string length [mc_get $fd py-big]] 512000
        # Its deletes and refused writes left nothing behind.
        list [mc_get $fd py-del] [mc_get $fd py-repl-missing] [mc_get $fd py-ap-missing] [mc_get $fd py-q0]
    } {{} {} {} {}}
}
