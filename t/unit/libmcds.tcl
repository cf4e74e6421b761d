# libmcds (issue 6), the C client library: its test programs from
# client/tests (built by `make check`) run against the server under test.
# Each program takes a server list, checks real values, prints "ok - ..."
# per check and exits non-zero at the first failure. The same programs run
# against stock memcached (libmcds_memcached.tcl) and against pools of three
# servers (libmcds_pool.tcl). With --valgrind the programs run under
# valgrind as well as the server (libmcds_prog_run, t/support/libmcds.tcl).

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

start_server {tags {libmcds}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds: status codes and mcds_strerror} {
        libmcds_prog_run test_status $servers 4
    } 4

    test {libmcds: lock (owner-only release, N x M guarded counter, killed holder taken over)} {
        libmcds_prog_run test_lock $servers 8
    } 8

    test {libmcds: signed counter created race-free by 8 processes} {
        libmcds_prog_run test_counter $servers 6
    } 6

    test {libmcds: sequence, 8 processes x 100000 IDs without a duplicate} {
        libmcds_prog_run test_sequence $servers 3
    } 3

    test {libmcds: event log fetch exact ranges; reader without loss or repetition; lifetimes at the edges (debugtime)} {
        libmcds_prog_run test_eventlog $servers 9
    } 9

    test {libmcds: rarely written array changed by 8 processes with gets/cas} {
        libmcds_prog_run test_array $servers 4
    } 4

    test {libmcds: op array appends from 8 writers all present after compaction} {
        libmcds_prog_run test_oparray $servers 5
    } 5

    test {libmcds: table and hash membership agree with the list after concurrent writers} {
        libmcds_prog_run test_table $servers 7
    } 7

    test {libmcds: threads with cloned handles or a memcached_pool (exact totals)} {
        libmcds_prog_run test_threads $servers 4
    } 4

    test {libmcds: server down, key too long, value too large, malformed server lists give clear statuses and details} {
        libmcds_prog_run test_errors $servers 10
    } 10

    test {libmcds: every contrib/examples program runs and prints its results} {
        set out {}
        foreach ex {lock counter sequence eventlog array oparray table} {
            set bin [file join [builddir] contrib examples $ex]
            if {![file executable $bin]} { skip "$bin is not built (make builds it)" }
            lassign [run_cmd 60 $bin $servers] status exout
            if {$status ne "0"} { fail "example $ex exited $status:\n$exout" }
            append out $exout
        }
        assert_match "*a second taker gets: lock is held by another owner*" $out
        assert_match "*after -25: -15*" $out
        assert_match "*id 10*" $out
        assert_match "*new since the previous read: 3 event(s)*" $out
        assert_match "*alice\ncarol\ndave\n*" $out
        assert_match {*\[1, 4, 5\]*} $out
        assert_match "*eve is not an admin*pear = 0.90*" $out
    }

    test {libmcds: error paths are valgrind clean (no error, no leak)} {
        if {[auto_execok valgrind] eq {}} {
            skip "valgrind is not installed"
        }
        if {[built_with_sanitizers]} { skip "built with --enable-sanitizers: valgrind cannot run ASan programs" }
        set bin [file join [builddir] client tests test_errors]
        if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
        lassign [run_cmd 200 valgrind -q --leak-check=full --error-exitcode=99 \
            $bin $servers] status out
        if {$status ne "0"} { fail "valgrind test_errors exited $status:\n$out" }
        regexp -all -line {^ok - } $out
    } 10
}
