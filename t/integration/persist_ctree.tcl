# Tree counters with --data-dir (doc/persistence.md): every accepted
# increment and definition change is one log record, so a restart after
# kill -9 restores exact values, limits, settings, removed subtrees and
# TTLs; a snapshot (taken while increments run) plus the log after it
# restores them too, without counting an increment twice.

source [file join [srcdir] t support ctree.tcl]
set ::ct_worker [file join [srcdir] t helpers ctree_worker.tcl]

proc with_ctree_dir {dir args body} {
    uplevel 1 [list start_server [list tags {persist ctree mcds-only} args [concat --data-dir $dir $args]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

# Everything a client can read of the tree-counter world.
proc ct_world {fd objs} {
    set out [list [mc_exchange $fd "ctcounters\r\nctperiods count=10000\r\n"]]
    foreach o $objs {
        lappend out $o [mc_exchange $fd "ctinfo $o\r\nctvalues $o count=10000\r\n"]
    }
    return $out
}

proc snapshot_done {fd} {
    assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
    wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 500 20
}

set objs {top top.a top.a.x top.a.y top.b top.b.x top.c}
set d1 [tmpdir persist-ctree]
set ::world {}

with_ctree_dir $d1 {} {
    set fd [mc_connect]
    test {ctree persistence: counters, objects, limits, increments, a removed subtree, a TTL} {
        mc_exchange $fd "ctdef 1 103,104,106:5,107\r\nctdef 2 103,104:0:m aggregate=0 quantize=4\r\nctdef 3 104\r\nctundef 3\r\n"
        foreach {o p} {top {} top.a top top.a.x top.a top.a.y top.a top.b top top.b.x top.b top.c top top.c.z top.c} {
            set line "ctobj $o"
            if {$p ne {}} { append line " parent=$p" }
            if {$o eq "top.a"} { append line " limits=1:104:60 quantize=3" }
            assert_equal [mc_exchange $fd "$line\r\n"] "CREATED\r\n"
        }
        assert_equal [mc_exchange $fd "ctraise top.a limits=1:104:50,1:107:1000\r\nctlimits top.b limits=2:103:99\r\n"] "STORED\r\nSTORED\r\n"
        expr {srand(7)}
        set refused 0
        foreach o {top.a.x top.a.y top.b.x top.c.z top.b} {
            for {set i 0} {$i < 60} {incr i} {
                set r [mc_exchange $fd "ctincr $o [expr {1 + $i % 2}] 103 @[expr {1609459200 + int(rand() * 200000)}] [expr {int(rand() * 20) - 2}]\r\n"]
                if {$r ne "STORED\r\n"} { incr refused }
            }
        }
        assert_equal [mc_exchange $fd "ctincr top.a.x 2 104 20210102 9\r\ndelete top.c\r\ntouch top.b.x 3600\r\n"] "STORED\r\nDELETED\r\nTOUCHED\r\n"
        set ::world [ct_world $fd $objs]
        assert_true {$refused > 0} "no limit met"
        mc_stat $fd persistence
    } on
}

with_ctree_dir $d1 {} {
    set fd [mc_connect]
    test {ctree persistence: after kill -9 every value, limit and setting is back (log replay)} {
        assert_equal [ct_world $fd $objs] $::world
        mc_exchange $fd "ctinfo top.c\r\nctinfo top.c.z\r\n"
    } "NOT_FOUND\r\nNOT_FOUND\r\n"

    test {ctree persistence: the TTL survived the restart} {
        mc_exchange $fd "debugtime 3601\r\nctinfo top.b.x\r\n"
    } "OK\r\nNOT_FOUND\r\n" {debugtime}

    test {ctree persistence: a snapshot, then more changes, then kill -9} {
        set ::world [ct_world $fd $objs]
        snapshot_done $fd
        assert_equal [mc_exchange $fd "ctincr top.a.y 1 103 2021010500 5\r\nctobj top.d parent=top\r\nctincr top.d 1 103 2021010500 2\r\n"] \
            "STORED\r\nCREATED\r\nSTORED\r\n"
        set ::world [ct_world $fd [concat $objs top.d]]
        llength [glob -nocomplain -directory $d1 snap.*]
    } 1
}

with_ctree_dir $d1 {} {
    set fd [mc_connect]
    test {ctree persistence: snapshot plus log tail restore exactly (nothing counted twice)} {
        ct_world $fd [concat $objs top.d]
    } $::world
}

# ---- a snapshot taken while increments run ----

set d2 [tmpdir persist-ctree-fuzzy]
set ::fuzzy {}
with_ctree_dir $d2 {} {
    set fd [mc_connect]
    set parents {root {} a root b root a1 a a2 a b1 b}
    test {ctree persistence: a snapshot during 4 processes of increments, then kill -9} {
        mc_exchange $fd "ctdef 60 103,104,106,107\r\n"
        ct_make_tree $fd $parents
        set hs {}
        for {set w 0} {$w < 4} {incr w} {
            lappend hs [exec_bg [info nameofexecutable] $::ct_worker [srcdir] [srv port] \
                [expr {50 + $w}] 1500 120 60 a1,a2,b1 1609459200 [expr {30 * 86400}]]
        }
        after 100
        snapshot_done $fd
        set model [dict create]
        foreach h $hs {
            set out [wait_bg $h 150]
            if {![regexp {ok \d+ \d+\n?$} $out]} { fail "worker: [visible [string range $out end-200 end]]" }
            foreach line [split $out \n] {
                if {![regexp {^A (\S+) (\d+) (-?\d+)$} $line -> leaf t delta]} continue
                ct_model_add model [ct_path $parents $leaf] 60 {103 104 106 107} $t $delta
            }
        }
        foreach o [dict keys $parents] {
            assert_equal [ct_lines [ct_values $fd $o]] [ct_lines [ct_model_of $model $o]]
        }
        set ::fuzzy [ct_world $fd [dict keys $parents]]
        llength [glob -nocomplain -directory $d2 snap.*]
    } 1
}

with_ctree_dir $d2 {} {
    set fd [mc_connect]
    test {ctree persistence: the fuzzy snapshot plus the log restore the exact values} {
        ct_world $fd {root a b a1 a2 b1}
    } $::fuzzy
}

# A child key deleted with its parent's subtree and created again at once
# (before the deleted objects are cleared away): the restart replays the
# delete and the new object, and the new object's increments count.
set d9 [tmpdir persist-ctree]
set ::recreated {}
with_ctree_dir $d9 {} {
    set fd [mc_connect]
    test {ctree persistence: a child re-created right after its parent's subtree was deleted} {
        assert_equal [mc_exchange $fd "ctdef 1 104\r\nctobj p\r\nctobj p.k parent=p\r\nctincr p.k 1 104 20210101 5\r\n"] \
            "CREATED\r\nCREATED\r\nCREATED\r\nSTORED\r\n"
        assert_equal [mc_exchange $fd "delete p\r\nctobj p.k\r\nctincr p.k 1 104 20210101 7\r\n"] \
            "DELETED\r\nCREATED\r\nSTORED\r\n"
        set ::recreated [mc_exchange $fd "ctget p.k 1 104 20210101\r\n"]
    } "VALUE p.k 1 104 20210101 7 0\r\nEND\r\n"
}
with_ctree_dir $d9 {} {
    test {ctree persistence: after the restart the re-created object holds its own increments} {
        mc_exchange [mc_connect] "ctget p.k 1 104 20210101\r\n"
    } [set ::recreated]
}

# ---- a subtree delete whose release is under way (debugctreehold) ----
# The delete is logged when it answers; its objects are released after.
# A restart from the log alone (kill -9 mid-release), or from a snapshot
# taken before the delete plus the log, removes the subtree again; a
# snapshot taken mid-release holds none of its objects.

# What a client reads of p's tree without finishing a release (ctperiods
# and ctcounters would): the live objects, the counts, deleted keys.
proc ctd_reads {fd live gone} {
    set out {}
    foreach o $live { lappend out $o [mc_exchange $fd "ctinfo $o\r\nctvalues $o count=10000\r\n"] }
    lappend out [mc_stat $fd ctree_objects] [mc_stat $fd ctree_values]
    foreach k $gone { lappend out $k [mc_exchange $fd "ctinfo $k\r\n"] [ct_kscan $fd $k] }
    return $out
}

# After a restart: the same reads, p's values those of p.keep (p.big is
# gone with what it counted), and ctperiods counting the live objects'
# values (it waits for the release the replayed delete started).
proc ctd_check_restart {fd live gone reads} {
    assert_equal [ctd_reads $fd $live $gone] $reads
    assert_equal [ct_lines [ct_values $fd p]] [ct_lines [ct_values $fd p.keep]]
    set model [dict create]
    foreach o $live { dict for {k v} [ct_values $fd $o] { dict set model [list $o {*}$k] $v } }
    assert_equal [ct_server_periods $fd] [ct_model_periods $model]
    mc_stat $fd ctree_releasing
}

set d10 [tmpdir persist-ctree-release]
set live10 {p p.keep q}
set gone10 {p.big p.big.0 p.big.9.199 p.big.3.50}
set ::reads10 {}
with_ctree_dir $d10 {} {
    set fd [mc_connect]
    test {ctree persistence: a snapshot, then a subtree delete held mid-release, then kill -9} {
        assert_equal [mc_exchange $fd "ctdef 1 103,104,107\r\nctobj p\r\nctobj p.keep parent=p\r\nctobj q\r\nctobj p.big parent=p\r\n"] \
            [string repeat "CREATED\r\n" 5]
        assert_equal [mc_exchange $fd "ctincr p.keep 1 103 @1609459200 5\r\nctincr q 1 103 @1609462800 3\r\n"] "STORED\r\nSTORED\r\n"
        ct_build_subtree $fd p.big 10 200
        snapshot_done $fd
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete p.big\r\ndebugctreehold 500\r\n"] "OK\r\nDELETED\r\nOK\r\n"
        wait_for {[mc_stat $fd ctree_releasing] == 2011 - 500}
        set ::reads10 [ctd_reads $fd $live10 $gone10]
        lrange $::reads10 end-13 end-12
    } {3 9}
}

with_ctree_dir $d10 {} {
    set fd [mc_connect]
    test {ctree persistence: the snapshot with the subtree plus the logged delete restore the world without it} {
        ctd_check_restart $fd $live10 $gone10 $::reads10
    } 0

    test {ctree persistence: a snapshot taken while a subtree delete is held mid-release; a deleted key reused after it} {
        assert_equal [mc_exchange $fd "ctobj p.big2 parent=p\r\n"] "CREATED\r\n"
        ct_build_subtree $fd p.big2 10 200
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete p.big2\r\ndebugctreehold 700\r\n"] "OK\r\nDELETED\r\nOK\r\n"
        wait_for {[mc_stat $fd ctree_releasing] == 2011 - 700}
        snapshot_done $fd
        assert_equal [mc_exchange $fd "ctobj p.big2.0.0\r\nctincr p.big2.0.0 1 103 @1609459200 4\r\n"] "CREATED\r\nSTORED\r\n"
        set ::reads10 [ctd_reads $fd [concat $live10 p.big2.0.0] [concat $gone10 p.big2 p.big2.9.199 p.big2.0]]
        mc_stat $fd ctree_objects
    } 4
}

with_ctree_dir $d10 {} {
    set fd [mc_connect]
    test {ctree persistence: the mid-release snapshot holds no deleted object; the log after it adds the reused key} {
        assert_equal [mc_stat $fd ctree_releasing] 0
        ctd_check_restart $fd [concat $live10 p.big2.0.0] [concat $gone10 p.big2 p.big2.9.199 p.big2.0] $::reads10
    } 0
}

set d11 [tmpdir persist-ctree-release]
with_ctree_dir $d11 {} {
    set fd [mc_connect]
    test {ctree persistence: kill -9 with a subtree delete held mid-release (no snapshot)} {
        assert_equal [mc_exchange $fd "ctdef 1 103,104,107\r\nctobj p\r\nctobj p.keep parent=p\r\nctobj q\r\nctobj p.big parent=p\r\n"] \
            [string repeat "CREATED\r\n" 5]
        assert_equal [mc_exchange $fd "ctincr p.keep 1 103 @1609459200 5\r\nctincr q 1 103 @1609462800 3\r\n"] "STORED\r\nSTORED\r\n"
        ct_build_subtree $fd p.big 10 200
        assert_equal [mc_exchange $fd "debugctreehold 0\r\ndelete p.big\r\ndebugctreehold 1000\r\n"] "OK\r\nDELETED\r\nOK\r\n"
        wait_for {[mc_stat $fd ctree_releasing] == 2011 - 1000}
        set ::reads10 [ctd_reads $fd $live10 $gone10]
        llength [glob -nocomplain -directory $d11 snap.*]
    } 0
}

with_ctree_dir $d11 {} {
    test {ctree persistence: the log replays the delete; the world is the same without the subtree} {
        ctd_check_restart [mc_connect] $live10 $gone10 $::reads10
    } 0
}
