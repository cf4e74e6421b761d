# Persistence (doc/persistence.md): with --data-dir every queue change is
# in the write-ahead log before its reply goes out, so a restart — after a
# clean stop or kill -9 — restores every acknowledged change: messages with
# their priorities, due times, leases (absolute), delivery counts, dead
# letters, settings; ids and CAS numbers go on above anything handed out.
# Snapshots compact the log; a torn tail is cut; corruption in the middle
# stops start-up unless --recover-partial; a second server on the
# directory refuses; a full disk refuses changes and loses nothing.

# Starts a server on dir (more args after), runs body, then kills it with
# SIGKILL unless the body stopped it: a restart must not need a clean stop.
# The ids, flags, data and delivery counts of every ready message (qpeek).
proc ready_of {fd q} {
    lmap it [q_parse [mc_exchange $fd "qpeek $q 100\r\n"]] { lrange $it 0 3 }
}

proc log_files {dir} { lsort [glob -nocomplain -tails -directory $dir log.*] }
proc snap_files {dir} { lsort [glob -nocomplain -tails -directory $dir snap.*] }

# ---- restart restores queues ----

set d1 [tmpdir persist]
set ::p1 {}

with_data_dir $d1 {} {
    set fd [mc_connect]
    test {persistence: the queue's state before a kill -9} {
        mc_exchange $fd "qcreate pq lease=30 maxdeliver=2 maxlen=100 dlq=pq:graves\r\n"
        set a [q_push $fd pq first 1 0 10]
        set b [q_push $fd pq second 2 0 5]
        set c [q_push $fd pq later 3 3600]
        set d [q_push $fd pq acked 4]
        set e [q_push $fd pq leased 5]
        # b (priority 5) comes first, then a; d and e are leased, d acked.
        set got [q_pop $fd pq 4 lease=100]
        assert_equal [lmap it $got { lindex $it 0 }] [list $b $a $d $e]
        assert_equal [mc_exchange $fd "qack pq $d\r\nqrelease pq $b\r\nqrelease pq $a 60\r\n"] \
            "ACKED\r\nRELEASED\r\nRELEASED\r\n"
        set ::p1 [list $a $b $c $d $e]
        list [q_counts $fd pq] [mc_stat $fd persistence]
    } {{1 2 1} on}
}

with_data_dir $d1 {} {
    set fd [mc_connect]
    lassign $::p1 a b c d e
    test {persistence: after kill -9 and restart every message is where it was} {
        set s [q_stats $fd pq]
        list [q_counts $fd pq] [ready_of $fd pq] [lindex [q_pending $fd pq] 0 0] \
            [dict get $s lease_ms] [dict get $s max_deliveries] [dict get $s max_length] [dict get $s dlq]
    } [list {1 2 1} [list [list [lindex $::p1 1] 2 second 1]] [lindex $::p1 4] 30000 2 100 pq:graves]

    test {persistence: a delayed message keeps its due time, a lease its end (Unix time)} {
        set pend [q_pending $fd pq]
        assert_range [lindex $pend 0 4] 90000 100000
        mc_exchange $fd "debugtime 61\r\n"
        lmap it [ready_of $fd pq] { lindex $it 0 }
    } [list [lindex $::p1 1] [lindex $::p1 0]] {debugtime}

    test {persistence: ids go on above every id handed out before the restart} {
        set n [q_push $fd pq new]
        expr {$n > [lindex $::p1 4]}
    } 1
}

# ---- every acknowledged change survives kill -9, for each fsync policy ----

foreach policy {always everysec no} {
    set dir [tmpdir persist-$policy]
    set ::acked($policy) {}
    with_data_dir $dir [list --fsync $policy] {
        test "fsync $policy: 300 pushes, 100 acked pops, then kill -9 at once" {
            set fd [mc_connect]
            set ids {}
            for {set i 0} {$i < 300} {incr i} { lappend ids [q_push $fd kq$i:q m$i] }
            for {set i 0} {$i < 100} {incr i} {
                set it [lindex [q_pop $fd kq$i:q] 0]
                assert_equal [mc_exchange $fd "qack kq$i:q [lindex $it 0]\r\n"] "ACKED\r\n"
            }
            set ::acked($policy) $ids
            kill_pid [srv pid] KILL
            wait_server_exit
        } SIGKILL
    }
    with_data_dir $dir [list --fsync $policy] {
        test "fsync $policy: after the restart every pushed message is there and no acked one" {
            set fd [mc_connect]
            set bad {}
            for {set i 0} {$i < 300} {incr i} {
                set r [ready_of $fd kq$i:q]
                set want [expr {$i < 100 ? {} : [list [list [lindex $::acked($policy) $i] 0 m$i 0]]}]
                if {$r ne $want} { lappend bad "kq$i:q: $r" }
            }
            set bad
        } {}
    }
}

