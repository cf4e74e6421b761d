# libmcds_prog_run prog servers min_ok ?valgrind?: runs client/tests/<prog>
# against the server list (under valgrind with --valgrind, or when valgrind
# is 1); fails with its output unless it exits 0 after at least min_ok
# passed checks ("ok - " lines). Returns the number of checks. Skips when
# the program is not built (make check builds it).
proc libmcds_prog_run {prog servers min_ok {valgrind 0}} {
    set bin [file join [builddir] client tests $prog]
    if {![file executable $bin]} { skip "$bin is not built (make check builds it)" }
    set cmd [list $bin $servers]
    if {$::cfg(valgrind) || $valgrind} {
        if {[auto_execok valgrind] eq {}} { skip "valgrind is not installed" }
        set cmd [list valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
            --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 300 {*}$cmd] status out
    if {$status ne "0"} { fail "$prog $servers exited $status:\n$out" }
    set n [regexp -all -line {^ok - } $out]
    if {$n < $min_ok} { fail "$prog ran only $n of $min_ok checks:\n$out" }
    verbose $out
    return $n
}
