# twemproxy (Debian's nutcracker) in front of three servers under test:
# ketama distribution over the memcache protocol, configured from a YAML
# file written here. Keys set through the proxy must read back through the
# proxy, one by one and in multi-gets (which nutcracker splits per server),
# and direct connections to each instance must show that every instance
# holds some of them and that together they hold each key exactly once.
# Proven against memcached 1.6.18 (./runtest --server /usr/bin/memcached).

set ::nutcracker_bin /usr/sbin/nutcracker

# nutcracker_start conf_dir servers -> dict {chan pid port stats_port log}.
# servers is a list of {host:port name}. Waits (bounded) until the proxy
# answers a get.
proc nutcracker_start {dir servers} {
    set bin $::nutcracker_bin
    if {![file executable $bin]} {
        set bin [auto_execok nutcracker]
        if {$bin eq {}} { skip "nutcracker is not installed (apt-get install nutcracker)" }
        set bin [lindex $bin 0]
    }
    set port [free_port]
    set stats_port [free_port]
    while {$stats_port == $port} { set stats_port [free_port] }
    set conf [file join $dir nutcracker.yml]
    set yml "mcds:\n"
    append yml "  listen: 127.0.0.1:$port\n"
    append yml "  hash: fnv1a_64\n"
    append yml "  distribution: ketama\n"
    append yml "  timeout: [expr {2000 * [time_factor]}]\n"
    append yml "  redis: false\n"
    append yml "  auto_eject_hosts: false\n"
    append yml "  preconnect: true\n"
    append yml "  servers:\n"
    foreach s $servers {
        lassign $s addr name
        append yml "   - $addr:1 $name\n"
    }
    set f [open $conf w]
    puts -nonewline $f $yml
    close $f
    set log [file join $dir nutcracker.log]
    set pidfile [file join $dir nutcracker.pid]
    lassign [run_cmd 10 $bin -t -c $conf -o $log] status out
    if {$status ne "0"} { fail "nutcracker -t rejects $conf ($status): $out\n$yml" }
    set cmd [list $bin -c $conf -o $log -p $pidfile -s $stats_port -a 127.0.0.1 -i 100 -v 5]
    verbose "starting: $cmd"
    set chan [open "|[list {*}$cmd] 2>@1" r]
    fconfigure $chan -blocking 0 -translation binary
    set pid [lindex [pid $chan] 0]
    register_pid $pid
    set nc [dict create chan $chan pid $pid port $port stats_port $stats_port \
        log $log pidfile $pidfile]
    # Ready when it accepts a connection and answers a get.
    set deadline [expr {[clock milliseconds] + 10000 * [time_factor]}]
    while 1 {
        if {![pid_alive $pid]} {
            nutcracker_stop $nc
            fail "nutcracker exited at start; log:\n[file_tail $log]"
        }
        if {![catch {mc_connect_addr 127.0.0.1 $port} fd]} {
            # (No `version` fence here: nutcracker does not proxy it.)
            set r [catch {mc_cmd $fd "get nutcracker-probe"} got]
            catch {close $fd}
            if {!$r && $got eq "END"} break
        }
        if {[clock milliseconds] > $deadline} {
            nutcracker_stop $nc
            fail "nutcracker not ready on port $port after 10 s; log:\n[file_tail $log]"
        }
        sleep_ms 50
    }
    return $nc
}

# nutcracker_stop nc -> how it ended ("SIGTERM" or an exit status). Sends
# SIGTERM and waits (bounded); SIGKILL and a failure if it lingers.
proc nutcracker_stop {nc} {
    set pid [dict get $nc pid]
    set chan [dict get $nc chan]
    set lingered 0
    if {[pid_alive $pid]} {
        kill_pid $pid TERM
        set deadline [expr {[clock milliseconds] + 5000 * [time_factor]}]
        while {[pid_alive $pid] && [clock milliseconds] < $deadline} { sleep_ms 20 }
        if {[pid_alive $pid]} {
            kill_pid $pid KILL
            set lingered 1
        }
    }
    fconfigure $chan -blocking 1
    set how 0
    if {[catch {close $chan} err opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] in {CHILDSTATUS CHILDKILLED}} { set how [lindex $code 2] }
    }
    unregister_pid $pid
    if {$lingered} { fail "nutcracker ignored SIGTERM for 5 s; killed" }
    return $how
}