# ---- dead letters, purge, delete, TTL ----

set d2 [tmpdir persist]
with_data_dir $d2 {} {
    set fd [mc_connect]
    test {persistence: dead letters, buried ones, purges, deletes and TTLs before a kill -9} {
        mc_exchange $fd "qcreate dq maxdeliver=1 lease=1\r\n"
        set ::dead [q_push $fd dq doomed 9]
        mc_exchange $fd "qpop dq\r\ndebugtime 2\r\n"
        assert_equal [q_stat $fd dq:dead ready] 1
        q_push $fd gone x
        q_push $fd purged x
        mc_exchange $fd "qpurge purged\r\ndelete gone\r\nqpush ttl 0 0 1\r\nx\r\ntouch ttl 100\r\n"
        list [q_stat $fd dq dead] [q_stat $fd gone ready]
    } {1 {}} {debugtime}
}
with_data_dir $d2 {} {
    set fd [mc_connect]
    test {persistence: after the restart the dead letter is in its queue with its id, the rest as left} {
        list [ready_of $fd dq:dead] [q_stat $fd dq ready] [q_stat $fd gone ready] [q_stat $fd purged ready] \
            [q_stat $fd ttl ready] [mc_exchange $fd "debugtime 200\r\nqstats ttl\r\n"]
    } [list [list [list $::dead 9 doomed 0]] 0 {} 0 1 "OK\r\nNOT_FOUND\r\n"] {debugtime}
}

# ---- snapshots ----

set d3 [tmpdir persist]
with_data_dir $d3 {} {
    set fd [mc_connect]
    test {snapshot: written in the background; the log starts a new file there; old files go} {
        for {set i 0} {$i < 200} {incr i} { q_push $fd sq [string repeat s 100] }
        set before [log_files $d3]
        assert_equal [mc_cmd $fd snapshot] OK
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0 && [mc_stat $fd persist_snapshots] == 1} 100 50
        q_push $fd sq after
        list [llength $before] [llength [snap_files $d3]] [llength [log_files $d3]] \
            [expr {[lindex [log_files $d3] 0] ne [lindex $before 0]}]
    } {1 1 1 1}
}
with_data_dir $d3 {} {
    set fd [mc_connect]
    test {snapshot: the restart loads the snapshot and the log after it} {
        list [q_stat $fd sq ready] [mc_stat $fd persist_snapshot_entries_loaded] [mc_stat $fd persist_records_replayed]
    } {201 202 *}
}

start_server {tags {persist mcds-only}} {
    test {snapshot without --data-dir: SERVER_ERROR persistence is off} {
        mc_cmd [mc_connect] snapshot
    } {SERVER_ERROR persistence is off (start with --data-dir)}
}

set d4 [tmpdir persist]
with_data_dir $d4 {--snapshot-min-size 64k --snapshot-growth 100} {
    set fd [mc_connect]
    test {snapshot: started by itself once the log has grown past --snapshot-min-size} {
        for {set i 0} {$i < 100} {incr i} { q_push $fd auto [string repeat a 1000] }
        wait_for {[mc_stat $fd persist_snapshots] >= 1} 100 50
        llength [snap_files $d4]
    } 1
}

# ---- the directory's lock ----

set d5 [tmpdir persist]
with_data_dir $d5 {} {
    test {a second server on the same directory refuses to start} {
        lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir $d5] status out
        list [expr {$status ne 0}] [string match "*is in use by another mcds-server*" $out]
    } {1 1}
}

# ---- torn tails and corruption ----

