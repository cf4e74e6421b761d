# Persistence of lmove (doc/protocol.md, lmove; doc/persistence.md): a
# move is one log record, so a server killed with SIGKILL in the middle of
# a stream of moves (plain and waiting ones, rotations, snapshots being
# written) restarts with every element in exactly one list: the total is
# conserved, nothing is doubled, nothing is lost.

# Runs body on a server over dir, then kills it with SIGKILL.
proc lmp_server {dir body} {
    uplevel 1 [list start_server [list tags {persist list mcds-only} \
        args [list --data-dir $dir --snapshot-min-size 64k --snapshot-growth 10]] \
        "$body\n        if {\[pid_alive \[srv pid\]\]} { kill_pid \[srv pid\] KILL; wait_server_exit }"]
}

set ::lmp_keys {PA PB PC PE}
set ::lmp_all {}
for {set i 0} {$i < 300} {incr i} { lappend ::lmp_all [format "el%03d:%s" $i [string repeat x [expr {$i % 40}]]] }

# Every element of the three lists, sorted.
proc lmp_elements {fd} {
    set out {}
    foreach k $::lmp_keys { lappend out {*}[l_all $fd $k] }
    lsort $out
}

# A pipeline of n random moves among the lists (seeded).
proc lmp_moves {seed n} {
    expr {srand($seed)}
    set out {}
    set ends {left right}
    for {set i 0} {$i < $n} {incr i} {
        set s [lindex $::lmp_keys [expr {int(rand() * 4)}]]
        set d [lindex $::lmp_keys [expr {int(rand() * 4)}]]
        append out "lmove $s $d [lindex $ends [expr {int(rand() * 2)}]] [lindex $ends [expr {int(rand() * 2)}]]\r\n"
    }
    return $out
}

set d [tmpdir persist_list_move]

lmp_server $d {
    set fd [mc_connect]
    test {lmove persistence: 300 elements in three lists before the first kill} {
        for {set i 0} {$i < 300} {incr i 50} {
            l_push $fd rpush [lindex $::lmp_keys [expr {$i / 100}]] [lrange $::lmp_all $i [expr {$i + 49}]]
        }
        expr {[lmp_elements $fd] eq [lsort $::lmp_all]}
    } 1
}

set ::lmp_lens {}
set ::lmp_changed 0
expr {srand(4242)}
for {set cycle 1} {$cycle <= 8} {incr cycle} {
    set ::lmp_delay [expr {20 + int(rand() * 200)}]
    lmp_server $d {
        set fd [mc_connect]
        test "lmove persistence: cycle $cycle: after kill -9 every element is in exactly one list" {
            set r [list [lmp_elements $fd] [mc_stat $fd persist_replay_skipped]]
            assert_equal [lindex $r 1] 0
            set lens [lmap k $::lmp_keys { string trim [mc_exchange $fd "llen $k\r\n"] }]
            if {$lens ne $::lmp_lens} { incr ::lmp_changed }
            set ::lmp_lens $lens
            expr {[lindex $r 0] eq [lsort $::lmp_all]}
        } 1
        # Moves on three connections and waiting moves on a fourth (served by
        # the moves into PE), in
        # flight when the server is killed (and a snapshot now and then).
        set w [mc_connect]
        mc_send_bg $w [string repeat "lmove PE PA left right wait=100\r\n" 500]
        set cs {}
        foreach k {1 2 3} {
            set c [mc_connect]
            mc_send_bg $c [lmp_moves [expr {$cycle * 10 + $k}] 20000]
            lappend cs $c
        }
        if {$cycle % 2 == 0} { mc_send $fd "snapshot\r\n" }
        after $::lmp_delay
    }
}

lmp_server $d {
    set fd [mc_connect]
    test {lmove persistence: the final count; no record was skipped; moves were in flight} {
        list [expr {$::lmp_changed >= 4}] [expr {[lmp_elements $fd] eq [lsort $::lmp_all]}] [mc_stat $fd persist_replay_skipped] \
            [mc_stat $fd persist_replay_quarantined]
    } {1 1 0 0}
}
