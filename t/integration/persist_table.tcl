# Persistence of tables (doc/persistence.md): with --data-dir every table
# change is in the log before its reply goes out, so a restart after
# kill -9 restores every table exactly: rows with their versions, indexes
# (one added to a populated table included), dropped tables and indexes
# gone. Snapshots hold tables too; the log after a snapshot replays on top.

source [file join [srcdir] t support table.tcl]

proc tp_server {dir body} {
    uplevel 1 [list start_server [list tags {persist table mcds-only} args [list --data-dir $dir --fsync always]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

# Everything a client can see of table t: tinfo (less its bytes) and
# every row, with versions, through every index both ways.
proc tp_state {fd t} {
    set info [regsub {STAT bytes \d+} [mc_exchange $fd "tinfo $t\r\n"] {}]
    set out [list $info]
    foreach line [split $info \n] {
        if {![regexp {^INDEX (\S+) } $line -> ix]} continue
        foreach dir {{} desc} {
            mc_send $fd "tselect $t $ix $dir count=1000\r\n"
            lappend out [t_read_rows $fd]
        }
    }
    return $out
}

# A deterministic mix of writes on table t (keys 0..59).
proc tp_workload {fd t seed steps} {
    expr {srand($seed)}
    for {set i 0} {$i < $steps} {incr i} {
        set id [expr {int(rand() * 60)}]
        set a [expr {rand() < 0.2 ? "null" : int(rand() * 10) - 5}]
        set b [t_tok [string repeat [format %c [expr {int(rand() * 256)}]] [expr {int(rand() * 4)}]]]
        switch [expr {int(rand() * 5)}] {
            0 - 1 { mc_exchange $fd "tput $t id=$id a=$a b=$b\r\n" }
            2 { mc_exchange $fd "tupdate $t id=$id a=$a\r\n" }
            3 { mc_exchange $fd "tinsert $t id=$id b=$b\r\n" }
            4 { mc_exchange $fd "tdel $t $id\r\n" }
        }
    }
}

set d1 [tmpdir persist_table]
set ::tp1 {}

tp_server $d1 {
    set fd [mc_connect]
    test {table persistence: tables, indexes and rows changed before a kill -9} {
        mc_exchange $fd "tcreate p id:int,a:int,b:bytes key=id index=ab:a+b:desc index=bn:b:nullslast\r\n"
        mc_exchange $fd "tcreate gone id:int key=id\r\ntput gone id=1\r\ntdrop gone\r\n"
        tp_workload $fd p 1 400
        mc_exchange $fd "tindex p later a:desc:nullslast+id\r\n"
        wait_for {[string match "*later a:desc:nullslast+id ready*" [mc_exchange $fd "tinfo p\r\n"]]}
        tp_workload $fd p 2 200
        mc_exchange $fd "tdropindex p bn\r\n"
        tp_workload $fd p 3 100
        set ::tp1 [tp_state $fd p]
        assert_equal [mc_exchange $fd "tlist\r\n"] "TABLE p [llength [lindex $::tp1 1 0]]\r\nEND\r\n"
        llength [lindex $::tp1 1 0]
    } 49
}

tp_server $d1 {
    set fd [mc_connect]
    test {table persistence: after kill -9 and restart every table is as it was} {
        assert_equal [tp_state $fd p] $::tp1
        list [mc_exchange $fd "tinfo gone\r\ntlist\r\n"] [mc_stat $fd persist_replay_skipped]
    } [list "NOT_FOUND\r\nTABLE p [llength [lindex $::tp1 1 0]]\r\nEND\r\n" 0]

    test {table persistence: versions go on above the restored ones} {
        regexp {STAT version (\d+)} [lindex $::tp1 0] -> v
        assert_equal [mc_exchange $fd "tput p id=1000\r\n"] "STORED [expr {$v + 1}]\r\n"
        mc_exchange $fd "tdel p 1000\r\n"
    } "DELETED\r\n"
}

tp_server $d1 {
    set fd [mc_connect]
    test {table snapshot: written with the tables, then more changes in the log} {
        assert_equal [mc_cmd $fd snapshot] OK
        tp_workload $fd p 4 200
        wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0 && [mc_stat $fd persist_snapshots] == 1} 100 50
        tp_workload $fd p 5 200
        mc_exchange $fd "tindex p byb b\r\n"
        wait_for {[string match "*byb b ready*" [mc_exchange $fd "tinfo p\r\n"]]}
        set ::tp1 [tp_state $fd p]
        llength $::tp1
    } 9
}

tp_server $d1 {
    set fd [mc_connect]
    test {table snapshot: the restart loads the snapshot and the log after it} {
        assert_true {[mc_stat $fd persist_snapshot_entries_loaded] > 2}
        assert_equal [tp_state $fd p] $::tp1
        mc_stat $fd persist_replay_skipped
    } 0
}

set d2 [tmpdir persist_table_build]
tp_server $d2 {
    set fd [mc_connect]
    test {table persistence: an index added just before a kill -9 is built whole at replay} {
        mc_exchange $fd "tcreate big id:int,k:int key=id\r\n"
        for {set i 0} {$i < 20000} {incr i} { mc_send $fd "tput big id=$i k=[expr {$i % 13}] noreply\r\n" }
        mc_exchange $fd "tindex big byk k\r\n"
    } "OK\r\n"
}

tp_server $d2 {
    set fd [mc_connect]
    test {table persistence: after the restart the index is complete} {
        set info [mc_exchange $fd "tinfo big\r\n"]
        assert_match "*INDEX byk k ready 20000\r\n*" $info
        llength [t_all $fd "tselect big byk eq=5 count=1000 fields=id"]
    } [llength [lmap i [t_seq 20000] { if {$i % 13 == 5} { set i } else continue }]]
}

set d3 [tmpdir persist_table_clean]
start_server [list tags {persist table mcds-only} args [list --data-dir $d3]] {
    test {table persistence: a clean stop (SIGTERM) keeps the tables} {
        set fd [mc_connect]
        mc_exchange $fd "tcreate kept id:int,v:bytes key=id index=v:v\r\ntput kept id=1 v=x\r\n"
    } "CREATED\r\nSTORED 1\r\n"
}
start_server [list tags {persist table mcds-only} args [list --data-dir $d3]] {
    test {table persistence: after the clean stop the table is back} {
        set fd [mc_connect]
        mc_exchange $fd "tselect kept v fields=id\r\n"
    } "ROW 1 1\r\nF id 1\r\n1\r\nCURSOR 0\r\nEND\r\n"
}
