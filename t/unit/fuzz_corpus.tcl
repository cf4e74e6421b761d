# The fuzz harness's corpus as a regression test (issue 14): t/fuzz/fuzz-replay,
# the harness built with the project's own compiler and flags (no libFuzzer),
# runs each target over every file of t/fuzz/corpus/<target>/. Each file is
# one run of the server's connection layer and protocols on socketpairs, after
# which every connection must be closed, every connection-buffer counter back
# to 0 and the keyspace's counts consistent; a broken check aborts. The files
# named crash-* reproduce what fuzzing found (doc/fuzzing.md). Under
# --valgrind the driver runs under valgrind; with --enable-sanitizers it
# carries ASan and UBSan. No server is started.

# fuzz_replay target: runs the driver over the target's corpus; returns the
# number of inputs it ran.
proc fuzz_replay {target} {
    set bin [file join [builddir] t fuzz fuzz-replay]
    if {![file executable $bin]} {
        fail "$bin is not built (make builds it)"
    }
    set dir [file join [srcdir] t fuzz corpus $target]
    set cmd [list $bin $target $dir]
    if {$::cfg(valgrind) && ![built_with_sanitizers]} {
        set cmd [list valgrind -q --leak-check=full \
            --errors-for-leak-kinds=definite --error-exitcode=99 {*}$cmd]
    }
    lassign [run_cmd 120 {*}$cmd] status out
    if {$status ne "0"} { fail "fuzz-replay $target exited $status:\n$out" }
    if {![regexp "fuzz-replay $target: (\\d+) inputs" $out -> n]} {
        fail "fuzz-replay $target printed no count:\n$out"
    }
    set files [llength [glob -nocomplain -types f -directory $dir *]]
    assert_equal $n $files "inputs run vs files in $dir"
    return $n
}

tags {fuzz mcds-only} {
    foreach target {text bin stream multi} {
        test "fuzz corpus: every input of the $target target runs with every invariant kept" {
            assert_true {[fuzz_replay $target] >= 10}
        }
    }
}
