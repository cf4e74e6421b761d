# A load process for the concurrency tests, run as its own OS process:
#
#   tclsh mc_worker.tcl <srcdir> <port> <mode> <key> <count> <deadline-s> [id]
#
# Modes:
#   incr    <count> times "incr key 1"; every reply must be a number.
#   cas     <count> times a gets/cas retry loop adding 1 to the value.
#   append  <count> times "append key" of "<id>,".
# Prints "ok <mode> <count> retries <n>" and exits 0, or prints the problem
# and exits 1. Every loop is bounded by the count and by the deadline.

lassign $argv srcdir port mode key n seconds id
array set ::cfg {valgrind 0 reply_timeout 30 worker 0 unit helper}
foreach f {util test mc} { source [file join $srcdir t support $f.tcl] }

set deadline [expr {[clock milliseconds] + $seconds * 1000}]
proc check_deadline {} {
    if {[clock milliseconds] > $::deadline} { error "deadline passed" }
}

set retries 0
if {[catch {
    set fd [mc_connect_addr 127.0.0.1 $port]
    switch -- $mode {
        incr {
            for {set i 0} {$i < $n} {incr i} {
                check_deadline
                set r [mc_cmd $fd "incr $key 1"]
                if {![string is wideinteger -strict $r] && ![regexp {^\d+$} $r]} {
                    error "incr answered '$r'"
                }
            }
        }
        cas {
            for {set i 0} {$i < $n} {incr i} {
                set done 0
                for {set try 0} {!$done && $try < 100000} {incr try} {
                    check_deadline
                    lassign [mc_gets $fd $key] v cas
                    if {$cas eq {}} { error "gets $key missed" }
                    set r [mc_cas $fd $key [expr {$v + 1}] $cas]
                    switch -- $r {
                        STORED { set done 1 }
                        EXISTS { incr ::retries }
                        default { error "cas answered '$r'" }
                    }
                }
                if {!$done} { error "cas never succeeded" }
            }
        }
        append {
            for {set i 0} {$i < $n} {incr i} {
                check_deadline
                set r [mc_set $fd $key "$id," 0 0 append]
                if {$r ne "STORED"} { error "append answered '$r'" }
            }
        }
        default { error "unknown mode $mode" }
    }
    close $fd
} err]} {
    puts "worker $mode $id failed: $err"
    exit 1
}
puts "ok $mode $n retries $retries"
exit 0
