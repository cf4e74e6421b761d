# libmcds (issue 6): the wrappers for mcds-server's queue verbs
# (mcds_queue_*, client/queue.c), run by client/tests/test_queue against
# one mcds server and against a pool of three, plus the queue example.
# Queues are an mcds feature (mcds-only). Against stock memcached the same
# program (MCDS_TEST_QUEUE=unsupported) checks that every call answers
# MCDS_UNSUPPORTED. With --valgrind the program runs under valgrind as
# well as the servers; without, one extra test runs it under valgrind
# against mcds.

set ::env(MCDS_TEST_TIMEOUT) [expr {120 * [time_factor]}]

# libmcds_run_unsupported prog servers: run client/tests/<prog> in its
# MCDS_TEST_QUEUE=unsupported mode (against a stock memcached); the checks.
proc libmcds_run_unsupported {prog servers} {
    set ::env(MCDS_TEST_QUEUE) unsupported
    try {
        return [libmcds_prog_run $prog $servers 1]
    } finally {
        unset ::env(MCDS_TEST_QUEUE)
    }
}

# The checks test_queue runs on one server, and on a pool (3 more).
set ::queue_checks 27
set ::queue_pool_checks 30

start_server {tags {libmcds queue mcds-only}} {
    set servers 127.0.0.1:[srv port]

    test {libmcds queue: every verb, errors, leases, blocking pops, dropped connections, 4x4 threads} {
        libmcds_prog_run test_queue $servers $::queue_checks
    } $::queue_checks

    test {libmcds queue: the example runs and prints its results} {
        set bin [file join [builddir] contrib examples queue]
        if {![file executable $bin]} { skip "$bin is not built (make builds it)" }
        lassign [run_cmd 60 $bin $servers] status out
        if {$status ne "0"} { fail "example queue exited $status:\n$out" }
        assert_match "*got #* send password reset (delivery 1)\ngot #* resize photo 1 (delivery 1)*" $out
        assert_match "*retry #* resize photo 2 (delivery 2)*" $out
        assert_match "*stats: pushed 3, acked 3, released 1, ready 0, in flight 0, dead letters to example-queue:dead*" $out
        assert_match "*waited 200 ms: 0 job(s)*" $out
    }

    test {libmcds queue: test_queue is valgrind clean (no error, no leak)} {
        if {$::cfg(valgrind)} { skip "the run above was under valgrind" }
        if {[built_with_sanitizers]} { skip "built with --enable-sanitizers: valgrind cannot run ASan programs" }
        libmcds_prog_run test_queue $servers $::queue_checks 1
    } $::queue_checks {slow}
}

start_server {tags {libmcds queue pool mcds-only}} {
start_server {} {
start_server {} {
    set servers [join [list 127.0.0.1:[srv -2 port] 127.0.0.1:[srv -1 port] \
        127.0.0.1:[srv 0 port]] ,]

    test {libmcds queue on a pool of 3: queues spread, each on its key's server, all work} {
        libmcds_prog_run test_queue $servers $::queue_pool_checks
    } $::queue_pool_checks
}
}
}

# valgrind:skip: stock memcached cannot start under valgrind.
start_memcached {tags {libmcds queue valgrind:skip}} {
    test {libmcds queue on memcached: MCDS_UNSUPPORTED, message bytes never run as commands} {
        libmcds_run_unsupported test_queue 127.0.0.1:[srv port]
    } 1

    test {libmcds queue views on memcached: MCDS_UNSUPPORTED} {
        libmcds_run_unsupported test_queue_info 127.0.0.1:[srv port]
    } 1
}

# The read-only views (mcds_queue_info, mcds_queue_peek_*, mcds_queue_list:
# client/queue_info.c), run by client/tests/test_queue_info (on memcached:
# above).
set ::queue_info_checks 11

start_server {tags {libmcds queue mcds-only}} {
    test {libmcds queue views: a message's figures, its holder, peeks by id and at delayed ones, the queues page by page, the errors} {
        libmcds_prog_run test_queue_info 127.0.0.1:[srv port] $::queue_info_checks
    } $::queue_info_checks
}

# Deduplication ids and pauses (mcds_queue_push_dedup,
# mcds_queue_push_many_dedup, mcds_queue_pause: client/queue.c,
# client/queue_move.c), run by client/tests/test_queue_dedup.
set ::queue_dedup_checks 5

start_server {tags {libmcds queue mcds-only}} {
    test {libmcds queue: dedup ids (one push, a batch retried whole, the window), pauses, bad ids} {
        libmcds_prog_run test_queue_dedup 127.0.0.1:[srv port] $::queue_dedup_checks
    } $::queue_dedup_checks
}

# FIFO groups (mcds_queue_push_opts, mcds_queue_push_many_opts:
# client/queue.c, client/queue_move.c), run by client/tests/test_queue_group.
set ::queue_group_checks 3

start_server {tags {libmcds queue mcds-only}} {
    test {libmcds queue: FIFO groups (one at a time in order, a batch with dedup), bad options} {
        libmcds_prog_run test_queue_group 127.0.0.1:[srv port] $::queue_group_checks
    } $::queue_group_checks
}

# Messages' ttls and expired=drop (mcds_queue_push_opts,
# mcds_queue_push_many_opts, mcds_queue_opts_t.expired_drop:
# client/queue.c, client/queue_move.c), run by client/tests/test_queue_ttl.
set ::queue_ttl_checks 3

start_server {tags {libmcds queue mcds-only}} {
    test {libmcds queue: ttls on pushes and batches, with dedup ids; expiry to the dead-letter queue or dropped; bad options} {
        libmcds_prog_run test_queue_ttl 127.0.0.1:[srv port] $::queue_ttl_checks
    } $::queue_ttl_checks
}