# A directory with 50 pushed messages in one log file and no snapshot.
set d6 [tmpdir persist]
with_data_dir $d6 {} {
    set fd [mc_connect]
    test {torn tail: 50 messages logged} {
        for {set i 0} {$i < 50} {incr i} { q_push $fd torn m$i }
        q_stat $fd torn ready
    } 50
}

# The offsets where the records of a log file end, and which of them
# are pushes (op 4 of the queue type, 3).
proc log_records {path} {
    set f [open $path rb]; set data [read $f]; close $f
    set out {}
    set at 0
    while {$at + 12 <= [string length $data]} {
        binary scan $data @${at}cucucucuiu magic type op flag len
        set at [expr {$at + 12 + $len}]
        lappend out [list $at [expr {$type == 3 && $op == 4}]]
    }
    return $out
}

test {torn tail: cut at bytes of the last three records, a restart loads every whole record and says where it cut} {
    set log [file join $d6 [lindex [log_files $d6] 0]]
    set f [open $log rb]; set whole [read $f]; close $f
    set recs [log_records $log]
    set size [string length $whole]
    assert_equal [lindex $recs end 0] $size
    set bad {}
    for {set cut [lindex $recs end-3 0]} {$cut < $size} {incr cut 5} {
        set dir [tmpdir torn]
        set f [open [file join $dir [file tail $log]] wb]
        puts -nonewline $f [string range $whole 0 [expr {$cut - 1}]]
        close $f
        set pushes 0
        set boundary 0
        set whole_end 0
        foreach r $recs {
            if {[lindex $r 0] <= $cut} {
                incr pushes [lindex $r 1]
                set whole_end [lindex $r 0]
            }
        }
        set boundary [expr {$whole_end == $cut}]
        start_server [list tags {persist mcds-only} args [list --data-dir $dir]] {
            set n [q_stat [mc_connect] torn ready]
            if {$n != $pushes} { lappend bad "cut at $cut: $n messages, expected $pushes" }
            if {!$boundary && ![string match "*torn tail at offset $whole_end cut ([expr {$cut - $whole_end}] bytes)*" [read_file [srv stderr]]]} {
                lappend bad "cut at $cut: no torn-tail line"
            }
        }
    }
    set bad
} {} {persist mcds-only}

test {corruption: a flipped bit in the middle stops start-up, naming the file and offset} {
    set dir [tmpdir corrupt]
    set log [lindex [log_files $d6] 0]
    file copy [file join $d6 $log] [file join $dir $log]
    set f [open [file join $dir $log] r+b]
    seek $f 300
    set byte [read $f 1]
    seek $f 300
    puts -nonewline $f [binary format c [expr {[scan $byte %c] ^ 0x10}]]
    close $f
    lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir $dir] status out
    list [expr {$status ne 0}] [regexp "$log is corrupt at offset \\d+" $out] [string match "*--recover-partial*" $out]
} {1 1 1} {persist mcds-only}

test {corruption: --recover-partial starts from what precedes the bad record} {
    set dir [tmpdir corrupt]
    set log [lindex [log_files $d6] 0]
    file copy [file join $d6 $log] [file join $dir $log]
    set f [open [file join $dir $log] r+b]
    seek $f 300
    puts -nonewline $f "\xff\xff\xff"
    close $f
    set n {}
    start_server [list tags {persist mcds-only} args [list --data-dir $dir --recover-partial]] {
        set n [q_stat [mc_connect] torn ready]
    }
    expr {$n > 0 && $n < 50}
} 1 {persist mcds-only}

# ---- a crash while a snapshot is written ----

set d7 [tmpdir persist]
with_data_dir $d7 {} {
    set fd [mc_connect]
    test {crash during a snapshot: killed mid-write, the previous state still recovers} {
        for {set i 0} {$i < 4000} {incr i} { append batch "qpush big[expr {$i % 40}] 0 0 2000 noreply\r\n[string repeat b 2000]\r\n" }
        mc_send $fd $batch
        assert_equal [mc_stat $fd queue_ready] 4000
        mc_cmd $fd snapshot
        after [expr {int(rand() * 30)}]
        kill_pid [srv pid] KILL
        wait_server_exit
    } SIGKILL
}
with_data_dir $d7 {} {
    test {crash during a snapshot: after the restart all 4000 messages are there} {
        set fd [mc_connect]
        list [mc_stat $fd queue_ready] [llength [glob -nocomplain -directory $d7 *.tmp]]
    } {4000 0}
}

