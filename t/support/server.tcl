# Starting and stopping servers for a block of tests.
#
#   start_server {args {-m 8} tags {a b}} { ...tests... }
#   start_memcached {args {...}} { ...tests... }
#
# Servers stack: `srv 0 port` is the innermost, `srv -1 port` the enclosing
# one. Each server writes stdout and stderr to <scratch>/server.N/stderr. On
# the way out the server gets SIGTERM; the block fails (an [err] line) if it
# does not exit in time, exits non-zero, or valgrind reports an error or a
# definite leak.
#
# mcds is started as `mcds-server -p 0 -l 127.0.0.1 --debug ARGS` and the port
# is read from its "listening on 127.0.0.1:<port>" line. A stock memcached is
# started as `memcached -p <free port> -U 0 -l 127.0.0.1 [-u root] ARGS`.

set ::server_stack {}
set ::server_seq 0

proc server_kind_of {binary} {
    if {[string match memcached* [file tail $binary]]} { return memcached }
    return mcds
}

proc running_as_root {} {
    if {![info exists ::cfg(uid)]} {
        set ::cfg(uid) [string trim [exec id -u]]
    }
    return [expr {$::cfg(uid) == 0}]
}

proc valgrind_prefix {dir} {
    set supp [file join $::cfg(srcdir) t valgrind.supp]
    # --trace-children: a server that restarts itself in place (exec, as a
    # replica's full resync does: doc/replication.md) stays under valgrind;
    # the same pid writes the same log, the last instance's.
    set cmd [list valgrind --leak-check=full --errors-for-leak-kinds=definite \
        --error-exitcode=99 --trace-children=yes --log-file=[file join $dir vg.%p.log]]
    if {[file exists $supp]} { lappend cmd --suppressions=$supp }
    return $cmd
}

# srv ?level? key: a fact about a running server. Keys: port pid host stderr
# args kind binary dir.
proc srv {args} {
    if {[llength $args] == 1} {
        set level 0
        set key [lindex $args 0]
    } elseif {[llength $args] == 2} {
        lassign $args level key
    } else {
        error "usage: srv ?level? key"
    }
    set id [srv_id $level]
    if {![info exists ::srvinfo($id,$key)]} {
        error "srv: unknown key '$key'"
    }
    return $::srvinfo($id,$key)
}

proc srv_id {level} {
    if {![string is integer -strict $level] || $level > 0} {
        error "srv: bad level '$level' (0 is the innermost server, -1 the one around it)"
    }
    set idx [expr {[llength $::server_stack] - 1 + $level}]
    if {$idx < 0} { error "srv: no server at level $level" }
    return [lindex $::server_stack $idx]
}

# Is the server under test (level 0) mcds?
proc is_mcds {{level 0}} {
    return [expr {[srv $level kind] eq "mcds"}]
}

# Last n lines of a file, for failure messages.
proc file_tail {path {n 20}} {
    if {[catch {open $path r} f]} { return "(no $path)" }
    set data [read $f]
    close $f
    return [join [lrange [split [string trimright $data] \n] end-[expr {$n-1}] end] \n]
}

proc read_file {path} {
    set f [open $path r]
    fconfigure $f -translation binary
    set data [read $f]
    close $f
    return $data
}

# ---------------------------------------------------------------------------
# Spawning

# Launch the process; returns the server id. Does not wait for readiness.
proc server__spawn {binary kind extra {valgrind 1}} {
    set id s[incr ::server_seq]
    set dir [tmpdir server]
    set errfile [file join $dir stderr]
    set cmd [list $binary]
    set port 0
    if {$kind eq "memcached"} {
        set port [free_port]
        lappend cmd -p $port -U 0 -l 127.0.0.1
        if {[running_as_root]} { lappend cmd -u root }
    } else {
        lappend cmd -p 0 -l 127.0.0.1 --debug
    }
    lappend cmd {*}$extra
    set full $cmd
    set ::srvinfo($id,valgrind) [expr {$::cfg(valgrind) && $valgrind}]
    if {$::srvinfo($id,valgrind)} { set full [concat [valgrind_prefix $dir] $cmd] }
    verbose "starting: $full"
    set chan [open "|[list {*}$full >& $errfile]" w]
    set pid [lindex [pid $chan] 0]
    register_pid $pid
    array set ::srvinfo [list \
        $id,chan $chan $id,pid $pid $id,port $port $id,host 127.0.0.1 \
        $id,stderr $errfile $id,args $extra $id,kind $kind \
        $id,binary $binary $id,dir $dir $id,cmd $cmd $id,reaped 0 \
        $id,status {} $id,death_noted 0 $id,fds {}]
    return $id
}

