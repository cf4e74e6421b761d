# The metrics listener (--metrics-port): Prometheus's text format over
# HTTP at /metrics, memcached_exporter's names for memcached's figures,
# every other `stats` figure as mcds_<name>, the largest queues and lists
# by name (--metrics-top), its bounds, its errors and its authentication.
# A real Prometheus scrapes it in t/integration/prometheus.tcl.

# metrics_check_format text -> "" when text is a well-formed exposition:
# every sample line "name{labels} value", every family's HELP and TYPE
# given once and before its samples, a family's samples together.
proc metrics_check_format {text} {
    set seen {}
    set current {}
    foreach line [split [string trimright $text "\n"] "\n"] {
        if {[regexp {^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$} $line -> kind name rest]} {
            if {[dict exists $seen $name,$kind]} { return "$kind of $name twice" }
            dict set seen $name,$kind 1
            if {$kind eq "TYPE" && $rest ni {counter gauge}} { return "type '$rest' of $name" }
            set current $name
            continue
        }
        set re {^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? (-?[0-9]+(\.[0-9]+)?)$}
        if {![regexp $re $line -> name]} { return "bad line: [visible $line]" }
        if {$name ne $current} { return "sample of $name outside its family (after $current)" }
    }
    return {}
}

# The names `stats` has, with their values.
proc metrics_stats_names {fd} {
    return [mc_stats $fd]
}

start_server {tags {metrics mcds-only}} {
    test {metrics: off unless --metrics-port is given} {
        set fd [mc_connect]
        list [dict get [mc_stats $fd settings] metrics_port] [regexp {metrics on} [read_file [srv stderr]]]
    } {0 0}
}

