# contrib/python/mcds, the table calls (tables.py): rows with versions and
# any bytes, selections through an index against a model, cursors and
# their iterators, predicate scans, errors and hostile input
# (t/clients/mcds_tables_check.py), then mcds.Pool over three servers.
# Tables are an mcds feature (mcds-only).

proc python_tables_run {min_ok args} {
    set py [pymemcache_python]
    set path [file join [srcdir] t clients mcds_tables_check.py]
    lassign [run_cmd 120 $py $path [srcdir] {*}$args] status out
    if {$status ne "0"} { fail "mcds_tables_check.py exited $status:\n$out" }
    if {![string match "*all checks passed*" $out]} { fail "mcds_tables_check.py did not finish:\n$out" }
    verbose $out
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "mcds_tables_check.py ran only $n of $min_ok checks:\n$out" }
    return ok
}

start_server {tags {clients pymemcache tables mcds-only}} {
start_server {} {
start_server {} {
    test {contrib/python/mcds: every table call, its replies and errors; a Pool of three} {
        python_tables_run 50 127.0.0.1:[srv 0 port] 127.0.0.1:[srv -1 port] 127.0.0.1:[srv -2 port]
    } ok
}
}
}