# Wait until the server accepts connections. Returns "" when ready, else a
# reason ("died" when the process exited).
proc server__wait_ready {id} {
    set deadline [expr {[clock milliseconds] + 15000 * [time_factor]}]
    set pid $::srvinfo($id,pid)
    while {[clock milliseconds] < $deadline} {
        if {!$::srvinfo($id,port)} {
            set log [read_file $::srvinfo($id,stderr)]
            if {[regexp {listening on 127\.0\.0\.1:(\d+)} $log -> port]} {
                set ::srvinfo($id,port) $port
            }
        }
        if {$::srvinfo($id,port)} {
            if {![catch {socket 127.0.0.1 $::srvinfo($id,port)} s]} {
                set ok [server__owns_connection $id $s]
                catch {close $s}
                if {$ok} { return {} }
            }
        }
        if {![pid_alive $pid]} { return died }
        sleep_ms 20
    }
    return "not ready after [expr {15 * [time_factor]}] s"
}

# For memcached (port picked by us) make sure the listener is ours: its
# `stats` pid must be our process. mcds reported its own port.
proc server__owns_connection {id s} {
    if {$::srvinfo($id,kind) ne "memcached"} { return 1 }
    fconfigure $s -translation binary -blocking 1
    if {[catch {
        puts -nonewline $s "stats\r\n"
        flush $s
        set spid {}
        while {[gets $s line] >= 0} {
            set line [string trimright $line \r]
            if {$line eq "END"} break
            if {[regexp {^STAT pid (\d+)} $line -> spid]} {}
        }
    }]} { return 0 }
    return [expr {$spid eq $::srvinfo($id,pid)}]
}

# Reap an exited (or killed) server and record its exit status.
proc server__reap {id} {
    if {$::srvinfo($id,reaped)} { return $::srvinfo($id,status) }
    set chan $::srvinfo($id,chan)
    set status 0
    if {[catch {close $chan} err opts]} {
        set code [dict get $opts -errorcode]
        switch -- [lindex $code 0] {
            CHILDSTATUS { set status [lindex $code 2] }
            CHILDKILLED { set status [lindex $code 2] }
            default { set status "close error: $err" }
        }
    }
    unregister_pid $::srvinfo($id,pid)
    set ::srvinfo($id,reaped) 1
    set ::srvinfo($id,status) $status
    return $status
}

# Wait for the process to be gone, up to ms. Returns 1 when it exited.
proc server__wait_gone {id ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[pid_alive $::srvinfo($id,pid)]} {
        if {[clock milliseconds] >= $deadline} { return 0 }
        sleep_ms 20
    }
    return 1
}

# Valgrind's verdict for a reaped server: "" when clean, else a message.
proc server__valgrind_problems {id} {
    if {!$::srvinfo($id,valgrind)} { return {} }
    # A server a test killed with SIGKILL (a crash test) leaves no summary.
    if {$::srvinfo($id,status) eq "SIGKILL"} { return {} }
    set problems {}
    if {$::srvinfo($id,status) eq "99"} {
        lappend problems "valgrind exit code 99 (errors or definite leaks)"
    }
    set log [file join $::srvinfo($id,dir) vg.$::srvinfo($id,pid).log]
    if {![file exists $log]} {
        lappend problems "no valgrind log $log"
    } else {
        set data [read_file $log]
        if {![regexp {ERROR SUMMARY: 0 errors} $data]} {
            lappend problems "valgrind log $log lacks 'ERROR SUMMARY: 0 errors':"
            lappend problems [file_tail $log 60]
        }
    }
    return [join $problems \n]
}

# A sanitizer's report in the server's stderr (a build configured with
# --enable-sanitizers or --enable-sanitizers=thread), or "".
proc server__sanitizer_report {id} {
    set err [read_file $::srvinfo($id,stderr)]
    if {[regexp -line {(WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:).*} $err what]} {
        return "sanitizer report in stderr: $what"
    }
    return {}
}

proc server__describe {id} {
    return "[file tail $::srvinfo($id,binary)] [join $::srvinfo($id,args)]"
}

# Close every client channel opened to this server.
proc server__close_fds {id} {
    foreach fd $::srvinfo($id,fds) { catch {close $fd} }
    set ::srvinfo($id,fds) {}
}