# ---- a full disk ----

set d8 [tmpdir persist]
with_data_dir $d8 {} {
    set fd [mc_connect]
    test {disk full: changes answer SERVER_ERROR and change nothing, reads go on, writes resume} {
        q_push $fd full before
        # The log file may not grow any more (RLIMIT_FSIZE at its size).
        set log [file join $d8 [lindex [log_files $d8] 0]]
        exec prlimit --pid [srv pid] --fsize=[file size $log]:unlimited
        # The first change past the limit is made but cannot be logged: its
        # reply waits until the log works again. Later ones are refused.
        set held [mc_connect]
        mc_send $held "qpush full 0 0 5\r\nafter\r\n"
        wait_for {[mc_stat $fd persist_write_error] == 1} 100 50
        assert_equal [mc_exchange $fd "qpush full 0 0 5\r\nrefus\r\nqpop full\r\n"] \
            [string repeat "SERVER_ERROR log write failed, nothing changed\r\n" 2]
        assert_equal [lindex [ready_of $fd full] 0 2] before
        exec prlimit --pid [srv pid] --fsize=unlimited:unlimited
        wait_for {[mc_stat $fd persist_write_error] == 0} 100 50
        assert_match "PUSHED *" [mc_readline $held]
        assert_match "PUSHED *" [mc_exchange $fd "qpush full 0 0 5\r\nlater\r\n"]
        lmap it [ready_of $fd full] { lindex $it 2 }
    } {before after later}
}
with_data_dir $d8 {} {
    test {disk full: after a restart nothing acknowledged is missing} {
        lmap it [ready_of [mc_connect] full] { lindex $it 2 }
    } {before after later}
}

# ---- a busy log is not a failed log ----

with_data_dir [tmpdir persist] {--fsync always} {
    test {busy log: 20 connections pipelining 20000 pushes under --fsync always, none refused} {
        set conns {}
        for {set i 0} {$i < 20} {incr i} {
            set c [mc_connect]
            lappend conns $c
            mc_send_bg $c [string repeat "qpush busy 0 0 32\r\n[string repeat x 32]\r\n" 1000]
        }
        set refused 0
        foreach c $conns {
            for {set j 0} {$j < 1000} {incr j} {
                if {![string match "PUSHED *" [mc_readline $c]]} { incr refused }
            }
        }
        list $refused [q_stat [lindex $conns 0] busy ready]
    } {0 20000}
}

# ---- cache values with --persist-items ----

set d9 [tmpdir persist]
with_data_dir $d9 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: every kind of change to cache values before a kill -9} {
        mc_set $fd old1 o
        mc_exchange $fd "flush_all\r\n"
        mc_set $fd plain hello 5
        mc_set $fd app a
        mc_exchange $fd "append app 0 0 1\r\nb\r\nprepend app 0 0 1\r\nz\r\n"
        mc_set $fd num 10
        mc_exchange $fd "incr num 5\r\ndecr num 2\r\n"
        mc_set $fd gone x
        mc_exchange $fd "delete gone\r\n"
        mc_set $fd ttl t 0 100
        mc_exchange $fd "touch ttl 1000\r\n"
        mc_set $fd after1 n
        set ::cas [lindex [mc_gets $fd plain] 1]
        mc_exchange $fd "ms meta 2 F9\r\nhi\r\nma num\r\n"
        list [mc_get $fd app] [mc_get $fd num] [mc_get $fd old1]
    } {zab 14 {}}
}
with_data_dir $d9 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: after the restart every value, flag and TTL is as it was} {
        list [mc_getflags $fd plain] [mc_get $fd app] [mc_get $fd num] [mc_get $fd gone] \
            [mc_get $fd old1] [mc_get $fd after1] [mc_getflags $fd meta]
    } {{5 hello} zab 14 {} {} n {9 hi}}

    test {--persist-items: TTLs are absolute: a value expires when it would have} {
        list [mc_get $fd ttl] [mc_exchange $fd "debugtime 1100\r\nget ttl\r\n"]
    } [list t "OK\r\nEND\r\n"] {debugtime}
}