set ::mport [free_port]
start_server [list tags {metrics mcds-only} args [list --metrics-port $::mport --metrics-top 5]] {
    test {metrics: the start-up line names the address} {
        regexp "metrics on http://127.0.0.1:$::mport/metrics" [read_file [srv stderr]]
    } 1

    test {metrics: GET /metrics answers 200 in Prometheus's text format 0.0.4} {
        lassign [http_get $::mport /metrics] status headers body
        list $status [dict get $headers content-type] [dict get $headers connection] \
            [expr {[dict get $headers content-length] == [string length $body]}] [metrics_check_format $body]
    } {200 {text/plain; version=0.0.4; charset=utf-8} close 1 {}}

    test {metrics: memcached_exporter's names carry memcached's figures} {
        set fd [mc_connect]
        mc_set $fd k1 v
        mc_get $fd k1
        mc_get $fd nope
        mc_cmd $fd "incr nope 1"
        set m [metrics_scrape $::mport]
        set s [metrics_stats_names $fd]
        list [metrics_value $m memcached_up] [metrics_value $m memcached_version {version="1.6.18"}] \
            [metrics_value $m memcached_commands_total {command="get",status="hit"}] \
            [metrics_value $m memcached_commands_total {command="get",status="miss"}] \
            [metrics_value $m memcached_commands_total {command="set",status="hit"}] \
            [metrics_value $m memcached_commands_total {command="incr",status="miss"}] \
            [expr {[metrics_value $m memcached_current_items] == [dict get $s curr_items]}] \
            [expr {[metrics_value $m memcached_limit_bytes] == [dict get $s limit_maxbytes]}] \
            [expr {[metrics_value $m memcached_current_connections] >= 1}]
    } {1 1 1 1 1 1 1 1 1}

    test {metrics: every numeric stats figure is in the exposition} {
        set fd [mc_connect]
        set s [metrics_stats_names $fd]
        set m [metrics_scrape $::mport]
        set mapped {uptime time rusage_user rusage_system bytes_read bytes_written curr_connections
            max_connections total_connections rejected_connections conn_yields listen_disabled_num
            accepting_conns bytes limit_maxbytes curr_items total_items evictions reclaimed store_too_large
            store_no_memory direct_reclaims lru_crawler_starts crawler_reclaimed crawler_items_checked
            moves_to_cold moves_to_warm moves_within_lru get_hits get_misses delete_hits delete_misses
            incr_hits incr_misses decr_hits decr_misses cas_hits cas_misses cas_badval touch_hits
            touch_misses cmd_flush}
        set missing {}
        dict for {k v} $s {
            if {$k in $mapped || ![string is double -strict $v]} continue
            if {![regexp -line "^mcds_${k}(_total)? " $m]} { lappend missing $k }
        }
        list [llength $missing] $missing [expr {[dict size $s] > 120}]
    } {0 {} 1}

    test {metrics: a queue's figures by state, deliveries and acks, as qstats says} {
        set fd [mc_connect]
        mc_cmd $fd "qcreate jobs lease=60"
        foreach d {a b c d e} { q_push $fd jobs $d }
        q_push $fd jobs later 0 100
        set got [q_pop $fd jobs 2]
        mc_cmd $fd "qack jobs [lindex [lindex $got 0] 0]"
        set m [metrics_scrape $::mport]
        set q {queue="jobs"}
        list [metrics_value $m mcds_queue_messages {queue="jobs",state="ready"}] \
            [metrics_value $m mcds_queue_messages {queue="jobs",state="delayed"}] \
            [metrics_value $m mcds_queue_messages {queue="jobs",state="in_flight"}] \
            [metrics_value $m mcds_queue_messages {queue="jobs",state="buried"}] \
            [metrics_value $m mcds_queue_pushed_messages_total $q] \
            [metrics_value $m mcds_queue_deliveries_total $q] [metrics_value $m mcds_queue_acked_messages_total $q] \
            [q_counts $fd jobs] [expr {[metrics_value $m mcds_queue_oldest_ready_age_seconds $q] >= 0}]
    } {3 1 1 0 6 2 1 {3 1 1} 1}

    test {metrics: the longest lists by name} {
        set fd [mc_connect]
        l_push $fd rpush tasks {x y z}
        metrics_value [metrics_scrape $::mport] mcds_list_length {list="tasks"}
    } 3

    test {metrics: --metrics-top names only the largest queues and lists; the totals count all} {
        set fd [mc_connect]
        for {set i 1} {$i <= 12} {incr i} {
            for {set j 0} {$j < $i} {incr j} { mc_send $fd "qpush tq$i 0 0 1 noreply\r\nx\r\n" }
            l_push $fd rpush tl$i [lrepeat $i v]
        }
        mc_cmd $fd version
        set m [metrics_scrape $::mport]
        set queues [lsort -unique [regexp -all -inline {queue="([^"]+)"} $m]]
        set lists [lsort -unique [regexp -all -inline {list="([^"]+)"} $m]]
        list [lsearch -all -inline -not -glob $queues queue=*] [lsearch -all -inline -not -glob $lists list=*] \
            [metrics_value $m mcds_queues] [expr {[metrics_value $m mcds_lists] >= 13}]
    } {{tq10 tq11 tq12 tq8 tq9} {tl10 tl11 tl12 tl8 tl9} 13 1}

    test {metrics: a deleted queue leaves the metrics} {
        set fd [mc_connect]
        mc_cmd $fd "delete tq12"
        wait_for {[metrics_value [metrics_scrape $::mport] mcds_queue_messages {queue="tq12",state="ready"}] eq {}}
        list [metrics_value [metrics_scrape $::mport] mcds_queue_messages {queue="tq7",state="ready"}] \
            [metrics_value [metrics_scrape $::mport] mcds_queues]
    } {7 12}

    test {metrics: HEAD answers the headers of GET and no body} {
        lassign [http_request $::mport "HEAD /metrics HTTP/1.1\r\n\r\n"] status headers body
        list $status [expr {[dict get $headers content-length] > 1000}] $body
    } {200 1 {}}

    test {metrics: another path 404, another method 405, a bad request 400, a huge head 431} {
        lassign [http_get $::mport /] s1
        lassign [http_get $::mport /metricsx] s2
        lassign [http_request $::mport "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"] s3 h3
        lassign [http_request $::mport "hello\r\n\r\n"] s4
        lassign [http_request $::mport "GET /metrics HTTP/1.1\r\nX: [string repeat a 9000]\r\n\r\n"] s5
        lassign [http_request $::mport "GET /metrics SMTP/1.0\r\n\r\n"] s6
        lassign [http_get $::mport /metrics?x=1] s7
        list $s1 $s2 $s3 [dict get $h3 allow] $s4 $s5 $s6 $s7
    } {404 404 405 {GET, HEAD} 400 431 400 200}

    test {metrics: a NUL byte in the head is a bad request} {
        lindex [http_request $::mport "GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n"] 0
    } 400

    test {metrics: at most 16 connections at once; more are closed at once, the memcached port unharmed} {
        set held {}
        for {set i 0} {$i < 16} {incr i} { lappend held [socket 127.0.0.1 $::mport] }
        set extra [socket 127.0.0.1 $::mport]
        fconfigure $extra -translation binary
        set closed [expr {[mc_read_until_close $extra] eq {}}]
        catch {close $extra}
        set fd [mc_connect]
        set v [mc_cmd $fd version]
        foreach s $held { close $s }
        wait_for {[lindex [http_get $::mport /metrics] 0] eq "200"}
        list $closed $v [lindex [http_get $::mport /metrics] 0]
    } {1 {VERSION 1.6.18} 200}

    test {metrics: a request sent in pieces is answered once whole} {
        set s [socket 127.0.0.1 $::mport]
        fconfigure $s -translation binary -buffering none
        foreach piece {"GET /met" "rics HTTP/1.1\r\n" "Host: x\r\n" "\r\n"} {
            puts -nonewline $s $piece
            sleep_ms 50
        }
        set r [mc_read_until_close $s]
        close $s
        string range $r 0 14
    } {HTTP/1.1 200 OK}

    test {metrics: the queue's name is escaped as a label value} {
        set fd [mc_connect]
        mc_cmd $fd {qcreate a"b\c}
        for {set i 0} {$i < 50} {incr i} { mc_send $fd "qpush a\"b\\c 0 0 1 noreply\r\nx\r\n" }
        mc_cmd $fd version
        set m [metrics_scrape $::mport]
        list [metrics_value $m mcds_queue_messages {queue="a\"b\\c",state="ready"}] [metrics_check_format $m]
    } {50 {}}

    test {metrics: stats settings shows the listener's options} {
        set fd [mc_connect]
        set s [mc_stats $fd settings]
        list [dict get $s metrics_port] [dict get $s metrics_top]
    } [list $::mport 5]
}

test {metrics: bad values of the options are refused} {
    list [lindex [run_server_cmd -p 0 --metrics-port 70000] 0] [lindex [run_server_cmd -p 0 --metrics-port x] 0] \
        [lindex [run_server_cmd -p 0 --metrics-top 1001] 0] [lindex [run_server_cmd -p 0 --metrics-listen {}] 0]
} {64 64 64 64} {metrics mcds-only}

test {metrics: a metrics port in use stops the start-up with a clear line} {
    set busy [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $busy -sockname] 2]
    lassign [run_server_cmd -p 0 --metrics-port $port] status out
    close $busy
    list $status [regexp "failed to listen on 127.0.0.1:$port" $out] [regexp {start-up failed} $out]
} {1 1 1} {metrics mcds-only}

set ::metrics_auth [file join [tmpdir metricsauth] users]
set f [open $::metrics_auth w]; puts $f "prom:scrape\nalice:s3cret"; close $f
set ::mport [free_port]

start_server [list tags {metrics auth mcds-only} args [list -Y $::metrics_auth --metrics-port $::mport]] {
    test {metrics with -Y: no credentials 401 with a Basic challenge; a user of the file 200} {
        lassign [http_get $::mport /metrics] s1 h1
        lassign [http_get $::mport /metrics [list [http_basic prom scrape]]] s2
        lassign [http_get $::mport /metrics [list [http_basic alice s3cret]]] s3
        lassign [http_get $::mport /nothing [list [http_basic prom scrape]]] s4
        list $s1 [dict get $h1 www-authenticate] $s2 $s3 $s4
    } {401 {Basic realm="mcds", charset="UTF-8"} 200 200 404}

    test {metrics with -Y: wrong or malformed credentials 401} {
        set r {}
        foreach h [list [http_basic prom nope] "Authorization: Basic !!!!" "Authorization: Bearer abc" \
                       "Authorization: Basic [binary encode base64 promscrape]"] {
            lappend r [lindex [http_get $::mport /metrics [list $h]] 0]
        }
        set r
    } {401 401 401 401}

    test {metrics with -Y: failures lock the address out as failed logins do} {
        for {set i 0} {$i < 12} {incr i} { http_get $::mport /metrics [list [http_basic prom wrong]] }
        set locked [lindex [http_get $::mport /metrics [list [http_basic prom scrape]]] 0]
        set fd [mc_connect]
        mc_send $fd "set a 0 0 11\r\nprom scrape\r\n"
        set text [mc_readline $fd]
        list $locked $text
    } {401 {CLIENT_ERROR authentication failure}}
}

# The example Grafana dashboard (contrib/grafana/mcds-dashboard.json) must
# only ask for metrics the server serves: every name its queries use is in
# a scrape of a server with every part on (-Y, --data-dir).
proc dashboard_metric_names {} {
    set py [lindex [concat [glob -nocomplain /usr/bin/python3] [auto_execok python3]] 0]
    if {$py eq {}} { skip "python3 is not installed (the test reads the dashboard's JSON with it)" }
    set code {
import json, re, sys
d = json.load(open(sys.argv[1]))
names = set()
for p in d["panels"]:
    for t in p["targets"]:
        names.update(re.findall(r"\b(?:memcached|mcds)_[a-z_]+", t["expr"]))
names.update(re.findall(r"\b(?:memcached|mcds)_[a-z_]+", d["templating"]["list"][1]["query"]))
print(" ".join(sorted(names)), len(d["panels"]))
}
    lassign [run_cmd 20 $py -c $code [file join [srcdir] contrib grafana mcds-dashboard.json]] status out
    if {$status ne "0"} { fail "reading the dashboard: $out" }
    return [string trim $out]
}

set ::mport [free_port]
start_server [list tags {metrics mcds-only} args [list -Y $::metrics_auth --metrics-port $::mport \
                                                    --data-dir [tmpdir metricsdata]]] {
    test {metrics: every metric the example Grafana dashboard queries is served} {
        set names [dashboard_metric_names]
        set panels [lindex $names end]
        set m [metrics_scrape $::mport [list [http_basic prom scrape]]]
        set missing {}
        foreach n [lrange $names 0 end-1] {
            if {![regexp -line "^# TYPE $n " $m]} { lappend missing $n }
        }
        list $missing [expr {$panels >= 12}] [expr {[llength $names] > 20}]
    } {{} 1 1}
}

# A scrape takes the locks of queues, lists and tree counters, which a
# snapshot's forked child takes too: the metrics thread joins the pause of
# every thread around the fork (base/quiesce.c), so a snapshot taken while
# scrapes run back to back always completes.
set ::mport [free_port]
start_server [list tags {metrics persist mcds-only} args [list --metrics-port $::mport \
                                                           --data-dir [tmpdir metricsnap]]] {
    test {metrics: snapshots taken while scrapes run back to back all complete} {
        set fd [mc_connect]
        mc_exchange $fd "ctdef 1 103,107\r\n"
        for {set i 0} {$i < 300} {incr i} {
            mc_send $fd "qpush sq$i 0 0 1 noreply\r\nx\r\nrpush sl$i 1 noreply\r\nx\r\nctobj so$i\r\n"
        }
        mc_exchange $fd ""
        set scraper [exec_bg [info nameofexecutable] [file join [srcdir] t helpers metrics_scraper.tcl] \
                         [srcdir] $::mport 8]
        set done 0
        for {set k 0} {$k < 15} {incr k} {
            assert_equal [mc_exchange $fd "snapshot\r\n"] "OK\r\n"
            if {![catch {wait_for {[mc_stat $fd persist_snapshot_in_progress] == 0} 100 50}]} { incr done }
            mc_send $fd "qpush sq$k 0 0 1 noreply\r\nx\r\nctincr so$k 1 103 @1609459200 1 noreply\r\n"
        }
        set out [wait_bg $scraper 60]
        list $done [mc_stat $fd persist_snapshot_failures] [expr {[lindex $out end] > 20}]
    } {15 0 1}
}
