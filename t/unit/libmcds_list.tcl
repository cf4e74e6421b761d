# libmcds: the wrappers for mcds-server's list verbs (mcds_list_*,
# client/list.c), run by client/tests/test_list against one mcds server and
# a pool of three, plus the list example. Lists are an mcds feature
# (mcds-only). The program must exit 0 after its checks; with --valgrind it
# runs under valgrind (libmcds_prog_run, t/support/libmcds.tcl).

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

start_server {tags {libmcds list mcds-only}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds list: every verb, errors, caps, too large, a blocking pop, moves, mpop, pos, pushx, 4x4 threads} {
        libmcds_prog_run test_list $servers 10
    } 10

    test {libmcds list: the example runs and prints its results} {
        set bin [file join [builddir] contrib examples list]
        if {![file executable $bin]} { skip "$bin is not built (make builds it)" }
        lassign [run_cmd 60 $bin $servers] status out
        if {$status ne "0"} { fail "example list exited $status:\n$out" }
        assert_match {*latest 3: \[dave joined\] \[carol commented\] \[bob liked a photo\]*} $out
        assert_match {*bob's like was there: yes; removed 1*} $out
        assert_match {*oldest taken: \[carol commented\]*} $out
    }
}

start_server {tags {libmcds list pool mcds-only}} {
start_server {} {
start_server {} {
    set servers [join [list 127.0.0.1:[srv -2 port] 127.0.0.1:[srv -1 port] \
        127.0.0.1:[srv 0 port]] ,]

    test {libmcds list on a pool of 3: each list on its key's server, all work} {
        libmcds_prog_run test_list $servers 11
    } 11
}
}
}
