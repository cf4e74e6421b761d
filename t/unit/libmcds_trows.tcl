# libmcds: the wrappers for mcds-server's table verbs (mcds_t*,
# client/trows.c), run by client/tests/test_trows against one mcds server
# and a pool of three, plus the example contrib/examples/rows.c
# (libmcds_prog_run, t/support/libmcds.tcl; under
# valgrind with --valgrind). Tables are an mcds feature (mcds-only).

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

start_server {tags {libmcds tables mcds-only}} {
    test {libmcds tables: rows with versions, any bytes, selections and pages, scans, errors} {
        libmcds_prog_run test_trows 127.0.0.1:[srv port] 5
    } 5

    test {libmcds tables: the example runs and prints its results} {
        set bin [file join [builddir] contrib examples rows]
        if {![file executable $bin]} { skip "$bin is not built (make builds it)" }
        lassign [run_cmd 60 $bin 127.0.0.1:[srv port]] status out
        if {$status ne "0"} { fail "example rows exited $status:\n$out" }
        assert_match "*Alice is 35 now*" $out
        assert_match "*Paris, 30+, a page: Bob Alice\nParis, 30+, a page: Dave\n*" $out
        assert_match "*names starting with Ca: Carol*" $out
    }
}

start_server {tags {libmcds tables mcds-only}} {
start_server {} {
start_server {} {
    test {libmcds tables: a pool of three, each table's cursors continued on its server} {
        libmcds_prog_run test_trows 127.0.0.1:[srv -2 port],127.0.0.1:[srv -1 port],127.0.0.1:[srv 0 port] 5
    } 5
}
}
}
