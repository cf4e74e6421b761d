# mcds test runner.
#
#   tclsh t/test_helper.tcl --srcdir DIR --builddir DIR --server PATH [options]
#
# The orchestrator finds the unit files (t/unit/*.tcl, t/integration/*.tcl),
# runs each one in a child tclsh ("worker", up to --clients at a time), relays
# and counts the [ok]/[err]/[skip] lines the workers print, and ends with
# "K skipped" and then exactly "N passed, N failed". It exits 1 when a test
# failed or a unit crashed or timed out. See t/README.md and t/CONTRACT.md.

set ::helper_dir [file dirname [file normalize [info script]]]

array set ::cfg {
    srcdir {} builddir {} server {} valgrind 0 verbose 0 dont_clean 0
    list_only 0 worker 0 clients 2 timeout 300 reply_timeout 10
    singles {} only {} allow_tags {} deny_tags {} unit {} server_kind mcds
}

proc usage {{code 1}} {
    puts stderr {usage: tclsh t/test_helper.tcl [options]
  --srcdir DIR        source tree (default: the directory above t/)
  --builddir DIR      build tree; scratch goes to DIR/t/tmp (default: srcdir)
  --server PATH       server binary (default: BUILDDIR/server/mcds-server);
                      a name starting with "memcached" selects stock mode
  --valgrind          run every server under valgrind
  --single FILE       run only this unit (repeatable; t/unit/x.tcl or unit/x)
  --only NAME|/RE/    run only tests with this name or matching RE (repeatable)
  --tags "a -b"       run only tests tagged a; never tests tagged b
  --clients N         unit files run in parallel (default 2)
  --timeout S         per-unit watchdog in seconds (default 300, x10 valgrind)
  --verbose           more output (server commands, test start/end)
  --dont-clean        keep t/tmp scratch directories
  --list-tests        list units and the tests they contain, run nothing}
    exit $code
}

proc parse_args {argv} {
    for {set i 0} {$i < [llength $argv]} {incr i} {
        set opt [lindex $argv $i]
        set arg [lindex $argv [expr {$i + 1}]]
        switch -- $opt {
            --srcdir { set ::cfg(srcdir) $arg; incr i }
            --builddir { set ::cfg(builddir) $arg; incr i }
            --server { set ::cfg(server) $arg; incr i }
            --valgrind { set ::cfg(valgrind) 1 }
            --single { lappend ::cfg(singles) $arg; incr i }
            --only { lappend ::cfg(only) $arg; incr i }
            --tags {
                foreach t $arg {
                    if {[string index $t 0] eq "-"} {
                        lappend ::cfg(deny_tags) [string range $t 1 end]
                    } else {
                        lappend ::cfg(allow_tags) $t
                    }
                }
                incr i
            }
            --clients { set ::cfg(clients) $arg; incr i }
            --timeout { set ::cfg(timeout) $arg; incr i }
            --verbose { set ::cfg(verbose) 1 }
            --dont-clean { set ::cfg(dont_clean) 1 }
            --list-tests { set ::cfg(list_only) 1 }
            --worker { set ::cfg(worker) 1 }
            --unit { set ::cfg(unit) $arg; incr i }
            --help - -h { usage 0 }
            default {
                puts stderr "unknown option: $opt"
                usage
            }
        }
    }
    if {$::cfg(srcdir) eq {}} { set ::cfg(srcdir) [file dirname $::helper_dir] }
    set ::cfg(srcdir) [file normalize $::cfg(srcdir)]
    if {$::cfg(builddir) eq {}} { set ::cfg(builddir) $::cfg(srcdir) }
    set ::cfg(builddir) [file normalize $::cfg(builddir)]
    if {$::cfg(server) eq {}} {
        set ::cfg(server) [file join $::cfg(builddir) server mcds-server]
    }
    set ::cfg(server) [file normalize $::cfg(server)]
    if {![string is integer -strict $::cfg(clients)] || $::cfg(clients) < 1} {
        puts stderr "--clients needs a positive number"
        usage
    }
}

proc source_support {} {
    foreach f {util test server mc queue list bin python http libmcds} {
        source [file join $::helper_dir support $f.tcl]
    }
    set ::cfg(server_kind) [server_kind_of $::cfg(server)]
}

# The unit files to run, as paths relative to srcdir (t/unit/x.tcl).
proc discover_units {} {
    set tdir [file join $::cfg(srcdir) t]
    if {[llength $::cfg(singles)]} {
        set units {}
        foreach s $::cfg(singles) {
            set cands [list $s [file join $::cfg(srcdir) $s] \
                [file join $tdir $s] [file join $tdir $s.tcl]]
            set found {}
            foreach c $cands {
                if {[file isfile $c]} { set found [file normalize $c]; break }
            }
            if {$found eq {}} {
                puts stderr "no such unit: $s"
                exit 1
            }
            lappend units [relpath $found]
        }
        return $units
    }
    set units {}
    foreach sub {unit integration} {
        foreach f [lsort [glob -nocomplain -directory [file join $tdir $sub] *.tcl]] {
            lappend units [relpath $f]
        }
    }
    return $units
}