set d10 [tmpdir persist]
with_data_dir $d10 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: values, CAS and a value stored after flush_all} {
        mc_set $fd k1 v1 3
        mc_set $fd k2 v2
        mc_exchange $fd "incr k2 1\r\n"
        set ::cas2 [lindex [mc_gets $fd k1] 1]
        mc_get $fd k1
    } v1
}
with_data_dir $d10 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: a value keeps its CAS across a restart; new CAS numbers are higher} {
        lassign [mc_gets $fd k1] v c
        mc_set $fd k3 x
        lassign [mc_gets $fd k3] v3 c3
        list $v $c [lindex [mc_getflags $fd k1] 0] [expr {$c3 > $c}] [mc_cas $fd k1 new $c]
    } [list v1 $::cas2 3 1 STORED]
}

# flush_all and CAS numbers chosen with E: an immediate flush takes out
# every value stored before it, even one whose CAS is above every number
# the server handed out, and keeps every value stored after it, even one
# whose CAS is below the flush's. A restart replays exactly that.
set far 1152921504606846976
set d11 [tmpdir persist]
with_data_dir $d11 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: flush_all takes out values with any E CAS stored before it, keeps those after} {
        mc_exchange $fd "ms farbefore 1 E$far\r\nb\r\nms lowbefore 1 E2\r\nb\r\n"
        mc_set $fd plainbefore b
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        mc_exchange $fd "ms lowafter 1 E3\r\na\r\nms farafter 1 E[expr {$far + 1}]\r\na\r\n"
        mc_set $fd plainafter a
        list [mc_exchange $fd "get farbefore lowbefore plainbefore\r\n"] \
            [mc_exchange $fd "mg lowafter v c\r\nmg farafter v c\r\n"] [mc_get $fd plainafter] \
            [mc_stat $fd curr_items]
    } [list "END\r\n" "VA 1 c3\r\na\r\nVA 1 c[expr {$far + 1}]\r\na\r\n" a 3]
}
with_data_dir $d11 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: after kill -9 the flush replays alike: before gone, after kept with their CAS} {
        list [mc_exchange $fd "get farbefore lowbefore plainbefore\r\n"] \
            [mc_exchange $fd "mg lowafter v c\r\nmg farafter v c\r\n"] [mc_get $fd plainafter] \
            [mc_stat $fd curr_items]
    } [list "END\r\n" "VA 1 c3\r\na\r\nVA 1 c[expr {$far + 1}]\r\na\r\n" a 3]

    test {--persist-items: after the restart a flush_all still takes every value out} {
        mc_set $fd new n
        assert_equal [mc_exchange $fd "flush_all\r\n"] "OK\r\n"
        list [mc_exchange $fd "get lowafter farafter plainafter new\r\n"] [mc_stat $fd curr_items]
    } [list "END\r\n" 0]
}

# A CAS of 2^64-1 chosen with E and restored: the CAS counter must not
# follow it there, or the next number would wrap to 0 and repeat old ones.
set d12 [tmpdir persist]
with_data_dir $d12 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: a value with CAS 2^64-1 (E) before kill -9} {
        mc_exchange $fd "ms maxe 1 E18446744073709551615\r\nx\r\n"
        mc_set $fd a a
        set ::cas_a [lindex [mc_gets $fd a] 1]
        lindex [mc_gets $fd maxe] 1
    } 18446744073709551615
}
with_data_dir $d12 {--persist-items} {
    set fd [mc_connect]
    test {--persist-items: after the restart new CAS numbers are above every earlier one but 2^64-1, none 0} {
        mc_set $fd b b
        mc_set $fd c c
        set cb [lindex [mc_gets $fd b] 1]
        set cc [lindex [mc_gets $fd c] 1]
        list [lindex [mc_gets $fd maxe] 1] [expr {$cb > $::cas_a}] [expr {$cc > $cb}]
    } {18446744073709551615 1 1}
}

start_server [list tags {persist mcds-only} args [list --data-dir [tmpdir persist]]] {
    test {without --persist-items, cache values are not logged (a cache)} {
        set fd [mc_connect]
        set before [mc_stat $fd persist_log_position]
        mc_set $fd k v
        mc_exchange $fd "delete k\r\nincr nope 1\r\n"
        expr {[mc_stat $fd persist_log_position] - $before}
    } 0
}

# ---- batch qack / qrelease (issue 9) ----

