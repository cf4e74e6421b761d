# A load process for the table concurrency test, run as its own OS
# process:
#
#   tclsh table_worker.tcl <srcdir> <port> <seed> <worker> <count> <deadline-s>
#
# Sends <count> random tput / tupdate / tdel on table cc to the rows it
# owns (ids <worker>*1000 + 0..49), one at a time, checking each reply
# against its own model of those rows. Prints "R <id> <g> <v>" for each
# of its rows at the end, then "ok"; any other reply, or the deadline,
# prints the problem and exits 1.

lassign $argv srcdir port seed worker n seconds
array set ::cfg {valgrind 0 reply_timeout 30 worker 0 unit helper}
foreach f {util test mc} { source [file join $srcdir t support $f.tcl] }

expr {srand($seed)}
set deadline [expr {[clock milliseconds] + $seconds * 1000}]
set model [dict create]
if {[catch {
    set fd [mc_connect_addr 127.0.0.1 $port]
    for {set i 0} {$i < $n} {incr i} {
        if {[clock milliseconds] > $deadline} { error "deadline passed" }
        set id [expr {$worker * 1000 + int(rand() * 50)}]
        set g [expr {int(rand() * 4)}]
        set v [expr {rand() < 0.1 ? "null" : int(rand() * 100)}]
        switch [expr {int(rand() * 4)}] {
            0 - 1 {
                set r [mc_cmd $fd "tput cc id=$id g=$g v=$v"]
                if {![string match "STORED *" $r]} { error "tput: $r" }
                dict set model $id [list $g $v]
            }
            2 {
                set r [mc_cmd $fd "tupdate cc id=$id v=$v"]
                if {[dict exists $model $id]} {
                    if {![string match "STORED *" $r]} { error "tupdate: $r" }
                    dict set model $id [list [lindex [dict get $model $id] 0] $v]
                } elseif {$r ne "NOT_FOUND"} { error "tupdate of a missing row: $r" }
            }
            3 {
                set r [mc_cmd $fd "tdel cc $id"]
                if {$r ne [expr {[dict exists $model $id] ? "DELETED" : "NOT_FOUND"}]} { error "tdel: $r" }
                dict unset model $id
            }
        }
    }
    dict for {id gv} $model { puts "R $id [lindex $gv 0] [lindex $gv 1]" }
    puts ok
} err]} {
    puts "error: $err"
    exit 1
}
