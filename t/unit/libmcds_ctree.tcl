# libmcds (issue 11): the wrappers for mcds-server's tree-counter verbs
# (mcds_ctree_*, client/ctree.c), run by client/tests/test_ctree against
# one mcds server and against a pool of three (every tree on its group's
# server), the tree-counter example, and, against stock memcached,
# MCDS_UNSUPPORTED.

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

proc ctree_run {servers min_ok {valgrind 0}} {
    set bin [file join [builddir] client tests test_ctree]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    set cmd [list $bin $servers]
    if {$::cfg(valgrind) || $valgrind} {
        if {[auto_execok valgrind] eq {}} { skip "valgrind is not installed" }
        set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 300 {*}$cmd] status out
    if {$status ne "0"} { fail "test_ctree $servers exited $status:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "test_ctree ran only $n of $min_ok checks:\n$out" }
    return $n
}

start_server {tags {libmcds ctree mcds-only}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds ctree: every wrapper, limits, listings with cursors, bad arguments} {
        ctree_run $servers 12
    } 12

    test {libmcds ctree: the example runs and prints its results} {
        set bin [file join [builddir] contrib examples ctree]
        if {![file executable $bin]} { skip "$bin is not built (make builds it)" }
        lassign [run_cmd 60 $bin $servers] status out
        if {$status ne "0"} { fail "example ctree exited $status:\n$out" }
        assert_match "*campaign:1 spent 2021-03-15: 130 (limit 150)*" $out
        assert_match "*refused: ad:1:2 would pass the limit of campaign:1 for 104 20210315*" $out
        assert_match "*campaign:1 2021: 130*" $out
    }

    test {libmcds ctree: test_ctree is valgrind clean (no error, no leak)} {
        if {$::cfg(valgrind)} { skip "the run above was under valgrind" }
        if {[built_with_sanitizers]} { skip "built with --enable-sanitizers: valgrind cannot run ASan programs" }
        ctree_run $servers 12 1
    } 12 {slow}
}

start_server {tags {libmcds ctree pool mcds-only}} {
start_server {} {
start_server {} {
    set servers [join [list 127.0.0.1:[srv -2 port] 127.0.0.1:[srv -1 port] 127.0.0.1:[srv 0 port]] ,]

    test {libmcds ctree on a pool of 3: counters on every server, each tree on its group's server} {
        ctree_run $servers 13
    } 13
}
}
}

# valgrind:skip: stock memcached cannot start under valgrind.
start_memcached {tags {libmcds ctree valgrind:skip}} {
    test {libmcds ctree on memcached: MCDS_UNSUPPORTED} {
        set ::env(MCDS_TEST_CTREE) unsupported
        try {
            ctree_run 127.0.0.1:[srv port] 1
        } finally {
            unset ::env(MCDS_TEST_CTREE)
        }
    } 1
}