# Stop a server: SIGTERM, wait, SIGKILL. Returns a failure message or "".
proc server__stop {id} {
    server__close_fds $id
    set problems {}
    set pid $::srvinfo($id,pid)
    if {!$::srvinfo($id,reaped)} {
        set expected 0
        if {[pid_alive $pid]} {
            kill_pid $pid TERM
            if {![server__wait_gone $id [expr {10000 * [time_factor]}]]} {
                kill_pid $pid KILL
                server__wait_gone $id 5000
                lappend problems "did not exit within [expr {10 * [time_factor]}] s of SIGTERM; killed with SIGKILL"
            }
        } elseif {$::srvinfo($id,death_noted)} {
            # Its death already failed a test; just reap it.
            set expected {}
        } else {
            lappend problems "had already exited before the end of its block"
        }
        set status [server__reap $id]
        if {$expected ne {} && $status ne $expected && ![llength $problems]} {
            lappend problems "exited with status $status after SIGTERM (expected 0)"
        }
    }
    set vg [server__valgrind_problems $id]
    if {$vg ne {}} { lappend problems $vg }
    set san [server__sanitizer_report $id]
    if {$san ne {}} { lappend problems $san }
    if {[llength $problems]} {
        lappend problems "stderr tail ($::srvinfo($id,stderr)):" [file_tail $::srvinfo($id,stderr) 15]
    }
    return [join $problems \n]
}

# A note to add to a failing test when a server died during it ("" if none).
proc server_death_note {} {
    set note {}
    foreach id $::server_stack {
        if {$::srvinfo($id,reaped) || $::srvinfo($id,death_noted)} continue
        if {![pid_alive $::srvinfo($id,pid)]} {
            set ::srvinfo($id,death_noted) 1
            set status [server__reap $id]
            append note "\nserver [server__describe $id] (pid $::srvinfo($id,pid)) died, status $status; stderr tail:\n"
            append note [file_tail $::srvinfo($id,stderr) 40]
            set vg [server__valgrind_problems $id]
            if {$vg ne {}} { append note \n$vg }
        }
    }
    return $note
}

# ---------------------------------------------------------------------------
# Public procs

# wait_server_exit ?level? ?seconds?: wait for a server that is expected to
# exit by itself (shutdown, a signal sent by the test); returns its exit
# status (a number, or a signal name such as SIGKILL). Fails after the
# deadline. The server is then not stopped again at the end of its block.
proc wait_server_exit {{level 0} {seconds 10}} {
    set id [srv_id $level]
    if {$::srvinfo($id,reaped)} { return $::srvinfo($id,status) }
    if {![server__wait_gone $id [expr {$seconds * 1000 * [time_factor]}]]} {
        fail "server [server__describe $id] still running after $seconds s"
    }
    set ::srvinfo($id,death_noted) 1
    return [server__reap $id]
}

# server_valgrind_check ?level?: after wait_server_exit, fail the test when
# valgrind found problems (no-op without --valgrind).
proc server_valgrind_check {{level 0}} {
    set vg [server__valgrind_problems [srv_id $level]]
    if {$vg ne {}} { fail $vg }
}

proc start_server {options body} {
    set binary $::cfg(server)
    if {[dict exists $options binary]} { set binary [dict get $options binary] }
    set kind [server_kind_of $binary]
    if {[dict exists $options kind]} { set kind [dict get $options kind] }
    set extra {}
    if {[dict exists $options args]} { set extra [dict get $options args] }
    set blocktags {}
    if {[dict exists $options tags]} { set blocktags [dict get $options tags] }

    set saved_tags $::tag_stack
    lappend ::tag_stack {*}$blocktags
    try {
        # When the whole block is excluded, report its tests without
        # starting a server.
        set reason [tags_skip_reason $::tag_stack]
        # An --tags allow list may still select tests inside by their own
        # tags: start the server when the body mentions an allowed tag.
        if {[string match "--tags allows*" $reason]} {
            foreach t $::cfg(allow_tags) {
                if {[regexp -- "\\m[regsub -all {\W} $t {\\&}]\\M" $body]} { set reason {} }
            }
        }
        if {$reason ne {}} {
            if {![string match --* $reason]} {
                foreach name [scan_test_names $body] {
                    if {[name_selected $name]} { report_skip $name $reason }
                }
            }
            return
        }
        # With --only, do not start servers for blocks without a selected
        # test (names built from variables and nested blocks count as maybe).
        if {[llength $::cfg(only)] && ![block_may_select $body]} { return }

        set id {}
        set why {}
        for {set attempt 1} {$attempt <= 5} {incr attempt} {
            set vg [expr {![dict exists $options valgrind] || [dict get $options valgrind]}]
            set id [server__spawn $binary $kind $extra $vg]
            set why [server__wait_ready $id]
            if {$why eq {}} break
            set log [read_file $::srvinfo($id,stderr)]
            if {$why eq "died"} {
                server__reap $id
                # A port taken between free_port and the server's bind
                # (memcached's -p; or, for mcds's -p 0, a port a test
                # picked with free_port for another listener, which the
                # kernel may hand out again): start it again.
                if {[regexp {failed to listen|Address already in use} $log]} {
                    continue
                }
                set why "exited with status $::srvinfo($id,status)"
            } else {
                kill_pid $::srvinfo($id,pid) KILL
                server__wait_gone $id 5000
                server__reap $id
            }
            break
        }
        if {$why ne {}} {
            report_err "start server ([file tail $binary] [join $extra])" \
                "$why\ncommand: $::srvinfo($id,cmd)\n[file_tail $::srvinfo($id,stderr) 20]"
            return
        }
        lappend ::server_stack $id
        verbose "server $id up: pid $::srvinfo($id,pid) port $::srvinfo($id,port)"
        set rc [catch {uplevel 1 $body} res opts]
        if {$rc == 1} {
            report_err "code outside a test in a server block" \
                [join [lrange [split [dict get $opts -errorinfo] \n] 0 11] \n]
        }
        set problems [server__stop $id]
        set ::server_stack [lrange $::server_stack 0 end-1]
        if {$problems ne {}} {
            report_err "server shutdown ([server__describe $id])" $problems
        }
    } finally {
        set ::tag_stack $saved_tags
    }
}

