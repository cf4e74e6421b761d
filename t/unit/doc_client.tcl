# Black-box tests of libmcds written only from its contract, client/mcds.h:
# client/tests/test_doc_client runs every documented call (return codes,
# argument checks, locks contended by two clients, sequences from two
# processes, event log bounds, arrays, op arrays, tables and hashes,
# queues, lists, tree counters) against mcds, against a pool with a dead
# member, against nothing at all and, expecting MCDS_UNSUPPORTED for the
# extended verbs, against stock memcached. The program does not stop at a
# failure: it prints "not ok - ..." per failed check and exits with their
# number, so one run shows every disagreement. With --valgrind it runs
# under valgrind too.

set ::env(MCDS_TEST_TIMEOUT) [expr {60 * [time_factor]}]

# doc_client_run servers mode: the program's "not ok" lines ({} when none),
# failing the test when it could not run or valgrind found an error.
proc doc_client_run {servers mode {min_ok 1}} {
    set bin [file join [builddir] client tests test_doc_client]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    set cmd [list $bin $servers $mode]
    if {$::cfg(valgrind)} {
        set cmd [list valgrind -q --leak-check=full \
            --errors-for-leak-kinds=definite --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 120 {*}$cmd] status out
    verbose $out
    if {$status eq "99"} { fail "valgrind found an error:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "test_doc_client ran only $n checks (exit $status):\n$out" }
    return [join [regexp -all -inline -line {^not ok - .*$} $out] "\n"]
}

start_server {tags {libmcds mcds-only}} {
    set servers 127.0.0.1:[srv port]
    test {doc client: every call of mcds.h against mcds returns what the header says} {
        doc_client_run $servers mcds 500
    } {}

    test {doc client: a pool with a dead member: each key always usable or always SERVER_DOWN} {
        doc_client_run $servers,127.0.0.1:1 pool
    } {}
}

test {doc client: nothing listening: SERVER_DOWN from every structure; argument errors keep the detail} {
    doc_client_run 127.0.0.1:1 down 40
} {}

start_memcached {tags {libmcds valgrind:skip}} {
    test {doc client: stock memcached: extended verbs are UNSUPPORTED, classic structures work} {
        doc_client_run 127.0.0.1:[srv port] memcached 13
    } {}
}
