# libmcds: the wrappers for mcds-server's table verbs (mcds_t*,
# client/trows.c), run by client/tests/test_trows against one mcds server
# and a pool of three. Tables are an mcds feature (mcds-only).

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

proc libmcds_trows_run {servers min_ok} {
    set bin [file join [builddir] client tests test_trows]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    set cmd [list $bin $servers]
    if {$::cfg(valgrind)} {
        set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
            --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 300 {*}$cmd] status out
    if {$status ne "0"} { fail "test_trows $servers exited $status:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "test_trows ran only $n of $min_ok checks:\n$out" }
    return $n
}

start_server {tags {libmcds tables mcds-only}} {
    test {libmcds tables: rows with versions, any bytes, selections and pages, scans, errors} {
        libmcds_trows_run 127.0.0.1:[srv port] 5
    } 5
}

start_server {tags {libmcds tables mcds-only}} {
start_server {} {
start_server {} {
    test {libmcds tables: a pool of three, each table's cursors continued on its server} {
        libmcds_trows_run 127.0.0.1:[srv -2 port],127.0.0.1:[srv -1 port],127.0.0.1:[srv 0 port] 5
    } 5
}
}
}
