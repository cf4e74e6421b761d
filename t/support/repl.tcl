# Replication tests' helpers (replication.tcl, failover.tcl): a dump of
# everything a client can read, compared between servers; a seeded
# workload of every structure; waiting for a replica to catch up.

source [file join [srcdir] t support ctree.tcl]
source [file join [srcdir] t support list.tcl]
source [file join [srcdir] t support table.tcl]

# Every table: its description (its byte count left out: a replica's
# allocations may differ) and every row through its primary key, in order.
proc repl_dump_tables {fd} {
    set out {}
    set names [lsort [regexp -all -inline -line {^TABLE (\S+)} [mc_exchange $fd "tlist\r\n"]]]
    foreach {line name} $names {
        lappend out $name [regsub {STAT bytes \d+\r\n} [mc_exchange $fd "tinfo $name\r\n"] {}]
        lappend out [t_all $fd "tscan $name count=1000"]
    }
    return $out
}

# Everything a client can read, in an order that does not depend on the
# server: each key (kscan), read by its type, then the tree counters'
# definitions. Fields that count since a start or depend on the clock
# (popped, released, ages, leases left, TTLs) are left out.
proc repl_dump {fd} {
    set out [list [mc_exchange $fd "ctcounters\r\n"] [repl_dump_tables $fd]]
    foreach k [lsort -index 0 [k_all $fd count=1000]] {
        lassign $k key type ttl
        lappend out $key $type [expr {$ttl < 0 ? "none" : "ttl"}]
        switch $type {
            queue {
                set st [q_stats $fd $key]
                foreach f {ready delayed in_flight buried pushed acked dead purged dedup_entries grouped groups max_length dlq} {
                    lappend out $f [dict get $st $f]
                }
                lappend out [mc_exchange $fd "qpeek $key 100\r\n"]
                lappend out [regsub -all -line { -?\d+\r$} [mc_exchange $fd "qpending $key values\r\n"] ""]
            }
            list { lappend out [l_all $fd $key] }
            ctree { lappend out [mc_exchange $fd "ctinfo $key\r\nctvalues $key count=10000\r\n"] }
            default { lappend out [mc_exchange $fd "gets $key\r\n"] }
        }
    }
    return $out
}

# "" when dumps a and b are equal, else their first differing parts.
proc repl_diff {a b} {
    if {$a eq $b} { return {} }
    for {set i 0} {$i < max([llength $a], [llength $b])} {incr i} {
        set x [split [lindex $a $i] \n]
        set y [split [lindex $b $i] \n]
        if {$x ne $y} {
            for {set j 0} {[lindex $x $j] eq [lindex $y $j]} {incr j} {}
            return [list element $i after [lrange $a [expr {$i > 30 ? $i - 30 : 0}] [expr {$i - 1}]] line $j: [lindex $x $j] vs [lindex $y $j]]
        }
    }
    return {}
}

# Changes of every kind, deterministic by seed, on fd: cache values,
# queues (pushes, pops, acks, releases, delays, priorities, dedup ids),
# lists, tree counters.
proc repl_work {fd seed steps} {
    expr {srand($seed)}
    for {set i 0} {$i < $steps} {incr i} {
        set n [expr {int(rand() * 20)}]
        set v "v$i.[string repeat x [expr {int(rand() * 200)}]]"
        switch [expr {int(rand() * 14)}] {
            0 { mc_set $fd k$n $v [expr {$i % 7}] }
            1 { mc_exchange $fd "append k$n 0 0 3\r\nabc\r\nincr n$n 5\r\n" }
            2 { mc_exchange $fd "delete k$n\r\nset n$n 0 0 1\r\n7\r\n" }
            3 { mc_exchange $fd "touch k$n 100000\r\n" }
            4 - 5 { q_push $fd q[expr {$n % 4}] $v [expr {$n % 3}] [expr {$n == 3 ? 1000 : 0}] [expr {$n % 5}] }
            6 {
                set items [q_pop $fd q[expr {$n % 4}] 2]
                foreach it $items {
                    if {rand() < 0.5} {
                        mc_exchange $fd "qack q[expr {$n % 4}] [lindex $it 0]\r\n"
                    } elseif {rand() < 0.5} {
                        mc_exchange $fd "qrelease q[expr {$n % 4}] [lindex $it 0]\r\n"
                    }
                }
            }
            7 { mc_exchange $fd "qpush qd 0 0 [string length $v] dedup=d$n\r\n$v\r\n" }
            8 { l_push $fd rpush l[expr {$n % 3}] [list $v $v.2] }
            9 { mc_exchange $fd "lpop l[expr {$n % 3}]\r\n[l_blocks "lset l[expr {$n % 3}] 0 3" new]" }
            10 - 11 {
                mc_exchange $fd "ctincr c[expr {$n % 3}] 1 103 @[expr {1609459200 + $i * 600}] [expr {$n - 5}]\r\n"
            }
            12 { mc_exchange $fd "tput rt id=$n name=[t_tok $v] city=c[expr {$n % 4}] age=[expr {$i % 90}]\r\n" }
            13 { mc_exchange $fd "tupdate rt id=$n age=[expr {$i % 70}]\r\ntdel rt [expr {($n + 7) % 20}]\r\n" }
        }
    }
}

# The table repl_work writes (and the tree counters' definitions below).
proc repl_setup_table {fd} {
    assert_equal [mc_exchange $fd "tcreate rt id:int,name:bytes,city:bytes,age:int key=id index=by_city:city+age:desc\r\n"] "CREATED\r\n"
}

proc repl_setup_ctree {fd} {
    mc_exchange $fd "ctdef 1 103,104,106:5,107\r\n"
    foreach {o p} {c0 {} c1 c0 c2 c0} {
        set line "ctobj $o"
        if {$p ne {}} { append line " parent=$p" }
        assert_equal [mc_exchange $fd "$line\r\n"] "CREATED\r\n"
    }
}

# Waits until the replica on rfd has what the primary on pfd has written.
proc repl_caught_up {pfd rfd} {
    wait_for {[mc_stat $rfd repl_link] eq "up" &&
              [mc_stat $rfd repl_position] == [mc_stat $pfd persist_log_position]} 200 50
    mc_stat $rfd repl_position
}

proc repl_connect {level} { mc_connect_addr 127.0.0.1 [srv $level port] }

# A connection to the replica at level once it has caught up with the
# primary on pfd: a full resync restarts it in place (its clients'
# connections close), so each try connects again.
proc repl_connect_caught_up {level pfd} {
    wait_for {![catch {set ::repl_fd [repl_connect $level]
                       expr {[mc_stat $::repl_fd repl_link] eq "up" &&
                             [mc_stat $::repl_fd repl_position] == [mc_stat $pfd persist_log_position]}} ok] && $ok} 200 50
    return $::repl_fd
}

# Waits until each replica (fds) has what the primary on pfd has written,
# then fails unless each one's dump equals the primary's. The primary may
# still write records of its own meanwhile (a delayed message coming due,
# a lease running out): the dumps are compared only when the primary's
# log did not move while they were taken, tried again otherwise.
proc repl_assert_equal {pfd args} {
    for {set try 0} {$try < 20} {incr try} {
        foreach rfd $args { set at [repl_caught_up $pfd $rfd] }
        set want [repl_dump $pfd]
        set got {}
        foreach rfd $args { lappend got [repl_dump $rfd] }
        if {[mc_stat $pfd persist_log_position] == $at} break
    }
    foreach dump $got { assert_equal [repl_diff $dump $want] {} }
}
