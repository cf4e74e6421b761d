# libmcds (issue 6) with one handle over a pool of three servers (ketama):
# the keys of each structure stay together on one server, structures spread
# over all three, and every structure's test program still passes. Once
# with three servers of the kind under test, once with three stock
# memcached. See libmcds.tcl.

source [file join [srcdir] t support libmcds.tcl]

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

# libmcds_run prog servers min_ok: as in libmcds.tcl.
proc libmcds_run {prog servers min_ok} {
    set bin [file join [builddir] client tests $prog]
    if {![file executable $bin]} {
        skip "$bin is not built (make check builds it)"
    }
    lassign [run_cmd 200 $bin $servers] status out
    if {$status ne "0"} { fail "$prog $servers exited $status:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "$prog ran only $n of $min_ok checks:\n$out" }
    verbose $out
    return $n
}

# The server list of the three innermost servers.
proc libmcds_pool3 {} {
    return [join [list 127.0.0.1:[srv -2 port] 127.0.0.1:[srv -1 port] \
        127.0.0.1:[srv 0 port]] ,]
}

# The programs to run on a pool: {name min_ok}.
set ::libmcds_pool_programs {
    {test_pool 3} {test_lock 8} {test_counter 6} {test_sequence 3}
    {test_eventlog 9} {test_array 4} {test_oparray 5} {test_table 7}
    {test_threads 4} {test_errors 10}
}

start_server {tags {libmcds pool}} {
start_server {} {
start_server {} {
    set servers [libmcds_pool3]
    foreach p $::libmcds_pool_programs {
        lassign $p prog min
        test "libmcds on a pool of 3: $prog" {
            libmcds_run $prog $servers $min
        } $min
    }

    # A call that opens the connection of a second server must not lose
    # the first one's (pop_any over two servers wrote to freed memory):
    # only valgrind sees it, so test_pool runs under it here.
    test {libmcds on a pool of 3: test_pool under valgrind, its connections kept while others open} {
        libmcds_prog_run test_pool $servers 3 1
    } 3
}
}
}

# valgrind:skip: stock memcached cannot start under valgrind (it fails to
# set RLIMIT_NOFILE), and it is not the code under test.
start_memcached {tags {libmcds pool valgrind:skip}} {
start_memcached {} {
start_memcached {} {
    set servers [libmcds_pool3]
    foreach p $::libmcds_pool_programs {
        lassign $p prog min
        test "libmcds on a pool of 3 memcached: $prog" {
            libmcds_run $prog $servers $min
        } $min
    }
}
}
}
