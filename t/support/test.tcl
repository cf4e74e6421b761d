# The test primitives: test, tags, assertions, fail and skip, and the
# tag filter that decides whether a test runs.
#
# A test prints exactly one line: "[ok]: name", "[err]: name in file" followed
# by the failure message, or "[skip]: name (reason)". The orchestrator counts
# those lines. Failures of assertions and any other error inside a test body
# are failures of that test; the unit goes on with the next test.

set ::tag_stack {}
set ::count(ok) 0
set ::count(err) 0
set ::count(skip) 0

# ---------------------------------------------------------------------------
# Reporting

proc report_ok {name} {
    incr ::count(ok)
    puts "\[ok\]: $name"
    flush stdout
}

proc report_err {name msg} {
    incr ::count(err)
    puts "\[err\]: $name in $::cfg(unit)"
    foreach line [split [string trimright $msg] \n] { puts "    $line" }
    flush stdout
}

proc report_skip {name reason} {
    incr ::count(skip)
    puts "\[skip\]: $name ($reason)"
    flush stdout
}

proc verbose {msg} {
    if {$::cfg(verbose)} { puts "    .. $msg"; flush stdout }
}

# ---------------------------------------------------------------------------
# Assertions. They raise errors with -errorcode {ASSERTION msg}.

proc fail {msg} {
    return -code error -errorcode [list ASSERTION $msg] $msg
}

proc skip {msg} {
    return -code error -errorcode [list SKIP $msg] $msg
}

proc assert_equal {value expected {detail {}}} {
    if {$value ne $expected} {
        set msg "Expected '[visible $expected]' but got '[visible $value]'"
        if {$detail ne {}} { append msg " ($detail)" }
        fail $msg
    }
}

proc assert_not_equal {value unexpected {detail {}}} {
    if {$value eq $unexpected} {
        set msg "Expected something other than '[visible $unexpected]'"
        if {$detail ne {}} { append msg " ($detail)" }
        fail $msg
    }
}

proc assert_match {pattern value {detail {}}} {
    if {![string match $pattern $value]} {
        set msg "Expected '[visible $value]' to match '[visible $pattern]'"
        if {$detail ne {}} { append msg " ($detail)" }
        fail $msg
    }
}

proc assert_true {cond {detail {}}} {
    if {![uplevel 1 [list expr $cond]]} {
        set msg "Expected true: $cond"
        if {$detail ne {}} { append msg " ($detail)" }
        fail $msg
    }
}

proc assert_range {value min max {detail {}}} {
    if {![string is double -strict $value] || $value < $min || $value > $max} {
        set msg "Expected '[visible $value]' to be between $min and $max"
        if {$detail ne {}} { append msg " ($detail)" }
        fail $msg
    }
}

# assert_error pattern script: the script must raise an error whose message
# glob-matches pattern. Returns the message.
proc assert_error {pattern script} {
    if {[catch {uplevel 1 $script} msg opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] eq "SKIP"} { return -options $opts $msg }
        if {![string match $pattern $msg]} {
            fail "Expected an error matching '[visible $pattern]' but got '[visible $msg]'"
        }
        return $msg
    }
    fail "Expected an error matching '[visible $pattern]' but the script succeeded"
}

# stock_memcached_only why: skip the current test when the server under test
# is mcds, for the few places where mcds deliberately follows current
# memcached instead of 1.6.18 (the mcds behaviour has its own mcds-only test).
proc stock_memcached_only {why} {
    if {[is_mcds]} { skip "mcds differs on purpose: $why" }
}

# ---------------------------------------------------------------------------
# Tags

# tags {a b} {body}: run body with the tags pushed.
proc tags {taglist body} {
    set saved $::tag_stack
    lappend ::tag_stack {*}$taglist
    set rc [catch {uplevel 1 $body} res opts]
    set ::tag_stack $saved
    return -options $opts $res
}

# The tags that are denied automatically for the server under test.
proc auto_denied_tags {} {
    set deny {}
    if {$::cfg(server_kind) eq "memcached"} {
        lappend deny mcds-only
        # A memcached-debug build has the debugtime verb.
        if {![string match memcached-debug* [file tail $::cfg(server)]]} {
            lappend deny debugtime
        }
    }
    if {$::cfg(valgrind)} { lappend deny valgrind:skip runtime:signals glibc-malloc }
    if {[built_with_sanitizers]} { lappend deny sanitizer:skip runtime:signals glibc-malloc }
    if {$::cfg(server_kind) eq "mcds" && ![built_with_tls]} { lappend deny tls }
    return $deny
}