proc block_may_select {body} {
    if {[regexp {start_server|start_memcached} $body]} { return 1 }
    foreach name [scan_test_names $body] {
        if {[regexp {[$\[]} $name] || [name_selected $name]} { return 1 }
    }
    return 0
}

# The path of Debian's memcached, or "" when it is not installed.
proc memcached_binary {} {
    foreach p {/usr/bin/memcached /usr/local/bin/memcached} {
        if {[file executable $p]} { return $p }
    }
    set p [auto_execok memcached]
    if {$p ne {}} { return [lindex $p 0] }
    return {}
}

proc start_memcached {options body} {
    set bin [memcached_binary]
    if {$bin eq {}} {
        foreach name [scan_test_names $body] {
            if {[name_selected $name]} {
                report_skip $name "stock memcached is not installed (apt-get install memcached)"
            }
        }
        return
    }
    dict set options binary $bin
    dict set options kind memcached
    # Stock memcached cannot start under valgrind (it cannot set its
    # descriptor limit there); --valgrind is for mcds.
    dict set options valgrind 0
    uplevel 1 [list start_server $options $body]
}

# run_server_cmd ?-timeout s? args...: run the server binary in the
# foreground (e.g. --help, -V, a bad option); returns {status output}.
proc run_server_cmd {args} {
    set timeout 10
    if {[lindex $args 0] eq "-timeout"} {
        set timeout [lindex $args 1]
        set args [lrange $args 2 end]
    }
    return [run_cmd $timeout $::cfg(server) {*}$args]
}

# run_cmd seconds cmd...: run a command with a deadline; returns
# {status output} where output merges stdout and stderr. A command still
# running at the deadline is killed and reported with status "timeout".
proc run_cmd {seconds args} {
    set chan [open "|[list {*}$args] </dev/null 2>@1" r]
    fconfigure $chan -blocking 0 -translation binary
    set pids [pid $chan]
    foreach p $pids { register_pid $p }
    set key rc[incr ::run_cmd_seq]
    set ::run_cmd($key,out) {}
    set ::run_cmd($key,done) 0
    fileevent $chan readable [list apply {{chan key} {
        append ::run_cmd($key,out) [read $chan]
        if {[eof $chan]} {
            fileevent $chan readable {}
            set ::run_cmd($key,done) 1
        }
    }} $chan $key]
    set id [after [expr {$seconds * 1000 * [time_factor]}] [list set ::run_cmd($key,done) timeout]]
    if {!$::run_cmd($key,done)} { vwait ::run_cmd($key,done) }
    after cancel $id
    set timedout [expr {$::run_cmd($key,done) eq "timeout"}]
    if {$timedout} { foreach p $pids { kill_pid $p KILL } }
    fconfigure $chan -blocking 1
    set status 0
    if {[catch {close $chan} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] in {CHILDSTATUS CHILDKILLED}} {
            set status [lindex $code 2]
        }
    }
    foreach p $pids { unregister_pid $p }
    set out $::run_cmd($key,out)
    array unset ::run_cmd $key,*
    if {$timedout} { set status timeout }
    return [list $status $out]
}
set ::run_cmd_seq 0

# with_data_dir dir opts body: a server on --data-dir dir (and opts) that
# runs body, then is killed with SIGKILL, as a crash would stop it, so the
# next one on dir restores what the log and snapshots hold.
proc with_data_dir {dir opts body} {
    uplevel 1 [list start_server [list tags {persist mcds-only} args [concat --data-dir $dir $opts]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}