# nutcracker's stats JSON from its stats port.
proc nutcracker_stats {nc} {
    set s [mc_connect_addr 127.0.0.1 [dict get $nc stats_port]]
    set data [mc_read_until_close $s]
    catch {close $s}
    return $data
}

start_server {tags {clients twemproxy}} {
start_server {} {
start_server {} {
    set backends [list \
        [list 127.0.0.1:[srv -2 port] mcds1] \
        [list 127.0.0.1:[srv -1 port] mcds2] \
        [list 127.0.0.1:[srv 0 port] mcds3]]
    set ::nc {}
    set N 300
    set keys {}
    for {set i 0} {$i < $N} {incr i} { lappend keys tw:key:$i }
    proc value_of {i} { return "value-$i-[string repeat x [expr {$i % 37}]]" }

    test {twemproxy: nutcracker starts in front of three servers} {
        set ::nc [nutcracker_start [tmpdir nutcracker] $backends]
        # It runs in the foreground, so its pid is known here. (Its -p pid
        # file keeps it away from /run; nutcracker 0.5.0 writes it only
        # with -d.)
        pid_alive [dict get $::nc pid]
    } 1

    test {twemproxy: 300 keys set through the proxy read back through it} {
        if {$::nc eq {}} { skip "nutcracker did not start" }
        set fd [mc_connect_addr 127.0.0.1 [dict get $::nc port]]
        set i 0
        foreach k $keys {
            set r [mc_set $fd $k [value_of $i] [expr {$i % 7}]]
            if {$r ne "STORED"} { fail "set $k through the proxy: $r" }
            incr i
        }
        set i 0
        foreach k $keys {
            set got [mc_getflags $fd $k]
            assert_equal $got [list [expr {$i % 7}] [value_of $i]] "get $k through the proxy"
            incr i
        }
        # Multi-gets of 100 keys, which nutcracker splits over the servers
        # and merges back; a missing key among them is simply absent.
        set seen 0
        for {set from 0} {$from < $N} {incr from 100} {
            set batch [lrange $keys $from [expr {$from + 99}]]
            mc_send $fd "get [join $batch { }] tw:missing\r\n"
            foreach item [mc_read_values $fd] {
                lassign $item k flags v
                regexp {^tw:key:(\d+)$} $k -> i
                assert_equal [list $flags $v] [list [expr {$i % 7}] [value_of $i]] "multi-get $k"
                incr seen
            }
        }
        mc_close $fd
        set seen
    } 300

    test {twemproxy: every instance holds some keys; each key on exactly one; 300 in all} {
        if {$::nc eq {}} { skip "nutcracker did not start" }
        set counts {}
        set where [dict create]
        foreach level {-2 -1 0} {
            set fd [mc_connect $level]
            set n 0
            set i 0
            foreach k $keys {
                set got [mc_getflags $fd $k]
                if {$got ne {}} {
                    assert_equal $got [list [expr {$i % 7}] [value_of $i]] "direct get $k on server $level"
                    dict lappend where $k $level
                    incr n
                }
                incr i
            }
            assert_equal [mc_stat $fd curr_items] $n "curr_items of server $level"
            lappend counts $n
        }
        foreach k $keys {
            if {![dict exists $where $k]} { fail "$k is on no instance" }
            if {[llength [dict get $where $k]] != 1} {
                fail "$k is on instances [dict get $where $k]"
            }
        }
        foreach n $counts {
            if {$n == 0} { fail "an instance holds none of the keys: counts $counts" }
        }
        verbose "keys per instance: $counts"
        tcl::mathop::+ {*}$counts
    } 300

    test {twemproxy: gets/cas, incr/decr, append, touch and delete through the proxy} {
        if {$::nc eq {}} { skip "nutcracker did not start" }
        set fd [mc_connect_addr 127.0.0.1 [dict get $::nc port]]
        assert_equal [mc_set $fd tw:cas v1] STORED
        lassign [mc_gets $fd tw:cas] v cas
        assert_equal $v v1
        assert_equal [mc_cas $fd tw:cas v2 $cas] STORED
        assert_equal [mc_cas $fd tw:cas v3 $cas] EXISTS
        assert_equal [mc_get $fd tw:cas] v2
        assert_equal [mc_set $fd tw:n 10] STORED
        assert_equal [mc_cmd $fd "incr tw:n 5"] 15
        assert_equal [mc_cmd $fd "decr tw:n 20"] 0
        assert_equal [mc_cmd $fd "incr tw:nokey 1"] NOT_FOUND
        assert_equal [mc_set $fd tw:ap mid] STORED
        assert_equal [mc_set $fd tw:ap -end 0 0 append] STORED
        assert_equal [mc_set $fd tw:ap start- 0 0 prepend] STORED
        assert_equal [mc_get $fd tw:ap] start-mid-end
        assert_equal [mc_set $fd tw:ap x 0 0 add] NOT_STORED
        assert_equal [mc_cmd $fd "touch tw:ap 5000"] TOUCHED
        assert_equal [mc_cmd $fd "touch tw:nokey 5000"] NOT_FOUND
        assert_equal [mc_cmd $fd "delete tw:cas"] DELETED
        assert_equal [mc_cmd $fd "delete tw:cas"] NOT_FOUND
        assert_equal [mc_get $fd tw:cas] {}
        mc_close $fd
        # The instance that owns tw:ap got the touch: its TTL is 5000 s.
        set ttls {}
        foreach level {-2 -1 0} {
            set fd [mc_connect $level]
            set line [mc_cmd $fd "mg tw:ap t v"]
            if {$line ne "EN"} {
                regexp {^VA \d+ t(\d+)} $line -> ttl
                lappend ttls $ttl [mc_readline $fd]
            }
        }
        assert_equal [llength $ttls] 2 "tw:ap on exactly one instance: $ttls"
        assert_range [lindex $ttls 0] 4990 5000
        lindex $ttls 1
    } start-mid-end

    test {twemproxy: nutcracker's stats list the three servers with requests} {
        if {$::nc eq {}} { skip "nutcracker did not start" }
        # Stats are aggregated every 100 ms (-i 100).
        set json {}
        wait_for {[regexp {"mcds3":\s*\{[^\}]*"requests":\s*[1-9]} [set json [nutcracker_stats $::nc]]]} 50 100
        foreach name {mcds1 mcds2 mcds3} {
            if {![regexp "\"$name\":\\s*\\{\[^\\}\]*\"requests\":\\s*(\\d+)" $json -> n] || $n == 0} {
                fail "no requests for $name in the stats:\n$json"
            }
            if {![regexp "\"$name\":\\s*\\{\[^\\}\]*\"server_err\":\\s*0\[,\\s\]" $json]} {
                fail "server errors for $name in the stats:\n$json"
            }
        }
        list
    } {}

    test {twemproxy: nutcracker stops on SIGTERM} {
        if {$::nc eq {}} { skip "nutcracker did not start" }
        # (This body runs at global level: ::nc is the only name for it.)
        set proxy $::nc
        set ::nc {}
        set how [nutcracker_stop $proxy]
        if {$how ni {0 1 SIGTERM}} {
            fail "nutcracker ended with $how; log:\n[file_tail [dict get $proxy log]]"
        }
        pid_alive [dict get $proxy pid]
    } 0

    # Never leave it running, whatever failed above.
    if {$::nc ne {}} { catch {nutcracker_stop $::nc} }
}
}
}
