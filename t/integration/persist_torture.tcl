# The kill -9 torture (t/torture/torture.py, t/torture/README.md) for one
# minute: 6 client threads pipeline queue, list, tree-counter and cache
# changes, the server is killed with SIGKILL mid-pipeline, restarted on the
# same directory with the same --fsync policy (rotating always, everysec,
# no), and every acknowledged change must be there, the changes in flight a
# prefix of what each connection sent (doc/persistence.md, "What each
# --fsync policy guarantees"). `make torture` runs it for 10 minutes.
# Then 25 s of the FIFO-group torture (group_crash.py) and of the failover
# torture with sync acknowledgement (failover_torture.py: a primary killed
# behind fault-injecting proxies, a replica promoted, nothing acknowledged
# lost), and 12 s of the latter asynchronous (what it loses is exactly
# what the promoted replica had not received, message by message).
#
# The seed is printed (and comes from $TORTURE_SEED when set), so that a
# failure can be replayed: python3 t/torture/torture.py --seed <seed>.

set ::torture_py [file join [srcdir] t torture torture.py]

# failover_torture_run mode seconds tail: runs failover_torture.py in mode
# for seconds; fails unless it ends with 0 violations and its summary's
# parenthesis matches tail (a regexp); returns its cycles.
proc failover_torture_run {mode seconds tail} {
    set py [torture_guard]
    set seed [torture_seed]
    verbose "failover_torture $mode seed $seed"
    lassign [run_cmd 200 $py [file join [srcdir] t torture failover_torture.py] --server $::cfg(server) \
                 --mode $mode --seconds $seconds --seed $seed --tmp-dir [tmpdir failover_$mode]] status out
    if {$status ne "0" || ![regexp "failover_torture: (\\d+) cycles, mode $mode, 0 violations $tail, seed $seed" \
                                $out -> cycles]} {
        fail "failover_torture.py --mode $mode --seed $seed exited with status $status:\n[string range $out end-3000 end]"
    }
    return $cycles
}

proc torture_python {} {
    foreach py [list /usr/bin/python3 [lindex [auto_execok python3] 0]] {
        if {$py ne {} && [file executable $py]} { return $py }
    }
    skip "python3 is not installed"
}

# The torture starts its own servers: skipped under --valgrind, where the
# timing of the kills would make it another test and a minute of it would
# take far too long.
proc torture_guard {} {
    if {$::cfg(valgrind)} {
        skip "the kill -9 torture times its kills against a live server: under valgrind that is another test, and it would take far too long"
    }
    return [torture_python]
}

proc torture_seed {} {
    if {[info exists ::env(TORTURE_SEED)] && [string is integer -strict $::env(TORTURE_SEED)]} {
        return $::env(TORTURE_SEED)
    }
    return [expr {[clock milliseconds] % 2000000000 + 1}]
}

tags {persist mcds-only slow} {
    test {torture.py: 60 s of kill -9 mid-pipeline under every --fsync policy, 0 violations} {
        set py [torture_guard]
        set seed [torture_seed]
        verbose "torture seed $seed"
        lassign [run_cmd 300 $py $::torture_py --server $::cfg(server) --seconds 60 \
                     --seed $seed --keep-dir --tmp-dir [tmpdir torture]] status out
        if {$status ne "0"} {
            fail "torture.py --seed $seed exited with status $status:\n[string range $out end-6000 end]"
        }
        set re "torture: (\\d+) cycles \\(always (\\d+), everysec (\\d+), no (\\d+)\\), 0 violations, seed $seed, \\d+ s"
        if {![regexp $re $out -> cycles always everysec no]} {
            fail "no '0 violations' line for seed $seed:\n[string range $out end-3000 end]"
        }
        verbose "torture seed $seed: $cycles cycles (always $always, everysec $everysec, no $no)"
        list [expr {$cycles >= 3}] [expr {$always > 0 && $everysec > 0 && $no > 0}]
    } {1 1}

    test {torture.py finds loss: a model off by a change and an emptied log file are violations, exit status 1} {
        set py [torture_guard]
        set seed [torture_seed]
        set res {}
        foreach {how cycles} {model 1 drop-log 4} {
            lassign [run_cmd 120 $py $::torture_py --server $::cfg(server) --seconds 60 --cycles $cycles \
                         --seed $seed --self-test $how --tmp-dir [tmpdir torture]] status out
            if {$status ne "1" || ![regexp "VIOLATION cycle \\d+ policy \\S+: .*\\(seed $seed\\)" $out]} {
                fail "--self-test $how --seed $seed: status $status, output:\n[string range $out end-3000 end]"
            }
            lappend res $status
        }
        set res
    } {1 1}

    test {group_crash.py: FIFO groups through kill -9 under every --fsync policy, in order, each message once} {
        set py [torture_guard]
        set seed [torture_seed]
        verbose "group_crash seed $seed"
        lassign [run_cmd 200 $py [file join [srcdir] t torture group_crash.py] --server $::cfg(server) \
                     --seconds 25 --cycles 9 --seed $seed --tmp-dir [tmpdir gcrash]] status out
        if {$status ne "0" || ![regexp "group_crash: (\\d+) cycles, 0 violations, seed $seed" $out -> cycles]} {
            fail "group_crash.py --seed $seed exited with status $status:\n[string range $out end-3000 end]"
        }
        expr {$cycles >= 3}
    } 1

    test {failover_torture.py: kill -9 of a primary with sync acknowledgement, failover by mcds-failover, nothing acknowledged lost} {
        expr {[failover_torture_run sync 25 "\\(acknowledged pushes lost 0, acked back 0\\)"] >= 2}
    } 1

    test {failover_torture.py: asynchronous, what a failover loses is exactly what the promoted replica had not received} {
        expr {[failover_torture_run async 12 ".*"] >= 1}
    } 1

    test {sync_pipeline.py: random pipelines while the replica stops and goes on: every reply in its place, the replica equal} {
        set py [torture_python]
        set seed [torture_seed]
        lassign [run_cmd 200 $py [file join [srcdir] t torture sync_pipeline.py] --server $::cfg(server) \
                     --rounds 200 --seed $seed] status out
        if {$status ne "0" || ![regexp {, (\d+) replies not confirmed, 0 violations, seed} $out -> n]} {
            fail "sync_pipeline.py --seed $seed exited with status $status:\n[string range $out end-3000 end]"
        }
        verbose "sync_pipeline seed $seed: $n replies not confirmed"
        set status
    } 0
}
