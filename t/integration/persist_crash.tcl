# kill -9 under load (doc/persistence.md, "What each --fsync policy
# guarantees"): a client (t/clients/persist_crash_client.py) pushes, leases
# and acks as fast as it can and records each change the moment its reply
# arrives; the server is killed with SIGKILL in the middle. After a restart
# on the same directory, for every policy, since a killed process loses
# nothing the kernel was given: every acknowledged push is there (ready,
# or still leased) unless its ack was acknowledged, no acknowledged ack
# comes back, no message is there twice, and nothing is there that was not
# pushed (the one push whose reply the kill cut off may be there or not).

set ::crash_client [file join [srcdir] t clients persist_crash_client.py]

proc crash_python {} {
    foreach py [list /usr/bin/python3 [lindex [auto_execok python3] 0]] {
        if {$py ne {} && [file executable $py]} { return $py }
    }
    skip "python3 is not installed"
}

# The client's records: dict with pushed (id -> data), leased and acked
# (lists of ids), and next (the data of the push that may have been cut off).
proc crash_records {path} {
    set pushed [dict create]
    set leased {}
    set acked {}
    set last -1
    foreach line [split [string trimright [read_file $path] \n] \n] {
        switch -- [lindex $line 0] {
            P { dict set pushed [lindex $line 1] [lindex $line 2]
                set last [string range [lindex $line 2] 1 end] }
            L { lappend leased [lindex $line 1] }
            A { lappend acked [lindex $line 1] }
            default { fail "bad record '[visible $line]' in $path" }
        }
    }
    dict create pushed $pushed leased $leased acked $acked next m[expr {$last + 1}]
}

# Every message of queue q after the restart, as {id data}: the in-flight
# ones (qpending values), then the ready ones, leased 100 at a time.
proc crash_contents {fd q} {
    set out {}
    foreach p [q_pending_values $fd $q] { lappend out $p }
    while 1 {
        set items [q_pop $fd $q 100 lease=600]
        if {![llength $items]} break
        foreach it $items { lappend out [list [lindex $it 0] [lindex $it 2]] }
    }
    return $out
}

# qpending <q> values -> list of {id data}.
proc q_pending_values {fd q} {
    mc_send $fd "qpending $q values 10000\r\n"
    set out {}
    while 1 {
        set line [mc_readline $fd]
        if {$line eq "END"} break
        if {![regexp {^PENDING (\d+) \d+ (\d+) } $line -> id n]} { fail "qpending: '[visible $line]'" }
        lappend out [list $id [string range [mc_read_bytes $fd [expr {$n + 2}]] 0 end-2]]
    }
    return $out
}

foreach policy {always everysec no} {
    set dir [tmpdir crash]
    set out [file join $dir records]
    set ::crash_counts {}
    start_server [list tags {persist mcds-only} args [list --data-dir $dir --fsync $policy]] {
        test "kill -9 under load, --fsync $policy: the client pushes, leases and acks, the server is killed" {
            set h [exec_bg [crash_python] $::crash_client 127.0.0.1 [srv port] crash $out \
                       [expr {30 * [time_factor]}]]
            wait_for {[file exists $out] && [file size $out] > 20000} 200 50
            kill_pid [srv pid] KILL
            wait_server_exit
            set r [wait_bg $h 60]
            regexp {ok (\d+) (\d+)} $r -> pushed acked
            set ::crash_counts [list $pushed $acked]
            expr {$pushed > 500 && $acked > 100}
        } 1
    }
    start_server [list tags {persist mcds-only} args [list --data-dir $dir --fsync $policy]] {
        test "kill -9 under load, --fsync $policy: after the restart exactly what was acknowledged is there" {
            set rec [crash_records $out]
            set pushed [dict get $rec pushed]
            set acked [dict get $rec acked]
            set have [crash_contents [mc_connect] crash]
            set seen [dict create]
            foreach m $have {
                lassign $m id data
                if {[dict exists $seen $id]} { fail "message $id is there twice" }
                dict set seen $id $data
                if {[dict exists $pushed $id]} {
                    if {[dict get $pushed $id] ne $data} { fail "message $id holds '$data'" }
                } elseif {$data ne [dict get $rec next]} {
                    fail "message $id ('$data') was never pushed"
                }
                if {$id in $acked} { fail "acked message $id came back" }
            }
            set missing 0
            dict for {id data} $pushed {
                if {$id ni $acked && ![dict exists $seen $id] && $id ni [dict get $rec leased]} { incr missing }
            }
            if {$missing > 0} { fail "$missing acknowledged pushes are missing" }
            verbose "--fsync $policy: pushed/acked by the client $::crash_counts, [llength $have] there after the restart"
            list [expr {[llength $have] > 0}] [expr {[dict size $seen] == [llength $have]}]
        } {1 1}
    }
}

# One command's records reach the log file together (doc/persistence.md,
# "What each --fsync policy guarantees"): a qpushn that creates its queue
# logs the creation and then each message, and another connection's change
# written meanwhile must not take the first of them to the file alone. The
# command is held after its first record (debuggrouppause), the other
# change sent, the server killed: after the restart the queue is there
# with both messages, or not at all; never there and empty (the torture
# found that: a kill -9 left a qpushn's queue without its messages).
set dir [tmpdir cmd_atomic]
start_server [list tags {persist mcds-only} args [list --data-dir $dir --fsync no -t 4]] {
    test {kill -9 while a command is between its records: the other connections' changes wait for it} {
        set a [mc_connect]
        set b [mc_connect]
        assert_equal [mc_exchange $a "debuggrouppause 4000\r\n"] "OK\r\n"
        mc_send $a "qpushn dq 0 0 1024 1 1\r\na\r\nb\r\n"
        mc_send $b "qpush other 0 0 1\r\nx\r\n"
        # b's reply waits until the log is written past its record, which
        # waits for a's command; read for a second at most, answered or not
        catch {mc__wait_readable $b [expr {[clock milliseconds] + 1000}] "b's reply"}
        kill_pid [srv pid] KILL
        wait_server_exit
        expr 1
    } 1
}
start_server [list tags {persist mcds-only} args [list --data-dir $dir --fsync no]] {
    test {... after the restart the command is there whole or not at all} {
        set fd [mc_connect]
        set st [mc_exchange $fd "qstats dq\r\n"]
        if {$st eq "NOT_FOUND\r\n"} {
            set have none
        } elseif {[regexp {STAT ready (\d+)} $st -> ready] && $ready == 2} {
            set have whole
        } else {
            fail "the queue is there with part of the command: [visible $st]"
        }
        expr {$have in {none whole}}
    } 1
}
