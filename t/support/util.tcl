# Small utilities shared by the harness and the tests: directories, scratch
# space, random data, bounded waits, background processes and pid cleanup.
#
# Everything here works in a worker (one unit file) and in the orchestrator.
# Configuration lives in the ::cfg array, filled by test_helper.tcl.

proc srcdir {} { return $::cfg(srcdir) }
proc builddir {} { return $::cfg(builddir) }

# True when the tree was configured with --enable-sanitizers: its programs
# carry ASan, and valgrind cannot run them.
proc built_with_sanitizers {} {
    set mk [file join [builddir] Makefile]
    if {[catch {open $mk r} f]} { return 0 }
    set text [read $f]
    close $f
    return [regexp -line {^SAN_CFLAGS = -fsanitize} $text]
}

# True when the tree was built with TLS (configure found OpenSSL and was not
# given --disable-tls): its config.h defines ENABLE_TLS.
proc built_with_tls {} {
    set h [file join [builddir] config.h]
    if {[catch {open $h r} f]} { return 0 }
    set text [read $f]
    close $f
    return [regexp -line {^#define ENABLE_TLS 1} $text]
}

# Factor applied to every timeout: valgrind slows a server down a lot.
proc time_factor {} {
    if {$::cfg(valgrind)} { return 10 }
    return 1
}

# Milliseconds to wait for one reply, scaled for valgrind.
proc reply_timeout_ms {} {
    return [expr {$::cfg(reply_timeout) * 1000 * [time_factor]}]
}

# The per-unit scratch directory: <builddir>/t/tmp/<unit>.<pid>
proc unit_tmpdir {} {
    if {![info exists ::cfg(unit_tmpdir)]} {
        set base [file join $::cfg(builddir) t tmp]
        set name [string map {/ _} [unit_name $::cfg(unit)]]
        set dir [file join $base $name.[pid]]
        file mkdir $dir
        set ::cfg(unit_tmpdir) $dir
    }
    return $::cfg(unit_tmpdir)
}

# tmpdir ?prefix?: a fresh, empty directory inside the unit's scratch space.
proc tmpdir {{prefix d}} {
    global tmpdir_seq
    if {![info exists tmpdir_seq]} { set tmpdir_seq 0 }
    set dir [file join [unit_tmpdir] $prefix.[incr tmpdir_seq]]
    file mkdir $dir
    return $dir
}

# open_tmpdir ?prefix? -> a new directory with a short path under /tmp
# that every user may reach, removed with the unit's scratch space: for a
# UNIX socket (its path is 107 bytes at most, and the build tree's may be
# longer, as under dpkg-buildpackage) and for a server that drops to
# -u nobody (the build tree may sit under a 0700 directory, as mktemp -d
# makes them).
proc open_tmpdir {{prefix d}} {
    set dir [string trim [exec mktemp -d /tmp/mcds-$prefix.XXXXXX]]
    file attributes $dir -permissions 0755
    lappend ::cfg(open_tmpdirs) $dir
    return $dir
}

# A unit's display name: t/unit/storage.tcl -> unit/storage
proc unit_name {path} {
    set parts [file split [file rootname $path]]
    set n [llength $parts]
    if {$n >= 2} { return [join [lrange $parts end-1 end] /] }
    return [file rootname [file tail $path]]
}

# randstring n ?kind?: n random bytes. kind is alnum (default), printable
# (no space), or binary (any byte 0..255).
proc randstring {n {kind alnum}} {
    switch -- $kind {
        alnum {
            set chars abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
        }
        printable {
            set chars {}
            for {set i 33} {$i < 127} {incr i} { append chars [format %c $i] }
        }
        binary {
            set out {}
            for {set i 0} {$i < $n} {incr i} {
                append out [format %c [expr {int(rand() * 256)}]]
            }
            return $out
        }
        default { error "randstring: unknown kind $kind" }
    }
    set len [string length $chars]
    set out {}
    # Beyond 4 KB, long values are built from random slices of a random
    # 4 KB block: still unpredictable enough for tests, and fast.
    set direct [expr {$n < 4096 ? $n : 4096}]
    for {set i 0} {$i < $direct} {incr i} {
        append out [string index $chars [expr {int(rand() * $len)}]]
    }
    set block $out
    while {[string length $out] < $n} {
        set from [expr {int(rand() * 2048)}]
        set to [expr {$from + 1024 + int(rand() * 1024)}]
        append out [string range $block $from $to]
    }
    return [string range $out 0 [expr {$n - 1}]]
}

# visible s: the string with \r, \n, \t, \\ and other control or high bytes
# escaped, so that exact-byte mismatches are readable in failure messages.
proc visible {s} {
    set out {}
    set limit 400
    if {[string length $s] > $limit} {
        set tail "...([string length $s] bytes)"
        set s [string range $s 0 [expr {$limit - 1}]]
    } else {
        set tail {}
    }
    foreach c [split $s {}] {
        scan $c %c code
        if {$c eq "\r"} { append out {\r}
        } elseif {$c eq "\n"} { append out {\n}
        } elseif {$c eq "\t"} { append out {\t}
        } elseif {$c eq "\\"} { append out {\\}
        } elseif {$code < 32 || $code > 126} { append out [format {\x%02x} $code]
        } else { append out $c }
    }
    return $out$tail
}

# sleep_ms n: sleep while still servicing events (fileevents, after).
proc sleep_ms {ms} {
    set v ::sleep_ms_done[incr ::sleep_ms_seq]
    set $v 0
    after $ms [list set $v 1]
    vwait $v
    unset $v
}
set ::sleep_ms_seq 0

# wait_for {expr} ?tries? ?ms?: evaluate expr in the caller up to tries times,
# ms apart, until it is true; fail the test otherwise. Under valgrind the
# number of tries is multiplied by the time factor.
proc wait_for {cond {tries 50} {ms 100}} {
    set tries [expr {$tries * [time_factor]}]
    for {set i 0} {$i < $tries} {incr i} {
        if {[uplevel 1 [list expr $cond]]} { return }
        sleep_ms $ms
    }
    fail "condition not met after $tries tries of $ms ms: $cond"
}

# ---------------------------------------------------------------------------
# Pids to kill if the unit ends early. Each registration is also announced
# on stdout so the orchestrator can kill the pid if this worker dies.

proc register_pid {pid} {
    set ::live_pids($pid) 1
    if {$::cfg(worker)} { puts "\[pid\]: $pid"; flush stdout }
}

proc unregister_pid {pid} {
    unset -nocomplain ::live_pids($pid)
    if {$::cfg(worker)} { puts "\[unpid\]: $pid"; flush stdout }
}

proc pid_alive {pid} {
    # A zombie (exited, not yet reaped) counts as dead.
    if {[catch {open /proc/$pid/stat r} f]} { return 0 }
    set data [read $f]
    close $f
    if {[regexp {\) (\S)} $data -> state] && $state in {Z X}} { return 0 }
    return 1
}

proc kill_pid {pid {sig KILL}} {
    catch {exec kill -$sig $pid 2>/dev/null}
}

proc kill_live_pids {} {
    foreach pid [array names ::live_pids] {
        kill_pid $pid KILL
        unset ::live_pids($pid)
    }
}

# ---------------------------------------------------------------------------
# Background processes: exec_bg cmd -> handle; wait_bg handle ?seconds? ->
# the process's output (stdout and stderr). wait_bg fails the test when the
# process exits non-zero or is still running at the deadline (it is killed).

proc exec_bg {args} {
    if {[llength $args] == 1} { set args [lindex $args 0] }
    set chan [open "|[list {*}$args] 2>@1" r]
    fconfigure $chan -blocking 0 -translation binary
    set h bg[incr ::bg_seq]
    set ::bg($h,chan) $chan
    set ::bg($h,pids) [pid $chan]
    set ::bg($h,out) {}
    set ::bg($h,done) 0
    foreach p [pid $chan] { register_pid $p }
    fileevent $chan readable [list bg__readable $h]
    return $h
}
set ::bg_seq 0

proc bg__readable {h} {
    set chan $::bg($h,chan)
    append ::bg($h,out) [read $chan]
    if {[eof $chan]} {
        fileevent $chan readable {}
        set ::bg($h,done) 1
    }
}

proc wait_bg {h {seconds 60}} {
    set ms [expr {$seconds * 1000 * [time_factor]}]
    if {!$::bg($h,done)} {
        set id [after $ms [list set ::bg($h,done) timeout]]
        vwait ::bg($h,done)
        after cancel $id
    }
    set chan $::bg($h,chan)
    set out $::bg($h,out)
    set timedout [expr {$::bg($h,done) eq "timeout"}]
    if {$timedout} {
        foreach p $::bg($h,pids) { kill_pid $p KILL }
    }
    fconfigure $chan -blocking 1
    set status 0
    if {[catch {close $chan} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] eq "CHILDSTATUS"} {
            set status [lindex $code 2]
        } elseif {[lindex $code 0] eq "CHILDKILLED"} {
            set status [lindex $code 2]
        }
    }
    foreach p $::bg($h,pids) { unregister_pid $p }
    array unset ::bg $h,*
    if {$timedout} {
        fail "background process still running after $seconds s; output: [visible $out]"
    }
    if {$status ne "0"} {
        fail "background process exited with $status; output: [visible $out]"
    }
    return $out
}

# Find a TCP port on 127.0.0.1 that is free right now.
proc free_port {} {
    set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

# The CPU time (user + system, in clock ticks) the process used so far.
proc proc_cpu_ticks {pid} {
    set f [open /proc/$pid/stat r]
    set data [read $f]
    close $f
    set rest [string range $data [expr {[string last ")" $data] + 2}] end]
    return [expr {[lindex $rest 11] + [lindex $rest 12]}]
}
