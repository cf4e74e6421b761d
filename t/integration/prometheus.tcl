# A real Prometheus (Debian's prometheus package) scrapes mcds's metrics
# listener with HTTP Basic credentials of the -Y file: the target is up,
# and the queue and list figures it stored are the ones the server holds.
# Skipped, with the reason, when /usr/bin/prometheus is not installed
# (contrib/setup.sh --test installs it).

# prom_query port expr -> the value of the first sample of an instant
# query, or "" when the result is empty.
proc prom_query {port expr} {
    set q [string map {" " %20 "\{" %7B "\}" %7D "\"" %22 "=" %3D "," %2C} $expr]
    if {[catch {http_get $port "/api/v1/query?query=$q"} r]} { return {} }
    lassign $r status headers body
    if {$status ne "200"} { return {} }
    if {[regexp {"value":\[[0-9.]+,"([^"]*)"\]} $body -> v]} { return $v }
    return {}
}

proc prometheus_binary {} {
    foreach p {/usr/bin/prometheus} {
        if {[file executable $p]} { return $p }
    }
    skip "prometheus is not installed (apt-get install prometheus)"
}

set ::prom_auth [file join [tmpdir promauth] users]
set f [open $::prom_auth w]; puts $f "prom:scrape"; close $f
set ::prom_mport [free_port]

start_server [list tags {metrics prometheus slow mcds-only} args [list -Y $::prom_auth --metrics-port $::prom_mport]] {
    test {prometheus scrapes mcds: the target is up, the queue and list metrics carry the server's figures} {
        set prom [prometheus_binary]
        set fd [mc_connect]
        mc_send $fd "set a 0 0 11\r\nprom scrape\r\n"
        assert_equal [mc_readline $fd] STORED
        mc_cmd $fd "qcreate orders lease=600"
        foreach i {1 2 3 4 5 6 7} { q_push $fd orders "order $i" }
        q_push $fd orders "tomorrow" 0 86400
        q_pop $fd orders 2
        l_push $fd rpush events {e1 e2 e3 e4}

        set dir [tmpdir prometheus]
        set pport [free_port]
        set conf [file join $dir prometheus.yml]
        set f [open $conf w]
        puts $f "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s"
        puts $f "scrape_configs:\n  - job_name: mcds\n    basic_auth:\n      username: prom\n      password: scrape"
        puts $f "    static_configs:\n      - targets: \['127.0.0.1:$::prom_mport'\]"
        close $f
        set h [exec_bg $prom --config.file=$conf --storage.tsdb.path=[file join $dir data] \
                   --web.listen-address=127.0.0.1:$pport --log.level=warn]
        try {
            set want {{up{job="mcds"}} 1
                {mcds_queue_messages{queue="orders",state="ready"}} 5
                {mcds_queue_messages{queue="orders",state="in_flight"}} 2
                {mcds_queue_messages{queue="orders",state="delayed"}} 1
                {mcds_queue_deliveries_total{queue="orders"}} 2
                {mcds_list_length{list="events"}} 4
                {memcached_current_connections >= 1} 1}
            set want [dict create {*}$want]
            set got {}
            set deadline [expr {[clock milliseconds] + 60000 * [time_factor]}]
            while {[clock milliseconds] < $deadline} {
                set got {}
                dict for {q v} $want {
                    set x [prom_query $pport $q]
                    if {[string match "*>=*" $q] && $x ne {}} { set x 1 }
                    dict set got $q $x
                }
                if {$got eq $want} break
                sleep_ms 500
            }
        } finally {
            foreach p $::bg($h,pids) { kill_pid $p TERM }
            # Its exit status after TERM is not the test's business; its
            # log (warnings and errors) goes in the failure message.
            catch {wait_bg $h 30} out
        }
        if {$got ne $want} { fail "prometheus saw $got\n(wanted $want)\nits log: $out" }
        dict values $got
    } {1 5 2 1 2 4 1}
}
