# libmcds (issue 6) against Debian's stock memcached: every structure uses
# only classic commands (add, append, gets/cas, incr/decr, multi-get), so
# every test program must pass there too, over the text protocol and over
# the binary one (MCDS_TEST_PROTOCOL=binary). See libmcds.tcl.

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

# valgrind:skip: with --valgrind the harness wraps every server in valgrind,
# and stock memcached cannot start there (it fails to set RLIMIT_NOFILE);
# memcached is not the code under test. libmcds.tcl runs the same programs
# under valgrind against mcds.
start_memcached {tags {libmcds valgrind:skip}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds on memcached: lock} {
        libmcds_run test_lock $servers 8
    } 8

    test {libmcds on memcached: counter} {
        libmcds_run test_counter $servers 6
    } 6

    test {libmcds on memcached: sequence} {
        libmcds_run test_sequence $servers 3
    } 3

    test {libmcds on memcached: event log (lifetimes in real time)} {
        libmcds_run test_eventlog $servers 9
    } 9

    test {libmcds on memcached: array} {
        libmcds_run test_array $servers 4
    } 4

    test {libmcds on memcached: op array} {
        libmcds_run test_oparray $servers 5
    } 5

    test {libmcds on memcached: table and hash} {
        libmcds_run test_table $servers 7
    } 7

    test {libmcds on memcached: threads} {
        libmcds_run test_threads $servers 4
    } 4

    test {libmcds on memcached: errors} {
        libmcds_run test_errors $servers 10
    } 10

    foreach p {{test_lock 8} {test_counter 6} {test_sequence 3} {test_eventlog 9}
               {test_array 4} {test_oparray 5} {test_table 7} {test_threads 4}
               {test_errors 10}} {
        lassign $p prog min
        test "libmcds on memcached, binary protocol: $prog" {
            set ::env(MCDS_TEST_PROTOCOL) binary
            try {
                libmcds_run $prog $servers $min
            } finally {
                unset ::env(MCDS_TEST_PROTOCOL)
            }
        } $min
    }
}
