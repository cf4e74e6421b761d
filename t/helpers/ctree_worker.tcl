# A load process for the tree-counter concurrency test, run as its own OS
# process:
#
#   tclsh ctree_worker.tcl <srcdir> <port> <seed> <count> <deadline-s> <counter> <leaves> <t0> <span> [<per>]
#
# Sends <count> "ctincr <leaf> <counter> 103 @<t> <delta>" for random
# leaves (a comma-separated list), times in [t0, t0+span) and deltas in
# -2..10, one at a time. Prints "A <leaf> <t> <delta>" for every STORED
# reply, then "ok <accepted> <refused>"; any other reply, or the deadline,
# prints the problem and exits 1. With <per> > 1, each request is one
# ctincrn of <per> such increments (all or none): an "A" line for each of
# them on STORED, one refusal counted on EXCEEDED.

lassign $argv srcdir port seed n seconds counter leaves t0 span per
if {$per eq {}} { set per 1 }
array set ::cfg {valgrind 0 reply_timeout 30 worker 0 unit helper}
foreach f {util test mc} { source [file join $srcdir t support $f.tcl] }

expr {srand($seed)}
set leaves [split $leaves ,]
set deadline [expr {[clock milliseconds] + $seconds * 1000}]
set accepted 0
set refused 0
if {[catch {
    set fd [mc_connect_addr 127.0.0.1 $port]
    for {set i 0} {$i < $n} {incr i} {
        if {[clock milliseconds] > $deadline} { error "deadline passed" }
        set incs {}
        for {set k 0} {$k < $per} {incr k} {
            set leaf [lindex $leaves [expr {int(rand() * [llength $leaves])}]]
            lappend incs $leaf [expr {$t0 + int(rand() * $span)}] [expr {int(rand() * 13) - 2}]
        }
        if {$per == 1} {
            lassign $incs leaf t delta
            set r [mc_cmd $fd "ctincr $leaf $counter 103 @$t $delta"]
        } else {
            set line ctincrn
            foreach {leaf t delta} $incs { append line " $leaf $counter 103 @$t $delta" }
            set r [mc_cmd $fd $line]
        }
        if {$r eq "STORED"} {
            foreach {leaf t delta} $incs { puts "A $leaf $t $delta" }
            incr accepted
        } elseif {[string match "EXCEEDED *" $r]} {
            incr refused
        } else {
            error "ctincr answered '$r'"
        }
    }
    close $fd
} err]} {
    puts "worker failed: $err"
    exit 1
}
puts "ok $accepted $refused"
