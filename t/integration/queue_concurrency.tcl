# Queues under concurrency: producer and consumer OS processes
# (t/clients/queue_worker.py, plain sockets) move messages through one
# queue. Without lease expiry every message is delivered and acked exactly
# once; with consumers killed (kill -9) while holding leases, nothing is
# lost and a message is delivered more than once only after a lease ran
# out. 100,000 and 20,000 messages, also under --valgrind (where the unit
# takes about 10 s); the second test waits for real 1 s leases to run out.

set ::qworker [file join [srcdir] t clients queue_worker.py]

proc qc_python {} {
    foreach py [list /usr/bin/python3 [lindex [auto_execok python3] 0]] {
        if {$py ne {} && [file executable $py]} { return $py }
    }
    skip "python3 is not installed"
}

# qc_produce py queue n -> handles of 4 producers pushing n/4 messages each
# ("p<k>-<i>").
proc qc_produce {py q n secs} {
    set hs {}
    for {set k 0} {$k < 4} {incr k} {
        lappend hs [exec_bg $py $::qworker produce 127.0.0.1 [srv port] $q p$k [expr {$n / 4}] \
                        [expr {$secs * [time_factor]}]]
    }
    return $hs
}

proc qc_consume {py q out lease secs {stall 0}} {
    return [exec_bg $py $::qworker consume 127.0.0.1 [srv port] $q $out 100 $lease \
                [expr {$secs * [time_factor]}] $stall]
}

# The payloads every producer pushed, sorted.
proc qc_expected {n} {
    set out {}
    for {set k 0} {$k < 4} {incr k} {
        for {set i 0} {$i < $n / 4} {incr i} { lappend out p$k-$i }
    }
    return [lsort $out]
}

# qc_records files -> list of {payload deliveries} from the consumers' files.
proc qc_records {files} {
    set out {}
    foreach f $files {
        if {![file exists $f]} continue
        foreach line [split [string trimright [read_file $f] \n] \n] {
            if {$line eq {}} continue
            if {[llength $line] != 2} { fail "bad record '[visible $line]' in $f" }
            lappend out $line
        }
    }
    return $out
}

# qc_wait_consumer h -> {got acked notfound}
proc qc_wait_consumer {h secs} {
    set out [wait_bg $h $secs]
    if {![regexp {ok consume got (\d+) acked (\d+) notfound (\d+)} $out -> got acked nf]} {
        fail "consumer output: [visible $out]"
    }
    return [list $got $acked $nf]
}

