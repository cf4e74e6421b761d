# steps.tcl: a client script run in steps. The script prints "ok - ..."
# lines as it checks things, and "step <name>" when it needs the test to
# act (kill a server, promote a replica ...); it then waits for a line on
# its stdin. steps_start runs it, steps_next waits for its next step (or
# its end), steps_go lets it go on, steps_end waits for it to exit. Every
# wait has a deadline; a script still running at the end is killed.

proc steps_start {args} {
    set chan [open "|[list {*}$args] 2>@1" r+]
    fconfigure $chan -blocking 0 -buffering line -translation binary
    set h st[incr ::steps_seq]
    set ::steps($h,chan) $chan
    set ::steps($h,pids) [pid $chan]
    set ::steps($h,out) {}
    set ::steps($h,seen) 0
    set ::steps($h,event) {}
    foreach p [pid $chan] { register_pid $p }
    fileevent $chan readable [list steps__readable $h]
    return $h
}
set ::steps_seq 0

proc steps__readable {h} {
    set chan $::steps($h,chan)
    append ::steps($h,out) [read $chan]
    if {[eof $chan]} {
        fileevent $chan readable {}
        set ::steps($h,event) eof
    } elseif {[regexp -line {^step \S+$} [string range $::steps($h,out) $::steps($h,seen) end]]} {
        set ::steps($h,event) step
    }
}

# Waits for the script's next step: {name oks}, oks the number of "ok - "
# lines printed since the last step; name is "" when the script ended.
# Fails when it printed a FAIL line, or after seconds.
proc steps_next {h {seconds 60}} {
    set from $::steps($h,seen)
    if {![regexp -line {^step \S+$} [string range $::steps($h,out) $from end]] && $::steps($h,event) ne "eof"} {
        set id [after [expr {$seconds * 1000 * [time_factor]}] [list set ::steps($h,event) timeout]]
        vwait ::steps($h,event)
        after cancel $id
    }
    set text [string range $::steps($h,out) $from end]
    if {[regexp -line -indices {^step (\S+)$} $text all]} {
        set name [lindex [regexp -inline -line {^step (\S+)$} $text] 1]
        set ::steps($h,seen) [expr {$from + [lindex $all 1] + 1}]
        set text [string range $text 0 [lindex $all 0]]
    } elseif {$::steps($h,event) eq "eof"} {
        set name {}
        set ::steps($h,seen) [string length $::steps($h,out)]
    } else {
        steps__kill $h
        fail "the script is still running after $seconds s without a step:\n$::steps($h,out)"
    }
    if {$::steps($h,event) ne "eof"} { set ::steps($h,event) {} }
    if {[regexp -line {^FAIL } $text]} {
        steps__kill $h
        fail "the script failed:\n$::steps($h,out)"
    }
    verbose $text
    list $name [regexp -all -line {^ok - } $text]
}

proc steps_go {h} {
    puts $::steps($h,chan) go
    flush $::steps($h,chan)
}

proc steps__kill {h} {
    foreach p $::steps($h,pids) { kill_pid $p KILL }
}

# Waits for the script to exit: its output once it printed "all checks
# passed" and exited 0, else a failure.
proc steps_end {h {seconds 60}} {
    lassign [steps_next $h $seconds] name
    if {$name ne {}} {
        steps__kill $h
        fail "the script asked for step $name at its end:\n$::steps($h,out)"
    }
    set chan $::steps($h,chan)
    fconfigure $chan -blocking 1
    set status 0
    if {[catch {close $chan} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] in {CHILDSTATUS CHILDKILLED}} { set status [lindex $code 2] }
    }
    foreach p $::steps($h,pids) { unregister_pid $p }
    set out $::steps($h,out)
    array unset ::steps $h,*
    if {$status ne "0" || ![string match "*all checks passed*" $out]} {
        fail "the script exited $status:\n$out"
    }
    return $out
}