proc relpath {path} {
    set src [file split $::cfg(srcdir)]
    set p [file split [file normalize $path]]
    if {[lrange $p 0 [expr {[llength $src] - 1}]] eq $src} {
        return [file join {*}[lrange $p [llength $src] end]]
    }
    return $path
}

# ---------------------------------------------------------------------------
# Worker: run one unit file in this process.

proc worker_main {} {
    source_support
    set unit $::cfg(unit)
    set ::cfg(unit) $unit
    set path [file join $::cfg(srcdir) $unit]
    set limit [expr {$::cfg(timeout) * [time_factor] * 1000}]
    after $limit {
        report_err "unit watchdog" "unit still running after [expr {$::cfg(timeout) * [time_factor]}] s"
        worker_exit 1
    }
    set rc [catch {uplevel #0 [list source $path]} msg opts]
    if {$rc == 1} {
        report_err "unit aborted" [join [lrange [split [dict get $opts -errorinfo] \n] 0 15] \n]
    }
    # Servers left running by an aborted block.
    while {[llength $::server_stack]} {
        set id [lindex $::server_stack end]
        set problems [server__stop $id]
        set ::server_stack [lrange $::server_stack 0 end-1]
        if {$problems ne {}} { report_err "server shutdown ([server__describe $id])" $problems }
    }
    worker_exit 0
}

proc worker_exit {code} {
    kill_live_pids
    set scratch [lmap v {unit_tmpdir open_tmpdirs} {
        expr {[info exists ::cfg($v)] ? $::cfg($v) : {}}
    }]
    foreach dir [concat {*}$scratch] {
        if {$::cfg(dont_clean) || $::count(err) > 0} {
            puts "\[keep\]: $dir"
        } else {
            catch {file delete -force $dir}
        }
    }
    puts "\[done\]: $::count(ok) $::count(err) $::count(skip)"
    flush stdout
    exit $code
}

# ---------------------------------------------------------------------------
# Orchestrator

proc list_tests {} {
    foreach unit [discover_units] {
        puts [unit_name $unit]
        set f [open [file join $::cfg(srcdir) $unit]]
        set data [read $f]
        close $f
        foreach name [scan_test_names $data] { puts "    $name" }
    }
}

proc passthrough_args {} {
    set a [list --srcdir $::cfg(srcdir) --builddir $::cfg(builddir) \
        --server $::cfg(server) --timeout $::cfg(timeout)]
    if {$::cfg(valgrind)} { lappend a --valgrind }
    if {$::cfg(verbose)} { lappend a --verbose }
    if {$::cfg(dont_clean)} { lappend a --dont-clean }
    foreach o $::cfg(only) { lappend a --only $o }
    set tags {}
    foreach t $::cfg(allow_tags) { lappend tags $t }
    foreach t $::cfg(deny_tags) { lappend tags -$t }
    if {[llength $tags]} { lappend a --tags $tags }
    return $a
}

proc start_worker {unit} {
    set cmd [list [info nameofexecutable] [file join $::helper_dir test_helper.tcl] \
        --worker --unit $unit {*}[passthrough_args]]
    # In its own process group (setsid execs in place: same pid), so that a
    # hung unit can be killed with everything it started.
    set setsid [auto_execok setsid]
    if {$setsid ne {}} { set cmd [list {*}$setsid {*}$cmd] }
    set chan [open "|[list {*}$cmd] 2>@1" r]
    fconfigure $chan -blocking 0 -buffering line -translation lf
    set w $chan
    set ::w($w,unit) $unit
    set ::w($w,pids) [pid $chan]
    set ::w($w,start) [clock seconds]
    set ::w($w,done) 0
    set ::w($w,block) {}
    set ::w($w,errs) 0
    set limit [expr {($::cfg(timeout) * [time_factor] + 10) * 1000}]
    set ::w($w,watchdog) [after $limit [list worker_timeout $w]]
    fileevent $chan readable [list worker_readable $w]
    incr ::running
}

# Print a buffered block ([err] line and its message) as one piece.
proc flush_block {w} {
    if {$::w($w,block) ne {}} {
        puts [join $::w($w,block) \n]
        flush stdout
        set ::w($w,block) {}
    }
}

proc worker_line {w line} {
    if {[regexp {^\[(ok|err|skip)\]: (.*)$} $line -> kind rest]} {
        flush_block $w
        incr ::total($kind)
        if {$kind eq "err"} {
            incr ::w($w,errs)
            lappend ::failed $line
        }
        if {$kind eq "ok" || $kind eq "skip"} {
            puts $line
            flush stdout
        } else {
            set ::w($w,block) [list $line]
        }
        return
    }
    if {[regexp {^\[pid\]: (\d+)$} $line -> p]} { set ::w($w,srv,$p) 1; return }
    if {[regexp {^\[unpid\]: (\d+)$} $line -> p]} { unset -nocomplain ::w($w,srv,$p); return }
    if {[regexp {^\[done\]: } $line]} { set ::w($w,done) 1; flush_block $w; return }
    if {[regexp {^\[keep\]: (.*)$} $line -> dir]} {
        flush_block $w
        if {$::cfg(verbose) || $::w($w,errs)} { puts "    (scratch kept in $dir)" }
        return
    }
    if {$::w($w,block) ne {}} {
        lappend ::w($w,block) $line
    } else {
        puts $line
        flush stdout
    }
}

proc worker_readable {w} {
    while {[gets $w line] >= 0} { worker_line $w $line }
    if {[eof $w]} { worker_finished $w {} }
}

proc worker_timeout {w} {
    worker_finished $w "killed by the watchdog after [expr {$::cfg(timeout) * [time_factor] + 10}] s"
}

proc worker_finished {w why} {
    fileevent $w readable {}
    after cancel $::w($w,watchdog)
    flush_block $w
    set unit $::w($w,unit)
    # Kill the servers and helpers the worker left behind, then the worker.
    foreach key [array names ::w $w,srv,*] {
        kill_pid [lindex [split $key ,] end] KILL
    }
    if {$why ne {}} {
        foreach p $::w($w,pids) {
            catch {exec kill -KILL -- -$p 2>/dev/null}
            kill_pid $p KILL
        }
    }
    fconfigure $w -blocking 1
    set status 0
    if {[catch {close $w} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] in {CHILDSTATUS CHILDKILLED}} {
            set status [lindex $code 2]
        } else {
            set status "close error: $err"
        }
    }
    if {$why eq {} && (!$::w($w,done) || $status ne "0")} {
        set why "worker exited with status $status before finishing"
    }
    if {$why ne {}} {
        incr ::total(err)
        set line "\[err\]: unit [unit_name $unit] crashed in $unit"
        lappend ::failed $line
        puts "$line\n    $why"
    }
    set secs [expr {[clock seconds] - $::w($w,start)}]
    incr ::units_done
    puts "\[$::units_done/$::units_total done\]: [unit_name $unit] ($secs seconds)"
    flush stdout
    lappend ::timings [list $secs [unit_name $unit]]
    array unset ::w $w,*
    incr ::running -1
    schedule
}

proc schedule {} {
    while {$::running < $::cfg(clients) && [llength $::queue]} {
        set unit [lindex $::queue 0]
        set ::queue [lrange $::queue 1 end]
        start_worker $unit
    }
    if {$::running == 0 && ![llength $::queue]} { set ::all_done 1 }
}

proc orchestrator_main {} {
    source_support
    if {$::cfg(list_only)} { catch {list_tests}; exit 0 }
    if {![file executable $::cfg(server)]} {
        puts "server binary not found or not executable: $::cfg(server)"
        puts "0 passed, 1 failed"
        exit 1
    }
    file mkdir [file join $::cfg(builddir) t tmp]
    set ::queue [discover_units]
    set ::units_total [llength $::queue]
    set ::units_done 0
    set ::running 0
    set ::failed {}
    set ::timings {}
    array set ::total {ok 0 err 0 skip 0}
    set mode $::cfg(server_kind)
    if {$::cfg(valgrind)} { append mode ", valgrind" }
    puts "Testing [file tail $::cfg(server)] ($mode), $::units_total units, $::cfg(clients) clients"
    set t0 [clock seconds]
    schedule
    if {![info exists ::all_done]} { vwait ::all_done }
    puts ""
    puts "Execution time of units:"
    foreach t [lsort -integer -decreasing -index 0 $::timings] {
        puts "  [lindex $t 0] s [lindex $t 1]"
    }
    puts "Total: [expr {[clock seconds] - $t0}] seconds"
    if {[llength $::failed]} {
        puts "Failed tests:"
        foreach f $::failed { puts "  $f" }
    }
    puts "$::total(skip) skipped"
    puts "$::total(ok) passed, $::total(err) failed"
    flush stdout
    exit [expr {$::total(err) > 0 ? 1 : 0}]
}

parse_args $argv
if {$::cfg(worker)} {
    worker_main
} else {
    orchestrator_main
}
