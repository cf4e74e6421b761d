# libmcds: the wrappers for mcds-server's list verbs (mcds_list_*,
# client/list.c), run by client/tests/test_list against one mcds server and
# a pool of three, plus the list example. Lists are an mcds feature
# (mcds-only). libmcds_run is in libmcds_queue.tcl's style: the program
# must exit 0 after its checks; with --valgrind it runs under valgrind.

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

proc libmcds_list_run {servers min_ok} {
    set bin [file join [builddir] client tests test_list]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    set cmd [list $bin $servers]
    if {$::cfg(valgrind)} {
        set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
            --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 300 {*}$cmd] status out
    if {$status ne "0"} { fail "test_list $servers exited $status:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "test_list ran only $n of $min_ok checks:\n$out" }
    return $n
}

start_server {tags {libmcds list mcds-only}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds list: every verb, errors, caps, too large, a blocking pop, moves, mpop, pos, pushx, 4x4 threads} {
        libmcds_list_run $servers 10
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
        libmcds_list_run $servers 11
    } 11
}
}
}
