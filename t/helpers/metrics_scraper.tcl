# A process that scrapes the metrics listener back to back, for the test
# of snapshots taken meanwhile (t/unit/metrics.tcl):
#
#   tclsh metrics_scraper.tcl <srcdir> <port> <seconds>
#
# Prints "scrapes <n>" at the end; exits 1 on an answer other than 200.
lassign $argv srcdir port seconds
array set ::cfg {valgrind 0 reply_timeout 30 worker 0 unit helper}
foreach f {util test mc http} { source [file join $srcdir t support $f.tcl] }

set end [expr {[clock milliseconds] + $seconds * 1000}]
set n 0
while {[clock milliseconds] < $end} {
    lassign [http_get $port /metrics] status
    if {$status ne "200"} { puts "scrape answered '$status'"; exit 1 }
    incr n
}
puts "scrapes $n"