set d11 [tmpdir persist]
with_data_dir $d11 {} {
    set fd [mc_connect]
    test {persistence: a batch qack and qrelease before a kill -9} {
        foreach d {a b c d e} { q_push $fd bq $d }
        set ::p11 [lmap it [q_pop $fd bq 5 lease=100] { lindex $it 0 }]
        lassign $::p11 a b c d e
        assert_equal [mc_exchange $fd "qack bq $a $c $e\r\nqrelease bq $b $d delay=0\r\n"] \
            "ACKED\r\nACKED\r\nACKED\r\nRELEASED\r\nRELEASED\r\n"
        q_counts $fd bq
    } {2 0 0}
}
with_data_dir $d11 {} {
    set fd [mc_connect]
    test {persistence: after the restart the batch-acked messages stay gone, the released ones are ready} {
        lmap it [ready_of $fd bq] { lindex $it 0 }
    } [list [lindex $::p11 1] [lindex $::p11 3]]
}

# ---- qcreate maxage= (issue 9) ----

set d12 [tmpdir persist]
with_data_dir $d12 {} {
    set fd [mc_connect]
    test {persistence: a queue with maxage= and a message before a kill -9} {
        mc_exchange $fd "qcreate mq maxage=100 lease=7\r\nqcreate mqsnap maxage=200\r\n"
        set ::p12 [q_push $fd mq aging]
        q_push $fd mqsnap snapped
        list [q_stat $fd mq max_age_ms] [q_stat $fd mq ready]
    } {100000 1}
}
with_data_dir $d12 {} {
    set fd [mc_connect]
    test {persistence: maxage comes back from the log} {
        list [q_stat $fd mq max_age_ms] [q_stat $fd mq lease_ms] [q_stat $fd mqsnap max_age_ms]
    } {100000 7000 200000}
    test {persistence: maxage is kept in a snapshot} {
        assert_equal [mc_cmd $fd snapshot] OK
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0 && [mc_stat $fd persist_snapshots] == 1} 100 50
        q_stat $fd mq ready
    } 1
}
with_data_dir $d12 {} {
    set fd [mc_connect]
    test {persistence: after a restart from the snapshot, maxage is there and the age counts from the push} {
        assert_equal [list [expr {[mc_stat $fd persist_snapshot_entries_loaded] >= 4}] [q_stat $fd mq max_age_ms] \
                          [q_stat $fd mqsnap max_age_ms]] {1 100000 200000}
        assert_equal [mc_exchange $fd "debugtime 90\r\nqstats mq:dead\r\n"] "OK\r\nNOT_FOUND\r\n"
        mc_exchange $fd "debugtime 20\r\n"
        list [q_stat $fd mq ready] [q_stat $fd mq expired_age] [expr {[lindex [q_pop $fd mq:dead] 0 0] == $::p12}]
    } {0 1 1} {debugtime}
}

# A log written before qcreate had maxage=: its Q_CREATE record ends at the
# dlq key (doc/persistence.md). Built here byte by byte.
proc crc32c {data} {
    set c 0xFFFFFFFF
    binary scan $data cu* bytes
    foreach b $bytes {
        set c [expr {$c ^ $b}]
        for {set i 0} {$i < 8} {incr i} {
            set c [expr {($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1)}]
        }
    }
    return [expr {$c ^ 0xFFFFFFFF}]
}
proc wal_record {type op payload} {
    set h [binary format cucucucui 0xA7 $type $op 0 [string length $payload]]
    return "$h[binary format i [crc32c $h$payload]]$payload"
}
set d13 [tmpdir persist]
set old_create [string cat [binary format cu 5] oldmq [binary format wiw 7000 2 50] \
                    [binary format cu 9] oldmq:rip]
set f [open [file join $d13 log.0000000000000000] wb]
puts -nonewline $f [wal_record 3 1 $old_create]
close $f
with_data_dir $d13 {} {
    set fd [mc_connect]
    test {persistence: a create record from before maxage= is read as no maximum age (and expired=dead)} {
        set s [q_stats $fd oldmq]
        lmap k {lease_ms max_deliveries max_length dlq max_age_ms dedup_window_ms expired} { dict get $s $k }
    } {7000 2 50 oldmq:rip 0 300000 dead}
}
