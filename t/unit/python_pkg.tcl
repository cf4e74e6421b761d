# contrib/python/mcds, the Python package (issue 34): every call of every
# structure against the server under test (t/clients/mcds_pkg_check.py:
# queues with receipts and batches, lists against a model, tree counters,
# kscan, hostile input), and mcds.Pool's placement, proved against
# libmemcached itself (t/clients/ketama_check.c, built here) and then on
# three running servers (t/clients/mcds_pool_check.py).

# The package's check script, run with the suite's python3: its "ok"
# count, or a failure with its output.
proc python_pkg_run {script min_ok args} {
    set py [pymemcache_python]
    set path [file join [srcdir] t clients $script]
    lassign [run_cmd 120 $py $path {*}$args] status out
    if {$status ne "0"} { fail "$script exited $status:\n$out" }
    if {![string match "*all checks passed*" $out]} { fail "$script did not finish:\n$out" }
    verbose $out
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "$script ran only $n of $min_ok checks:\n$out" }
    return ok
}

# ketama_check built against libmemcached (gcc and libmemcached-dev are
# build dependencies of mcds), once per run.
proc python_pkg_ketama_check {} {
    if {[info exists ::py_ketama_check]} { return $::py_ketama_check }
    set bin [file join [tmpdir pyketama] ketama_check]
    set src [file join [srcdir] t clients ketama_check.c]
    lassign [run_cmd 60 sh -c "cc -o '$bin' '$src' \$(pkg-config --cflags --libs libmemcached)"] status out
    if {$status ne "0"} { fail "cannot build ketama_check.c against libmemcached:\n$out" }
    set ::py_ketama_check $bin
    return $bin
}

start_server {tags {clients pymemcache mcds-only} args {-I 1m}} {
    test {contrib/python/mcds: every call of every structure, its replies and its errors} {
        python_pkg_run mcds_pkg_check.py 110 [srcdir] 127.0.0.1 [srv port] [expr {2 * [time_factor]}]
    } ok

    test {contrib/python/mcds: what the check left, seen over the text protocol} {
        set fd [mc_connect]
        list [q_counts $fd pq:count] [mc_get $fd ps:key:1]
    } {{0 0 0} v}
}

test {mcds.Pool picks libmemcached's server (ketama, as libmcds) for 2,000 keys on five server lists} {
    pymemcache_python
    python_pkg_run mcds_pool_check.py 11 ketama [srcdir] [python_pkg_ketama_check]
} ok

start_server {tags {clients pymemcache mcds-only}} {
start_server {} {
start_server {} {
    test {mcds.Pool over three servers (one weighted): each holds exactly what libmemcached places there} {
        pymemcache_python
        python_pkg_run mcds_pool_check.py 10 live [srcdir] [python_pkg_ketama_check] \
            127.0.0.1:[srv -2 port] 127.0.0.1:[srv -1 port]:3 127.0.0.1:[srv 0 port]
    } ok
}
}
}