# tags_skip_reason taglist: "" when tests with these tags may run, else the
# reason they are skipped. Reasons starting with "--" come from the user's
# own --tags filter: such tests are left out silently, not reported.
proc tags_skip_reason {taglist} {
    if {[llength $::cfg(allow_tags)]} {
        set allowed 0
        foreach t $::cfg(allow_tags) {
            if {$t in $taglist} { set allowed 1 }
        }
        if {!$allowed} { return "--tags allows none of its tags" }
    }
    foreach t $taglist {
        if {$t in [auto_denied_tags]} {
            switch -glob -- $t {
                mcds-only { return "mcds-only: the server under test is stock memcached" }
                debugtime { return "debugtime: stock memcached has no clock verb" }
                valgrind:skip { return "valgrind:skip: timing-sensitive under valgrind" }
                sanitizer:skip { return "sanitizer:skip: measures CPU or memory, which a sanitizer build changes" }
                runtime:signals { return "runtime:signals: valgrind or the sanitizer runtime catches signals of its own (SEGV, BUS, FPE...)" }
                glibc-malloc { return "glibc-malloc: needs glibc's block sizes; valgrind and the sanitizers replace malloc" }
                tls { return "tls: this mcds-server was built without TLS (configure --disable-tls, or no libssl-dev)" }
            }
            return "tag $t denied"
        }
        if {$t in $::cfg(deny_tags)} { return "--tags denies $t" }
    }
    return {}
}

# Does the name pass the --only filters? (no filter: everything passes)
proc name_selected {name} {
    if {![llength $::cfg(only)]} { return 1 }
    foreach pat $::cfg(only) {
        if {[string index $pat 0] eq "/" && [string index $pat end] eq "/" &&
                [string length $pat] > 1} {
            if {[regexp -- [string range $pat 1 end-1] $name]} { return 1 }
        } elseif {$pat eq $name} {
            return 1
        }
    }
    return 0
}

# ---------------------------------------------------------------------------
# test name body ?expected? ?tags?

proc test {name body {expected "\0no-expected\0"} {testtags {}}} {
    if {![name_selected $name]} { return }
    set alltags [concat $::tag_stack $testtags]
    set reason [tags_skip_reason $alltags]
    if {$reason ne {}} {
        if {![string match --* $reason]} { report_skip $name $reason }
        return
    }
    if {$::cfg(list_only)} { return }
    verbose "running: $name"
    set ::current_test $name
    set t0 [clock milliseconds]
    set rc [catch {uplevel 1 $body} result opts]
    set ::current_test {}
    set elapsed [expr {[clock milliseconds] - $t0}]
    verbose "done in $elapsed ms"

    if {$rc == 1} {
        set code [dict get $opts -errorcode]
        switch -- [lindex $code 0] {
            SKIP {
                report_skip $name $result
            }
            ASSERTION {
                report_err $name [string cat $result [server_death_note]]
            }
            default {
                set info [dict get $opts -errorinfo]
                set lines [lrange [split $info \n] 0 11]
                report_err $name [string cat [join $lines \n] [server_death_note]]
            }
        }
        return
    }
    if {$rc != 0 && $rc != 2} {
        report_err $name "test body returned with code $rc"
        return
    }
    if {$expected ne "\0no-expected\0" &&
            $result ne $expected && ![string match $expected $result]} {
        report_err $name "Expected '[visible $expected]' but got '[visible $result]'"
        return
    }
    set death [server_death_note]
    if {$death ne {}} {
        report_err $name [string trim $death]
        return
    }
    report_ok $name
}

# Static scan of a script for the names of the tests it contains, used to
# report skipped server blocks test by test and for --list-tests. Names
# containing variables are reported as written.
proc scan_test_names {script} {
    set names {}
    foreach line [split $script \n] {
        if {[regexp {^\s*test\s+(\{[^\}]*\}|"[^"]*"|\S+)} $line -> word]} {
            set first [string index $word 0]
            if {$first eq "\{" || $first eq "\""} {
                set word [string range $word 1 end-1]
            }
            lappend names $word
        }
    }
    return $names
}