start_server {tags {queue mcds-only slow}} {
    set fd [mc_connect]

    test {4 producers, 4 consumers: every message delivered and acked exactly once} {
        set py [qc_python]
        set n 100000
        set dir [tmpdir cq1]
        assert_equal [mc_exchange $fd "qcreate cq1\r\n"] "CREATED\r\n"
        set cs {}
        set files {}
        for {set k 0} {$k < 4} {incr k} {
            lappend files $dir/c$k
            lappend cs [qc_consume $py cq1 $dir/c$k 300 120]
        }
        foreach h [qc_produce $py cq1 $n 120] {
            assert_equal [string trim [wait_bg $h 150]] "ok produce [expr {$n / 4}]"
        }
        assert_equal [mc_set $fd cq1-done 1] STORED
        set acked 0
        foreach h $cs {
            lassign [qc_wait_consumer $h 150] got a nf
            assert_equal $nf 0 "an ack was refused without any lease running out"
            incr acked $a
        }
        assert_equal $acked $n
        set recs [qc_records $files]
        assert_equal [llength $recs] $n "records"
        set payloads {}
        foreach r $recs {
            lassign $r p d
            if {$d != 1} { fail "$p was delivered $d times" }
            lappend payloads $p
        }
        if {[lsort $payloads] ne [qc_expected $n]} {
            fail "the delivered payloads differ from the pushed ones ([llength [lsort -unique $payloads]] distinct)"
        }
        set s [q_stats $fd cq1]
        lmap k {ready delayed in_flight waiters pushed popped acked released lease_expired dead} {dict get $s $k}
    } {0 0 0 0 100000 100000 100000 0 0 0}

    test {consumers killed while holding leases (kill -9): nothing is lost, redelivered only after a lease ran out} {
        set py [qc_python]
        set m 20000
        set dir [tmpdir cq2]
        assert_equal [mc_exchange $fd "qcreate cq2 lease=1\r\n"] "CREATED\r\n"
        # c0 and c1 stall holding a batch after m/20 messages; c2 and c3 run.
        # c2 and c3 start once both have stalled: started together, a
        # loaded scheduler could let them take the messages c0 needed.
        set files {}
        set cs {}
        for {set k 0} {$k < 2} {incr k} {
            lappend files $dir/c$k
            lappend cs [qc_consume $py cq2 $dir/c$k 1 120 [expr {$m / 20}]]
        }
        set ps [qc_produce $py cq2 $m 120]
        wait_for {[file exists $dir/c0.stalled] && [file exists $dir/c1.stalled]} 1200 50
        for {set k 2} {$k < 4} {incr k} {
            lappend files $dir/c$k
            lappend cs [qc_consume $py cq2 $dir/c$k 1 120 0]
        }
        # What the stalled consumers hold (leased, never acked).
        set stalled [qc_records [list $dir/c0.stalled $dir/c1.stalled]]
        set held [llength $stalled]
        assert_true {$held > 0} "the stalled consumers hold nothing"
        # Kill the two stalled consumers and one running consumer, mid-way
        # (under load c2's python may not have written its pid file yet).
        wait_for {[file exists $dir/c2.pid]} 200 50
        foreach k {0 1 2} { kill_pid [string trim [read_file $dir/c$k.pid]] KILL }
        foreach k {0 1 2} {
            set msg [assert_error {*} {wait_bg [lindex $cs $k] 30}]
            assert_match {*SIGKILL*} $msg
        }
        # Two new consumers take over.
        set live [list [lindex $cs 3]]
        foreach k {4 5} {
            lappend files $dir/c$k
            lappend live [qc_consume $py cq2 $dir/c$k 1 120]
        }
        foreach h $ps { assert_equal [string trim [wait_bg $h 150]] "ok produce [expr {$m / 4}]" }
        assert_equal [mc_set $fd cq2-done 1] STORED
        set acked 0
        set notfound 0
        foreach h $live {
            lassign [qc_wait_consumer $h 150] got a nf
            incr acked $a
            incr notfound $nf
        }
        set s [q_stats $fd cq2]
        set expired [dict get $s lease_expired]
        # Every message left the queue by exactly one ack.
        assert_equal [lmap k {ready delayed in_flight pushed acked released dead} {dict get $s $k}] \
            [list 0 0 0 $m $m 0 0]
        assert_equal [dict get $s popped] [expr {$m + $expired}] "popped = messages + expired leases"
        assert_true {$expired >= $held} "expired $expired, held by the stalled consumers $held"
        assert_true {$notfound <= $expired}
        # The records: every payload got through; a payload seen k times
        # has k different delivery counts, the highest at least k.
        set recs [qc_records $files]
        set counts [dict create]
        foreach r $recs {
            lassign $r p d
            dict lappend counts $p $d
        }
        if {[lsort [dict keys $counts]] ne [qc_expected $m]} {
            fail "delivered payloads differ from the pushed ones: [dict size $counts] distinct of $m"
        }
        # Each message held by a stalled consumer was delivered again.
        foreach r $stalled {
            lassign $r p d
            if {![dict exists $counts $p] || [tcl::mathfunc::max {*}[dict get $counts $p]] <= $d} {
                fail "$p, held (delivery $d) by a killed consumer, was not delivered again"
            }
        }
        set redelivered 0
        dict for {p ds} $counts {
            if {[llength [lsort -unique $ds]] != [llength $ds]} { fail "$p delivered twice with the same count: $ds" }
            set max [tcl::mathfunc::max {*}$ds]
            if {$max < [llength $ds]} { fail "$p seen [llength $ds] times, highest delivery count $max" }
            incr redelivered [expr {$max - 1}]
        }
        assert_true {$redelivered <= $expired} "redeliveries $redelivered, expired leases $expired"
        verbose "held $held at the kill, $expired leases expired, $redelivered redeliveries seen, $notfound late acks"
    }
}
