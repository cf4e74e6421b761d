# memcached's command-line options that scripts pass (Debian's
# memcached.conf, init scripts): -d, -P, several -l, -b, -k, -u, -o names,
# -n -f -L -e, and -v/-vv logging.

start_server [list tags {options mcds-only} args [list -l 127.0.0.1:[set ::opt_port2 [free_port]] -b 64 \
        -o idle_timeout=1000,no_lru_crawler,watcher_logbuf_size=128,slab_reassign,tail_repair_time=0,ext_path=x \
        -o foo_bar -n 48 -f 1.25 -L -e /dev/null -k]] {
    set fd [mc_connect]

    test {-l repeated: both addresses serve} {
        set fd2 [mc_connect_addr 127.0.0.1 $::opt_port2]
        list [mc_cmd $fd version] [mc_cmd $fd2 version]
    } {{VERSION 1.6.18} {VERSION 1.6.18}}

    test {-b, -o idle_timeout, no_lru_crawler and watcher_logbuf_size show in stats settings} {
        set s [mc_stats $fd settings]
        list [dict get $s tcp_backlog] [dict get $s idle_timeout] [dict get $s lru_crawler] \
            [dict get $s watcher_logbuf_size] [dict get $s inter]
    } [list 64 1000 no 131072 127.0.0.1,127.0.0.1:$::opt_port2]

    test {-o no_lru_crawler: the crawler verbs see it disabled} {
        mc_cmd $fd "lru_crawler crawl 1"
    } {CLIENT_ERROR lru crawler disabled}

    test {an unknown -o name is warned about, memcached's others are silent} {
        set log [read_file [srv stderr]]
        list [regexp {ignoring unknown -o option foo_bar} $log] [regexp {slab_reassign|tail_repair|ext_path} $log]
    } {1 0}
}

start_server {tags {options mcds-only} args {-o idle_timeout=1}} {
    test {-o idle_timeout closes a connection that sends nothing} {
        set fd [mc_connect]
        mc_cmd $fd version
        fconfigure $fd -blocking 0
        wait_for {[catch {read $fd}] || [eof $fd]} 100 100
        set fd2 [mc_connect]
        expr {[mc_stat $fd2 idle_kicks] >= 1}
    } 1
}

start_server {tags {options mcds-only} args {-vv}} {
    test {-vv logs each command and its reply as memcached prints them} {
        set fd [mc_connect]
        mc_exchange $fd "get nokey\r\n"
        mc_cmd $fd version
        set log [read_file [srv stderr]]
        list [regexp {<\d+ get nokey} $log] [regexp {>\d+ END} $log] [regexp {<\d+ new client connection} $log]
    } {1 1 1}
}

tags {options mcds-only} {
    test {-d: the parent exits 0 once the server serves; -P holds its pid, removed at exit} {
        set dir [tmpdir opt]
        set pidfile [file join $dir mcds.pid]
        set port [free_port]
        lassign [run_server_cmd -d -P $pidfile -p $port -l 127.0.0.1] status out
        set pid [string trim [read_file $pidfile]]
        register_pid $pid
        set fd [mc_connect_addr 127.0.0.1 $port]
        set v [mc_cmd $fd version]
        close $fd
        exec kill $pid
        wait_for {![file exists $pidfile]} 100 100
        list $status $v [file exists $pidfile]
    } {0 {VERSION 1.6.18} 0}

    test {-d: a server that cannot start makes the parent exit 1} {
        lassign [run_server_cmd -d -p 0 -l 127.0.0.1:99999] status out
        set status
    } 1

    test {-u: started as root, the server runs as that user once listening} {
        if {![running_as_root]} { skip "not root" }
        set dir [tmpdir opt]
        set pidfile [file join $dir mcds.pid]
        set port [free_port]
        lassign [run_server_cmd -d -u nobody -P $pidfile -p $port -l 127.0.0.1] status out
        set pid [string trim [read_file $pidfile]]
        register_pid $pid
        set user [string trim [exec ps -o user= -p $pid]]
        exec kill $pid
        list $status $user
    } {0 nobody}

    test {a bad -l address, -b or -f value is refused} {
        list [lindex [run_server_cmd -p 0 -l {[::1} ] 0] [lindex [run_server_cmd -p 0 -b x] 0] \
            [lindex [run_server_cmd -p 0 -f 0.5] 0]
    } {1 64 64}
}

# The rest of memcached 1.6.18's options, so that its configuration files
# start mcds unchanged: -X and -W refuse the dumps and watch with
# memcached's own replies, -D sets stats detail's prefix delimiter, -r
# raises the core limit, -N is accepted, -i prints the license. These
# tests pass against memcached too.
start_server {tags {options} args {-X -W -D # -r}} {
    set fd [mc_connect]

    test {-X: stats cachedump and lru_crawler metadump are refused; -W: watch is refused} {
        mc_exchange $fd "stats cachedump 1 0\r\nlru_crawler metadump all\r\nwatch\r\n"
    } "CLIENT_ERROR stats cachedump not allowed\r\nERROR metadump not allowed\r\nCLIENT_ERROR watch commands not allowed\r\n"

    test {-D #: stats detail counts key prefixes up to #} {
        mc_exchange $fd "stats detail on\r\nset a#1 0 0 1\r\nx\r\nget a#1\r\nget b:2\r\n"
        set r [mc_exchange $fd "stats detail dump\r\n"]
        list [regexp {PREFIX a get 1 hit 1 set 1 del 0} $r] [regexp {PREFIX b} $r] \
            [dict get [mc_stats $fd settings] stat_key_prefix] [dict get [mc_stats $fd settings] dump_enabled]
    } {1 0 # no}

    test {-r: the core file size limit is raised to its hard limit} {
        set lim [read_file /proc/[srv pid]/limits]
        regexp {Max core file size\s+(\S+)\s+(\S+)} $lim -> soft hard
        expr {$soft eq $hard}
    } 1
}

tags {options} {
    test {-i prints the license and exits 0} {
        lassign [run_server_cmd -i] status out
        list $status [regexp -nocase {licen[cs]e|redistribution} $out]
    } {0 1}
}

start_server {tags {options} args {-N 4}} {
    test {-N <num>: accepted, the server serves} {
        mc_cmd [mc_connect] version
    } {VERSION 1.6.18}
}

tags {options mcds-only} {
    test {-S needs -Y (mcds reads users from a file, not a SASL database); -D takes one character} {
        lassign [run_server_cmd -p 0 -S] status out
        list $status [regexp {needs -Y} $out] [lindex [run_server_cmd -p 0 -D ab] 0] [lindex [run_server_cmd -p 0 -D {}] 0]
    } {64 1 64 64}
}

set ::opt_authf [file join [tmpdir optsasl] users]
set f [open $::opt_authf w]; puts $f "u:p"; close $f
start_server [list tags {options mcds-only} args [list -S -Y $::opt_authf]] {
    test {-S with -Y: authentication is required} {
        set fd [mc_connect]
        list [mc_cmd $fd "get k"] [mc_exchange $fd "set a 0 0 3\r\nu p\r\nget k\r\n"]
    } [list {CLIENT_ERROR unauthenticated} "STORED\r\nEND\r\n"]
}
