# libmemcached's protocol conformance checker, ASCII part:
# `memccapable -a -h 127.0.0.1 -p <port>` must report every test passed.

start_server {tags {memccapable}} {
    test {memccapable -a: every ASCII test passes} {
        set bin [auto_execok memccapable]
        if {$bin eq {}} {
            skip "memccapable is not installed (apt-get install libmemcached-tools)"
        }
        lassign [run_cmd 120 {*}$bin -a -t 10 -h 127.0.0.1 -p [srv port]] status out
        set failed {}
        foreach line [split $out \n] {
            if {[regexp {^(ascii.*\S)\s+\[(\w+)\]} $line -> name result] && $result ne "pass"} {
                lappend failed "$name: $result"
            }
        }
        if {$status ne "0" || ![regexp {All tests passed} $out] || [llength $failed]} {
            fail "memccapable exited $status; failed: $failed\n$out"
        }
        # It must actually have run the ASCII tests.
        assert_true {[regexp -all {\[pass\]} $out] >= 20} "too few tests ran:\n$out"
    }
}
