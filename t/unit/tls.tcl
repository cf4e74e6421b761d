# TLS (doc/protocol.md, "TLS"; server/net/tls.c): -Z with memcached's -o ssl_*
# options, -l notls:<addr>, refresh_certs and the ssl_* stats, spoken to by
# a real TLS client (Tcl's tls package, Debian's tcl-tls; pymemcache with a
# tls_context). A throwaway CA, server and client certificates are made
# with the openssl command line in the unit's scratch directory.
#
# Tagged tls: skipped, with the reason, when mcds-server was built without
# TLS. mcds-only: the notls port is read from mcds's start-up lines.

source [file join [srcdir] t support tls.tcl]

start_server [list tags {tls mcds-only} args [concat [tls_server_args] \
        [list -l notls:127.0.0.1:[set ::tls_plain_port [free_port]]]]] {

    test {TLS: set and get over a TLS connection} {
        tls_need
        set fd [tls_connect]
        list [mc_exchange $fd "set k 5 0 3\r\nabc\r\nget k\r\n"] [dict get [tls::status $fd] subject]
    } [list "STORED\r\nVALUE k 5 3\r\nabc\r\nEND\r\n" CN=localhost]

    test {TLS: the binary protocol over TLS} {
        tls_need
        set fd [tls_connect]
        bin_exchange $fd [string cat [bin_pkt SET -key bk -ext [bin_store_ext 7] -value hello] \
            [bin_pkt GET -key bk]]
    } {{SET OK} {GET OK flags=7 hello}}

    test {TLS: values larger than a TLS record, both ways} {
        tls_need
        set fd [tls_connect]
        set v [randstring 300000]
        assert_equal [mc_set $fd big $v] STORED
        string equal [mc_get $fd big] $v
    } 1

    test {TLS: 1200 pipelined commands in one write, cut into records anywhere, are all answered} {
        tls_need
        set fd [tls_connect]
        set req {}
        set want {}
        for {set i 0} {$i < 600} {incr i} {
            set v [string repeat [format %c [expr {97 + $i % 26}]] [expr {($i * 37) % 1500}]]
            append req "set p$i 0 0 [string length $v]\r\n$v\r\nget p$i\r\n"
            append want "STORED\r\nVALUE p$i 0 [string length $v]\r\n$v\r\nEND\r\n"
        }
        string equal [mc_exchange $fd $req] $want
    } 1

    test {TLS: -l notls: listens in plain text beside the TLS port} {
        tls_need
        set p [mc_connect_addr 127.0.0.1 $::tls_plain_port]
        lappend ::srvinfo([srv_id 0],fds) $p
        list [mc_exchange $p "get k\r\n"] [dict get [mc_stats $p settings] inter]
    } [list "VALUE k 5 3\r\nabc\r\nEND\r\n" 127.0.0.1,notls:127.0.0.1:$::tls_plain_port]

    test {TLS: stats settings shows the ssl_* options as memcached does} {
        tls_need
        set s [mc_stats [tls_connect] settings]
        set out {}
        foreach n {ssl_enabled ssl_chain_cert ssl_key ssl_verify_mode ssl_keyformat ssl_ciphers
                ssl_ca_cert ssl_wbuf_size ssl_session_cache ssl_kernel_tls ssl_min_version} {
            lappend out [dict get $s $n]
        }
        set out
    } [list yes $::tls_dir/server.crt $::tls_dir/server.key 0 1 NULL NULL 16384 no no tlsv1.2]

    test {TLS: stats shows ssl_handshake_errors and time_since_server_cert_refresh after log_watchers} {
        tls_need
        set names [dict keys [mc_stats [tls_connect]]]
        set i [lsearch $names log_watchers]
        lrange $names [expr {$i + 1}] [expr {$i + 2}]
    } {ssl_handshake_errors time_since_server_cert_refresh}

    test {TLS: plain text to a TLS port gets no reply and is closed, as memcached; counted} {
        tls_need
        set fd [tls_connect]
        set before [mc_stat $fd ssl_handshake_errors]
        set p [mc_connect_addr 127.0.0.1 [srv port]]
        lappend ::srvinfo([srv_id 0],fds) $p
        mc_send $p "version\r\nget k\r\n"
        set got [mc_read_until_close $p]
        list [string match *VERSION* $got] [string match *VALUE* $got] \
            [expr {[mc_stat $fd ssl_handshake_errors] - $before}]
    } {0 0 1}

    test {TLS: a multi-get far larger than the socket buffers, read slowly, arrives whole} {
        tls_need
        set fd [tls_connect]
        set keys {}
        set want {}
        for {set i 0} {$i < 40} {incr i} {
            set v [string repeat [format %c [expr {65 + $i % 26}]] 200000]
            assert_equal [mc_set $fd mg$i $v] STORED
            lappend keys mg$i
            append want "VALUE mg$i 0 200000\r\n$v\r\n"
        }
        append want "END\r\n"
        mc_send $fd "get [join $keys]\r\n"
        # While nothing is read the server holds at most about
        # --conn-output-max (1 MB) of it, not the whole 8 MB.
        sleep_ms 300
        set watcher [mc_connect_addr 127.0.0.1 $::tls_plain_port]
        lappend ::srvinfo([srv_id 0],fds) $watcher
        assert_range [mc_stat $watcher response_obj_bytes] 0 [expr {4 * 1024 * 1024}]
        set got {}
        while {[string length $got] < [string length $want]} {
            append got [mc_read_bytes $fd [expr {min(65536, [string length $want] - [string length $got])}]]
            sleep_ms 2
        }
        string equal $got $want
    } 1

    test {TLS: a blocking qpop over TLS is woken by a push} {
        tls_need
        set w [tls_connect]
        set p [tls_connect]
        assert_equal [mc_exchange $p "qcreate tq\r\n"] "CREATED\r\n"
        mc_send $w "qpop tq wait=100\r\n"
        q_wait_waiters $p tq 1
        set id [q_push $p tq hello]
        mc_expect $w [q_item $id 0 hello 1]
        mc_expect $w "END\r\n"
        mc_exchange $w "qack tq $id\r\n"
    } "ACKED\r\n"

    test {TLS: a client that hangs up while its qpop waits is seen at once} {
        tls_need
        set p [mc_connect_addr 127.0.0.1 $::tls_plain_port]
        lappend ::srvinfo([srv_id 0],fds) $p
        assert_equal [mc_exchange $p "qcreate tq2\r\n"] "CREATED\r\n"
        set w [tls_connect]
        mc_send $w "qpop tq2 wait=100\r\n"
        q_wait_waiters $p tq2 1
        set conns [mc_stat $p curr_connections]
        mc_close $w
        wait_for {[mc_stat $p curr_connections] == $conns - 1}
        q_stat $p tq2 waiters
    } 0

    test {TLS: refresh_certs reloads changed files; old connections go on, new ones see the new certificate} {
        tls_need
        set old [tls_connect]
        file copy -force $::tls_dir/server.crt $::tls_dir/server-first.crt
        file copy -force $::tls_dir/server.key $::tls_dir/server-first.key
        tls_make_cert server 127.0.0.1 "subjectAltName=IP:127.0.0.1"
        # The clock moves 1000 s on: the files were loaded over 1000 s ago.
        assert_equal [mc_exchange $old "debugtime 1000\r\n"] "OK\r\n"
        set before [mc_stat $old time_since_server_cert_refresh]
        assert_equal [mc_exchange $old "refresh_certs\r\n"] "OK\r\n"
        set new [tls_connect]
        list [tls_peer_subject $old] [tls_peer_subject $new] [mc_exchange $old "get k\r\n"] \
            [expr {$before >= 1000}] [expr {[mc_stat $new time_since_server_cert_refresh] < 1000}]
    } [list CN=localhost CN=127.0.0.1 "VALUE k 5 3\r\nabc\r\nEND\r\n" 1 1] {debugtime}

    test {TLS: refresh_certs with a broken key keeps the old context and says why} {
        tls_need
        set fd [tls_connect]
        file copy -force $::tls_dir/server.key $::tls_dir/server-good.key
        set f [open $::tls_dir/server.key w]
        puts $f "not a key"
        close $f
        set r [mc_exchange $fd "refresh_certs\r\nrefresh_certs noreply\r\n"]
        file copy -force $::tls_dir/server-good.key $::tls_dir/server.key
        set new [tls_connect]
        list [string match "Error loading the key: $::tls_dir/server.key : *\r\n" $r] \
            [regexp -all "\r\n" $r] [tls_peer_subject $new]
    } {1 1 CN=127.0.0.1}

    test {TLS: refresh_certs noreply is silent; extra words are ignored, as memcached} {
        tls_need
        mc_exchange [tls_connect] "refresh_certs noreply\r\nrefresh_certs now please\r\n"
    } "OK\r\n"

    test {TLS: pymemcache with a tls_context} {
        tls_need
        set py [pymemcache_python]
        set script {
import ssl, sys
from pymemcache.client.base import Client
ctx = ssl.create_default_context(cafile=sys.argv[2])
c = Client(("127.0.0.1", int(sys.argv[1])), tls_context=ctx, timeout=float(sys.argv[3]))
c.set("py-tls", b"secret")
print(c.get("py-tls").decode(), c.get_many(["py-tls", "k"])["k"].decode())
}
        lassign [run_cmd 60 $py -c $script [srv port] $::tls_dir/ca.crt [expr {5 * [time_factor]}]] status out
        if {$status ne "0"} { fail "pymemcache over TLS exited $status: $out" }
        string trim $out
    } {secret abc}
}

# A stalled handshake holds neither the only worker nor, past
# -o idle_timeout, its connection. The timeout also bounds a real client's
# handshake, which takes seconds under valgrind: 3 s, 30 s there.
start_server [list tags {tls mcds-only} args [concat [tls_server_args] \
        [list -t 1 -o idle_timeout=[expr {3 * [time_factor]}]]]] {
    test {TLS: a client that stalls its handshake does not hold the worker, and idle_timeout closes it} {
        tls_need
        set stalled [mc_connect]
        set half [mc_connect]
        mc_send $half "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
        set fd [tls_connect]
        assert_equal [mc_exchange $fd "set s 0 0 2\r\nok\r\nget s\r\n"] "STORED\r\nVALUE s 0 2\r\nok\r\nEND\r\n"
        list [mc_is_closed $stalled 10000] [mc_is_closed $half 10000]
    } {1 1}
}

# ssl_verify_mode=2: a client certificate signed by ssl_ca_cert is required.
start_server [list tags {tls mcds-only} args [tls_server_args \
        "ssl_verify_mode=2,ssl_ca_cert=$::tls_dir/ca.crt,ssl_min_version=3,ssl_session_cache,ssl_kernel_tls"]] {
    test {TLS: ssl_verify_mode=2 serves a client with a certificate from ssl_ca_cert} {
        tls_need
        set fd [tls_connect {} -certfile $::tls_dir/client.crt -keyfile $::tls_dir/client.key]
        set s [mc_stats $fd settings]
        list [mc_exchange $fd "set v 0 0 1\r\nx\r\n"] [dict get $s ssl_verify_mode] \
            [dict get $s ssl_ca_cert] [dict get $s ssl_min_version] [dict get $s ssl_session_cache]
    } [list "STORED\r\n" 3 $::tls_dir/ca.crt tlsv1.3 yes]

    test {TLS: with ssl_kernel_tls (used where the kernel offers it) a 300 KB value goes both ways} {
        tls_need
        set fd [tls_connect {} -certfile $::tls_dir/client.crt -keyfile $::tls_dir/client.key]
        set v [randstring 300000]
        assert_equal [mc_set $fd ktls $v] STORED
        list [string equal [mc_get $fd ktls] $v] [dict get [mc_stats $fd settings] ssl_kernel_tls]
    } {1 yes}

    test {TLS: ssl_verify_mode=2 refuses a client without a certificate} {
        tls_need
        set ok [tls_connect {} -certfile $::tls_dir/client.crt -keyfile $::tls_dir/client.key]
        set before [mc_stat $ok ssl_handshake_errors]
        # With TLS 1.3 the client learns of the refusal on its first read.
        set refused [catch {
            set fd [tls_connect]
            mc_send $fd "get v\r\n"
            mc_readline $fd
        } err]
        # The alert may reach the client before the server counts it.
        wait_for {[mc_stat $ok ssl_handshake_errors] == $before + 1}
        set refused
    } 1

    test {TLS: a TLS 1.2 client is refused with ssl_min_version=3} {
        tls_need
        catch {
            set fd [tls_connect {} -certfile $::tls_dir/client.crt -keyfile $::tls_dir/client.key \
                -tls1 0 -tls1.1 0 -tls1.2 1 -tls1.3 0]
            mc_exchange $fd "get v\r\n"
        }
    } 1
}

# -Y inside TLS; refresh_certs is an admin command.
set f [open $::tls_dir/users w]
puts $f "root:r00t\napp:4pp"
close $f
start_server [list tags {tls mcds-only} args [concat [tls_server_args] \
        [list -Y $::tls_dir/users --admin-users root]]] {
    test {TLS: -Y authentication inside TLS; refresh_certs is for --admin-users only} {
        tls_need
        set out {}
        foreach {user pass} {app 4pp root r00t} {
            set fd [tls_connect]
            mc_send $fd "set a 0 0 [string length "$user $pass"]\r\n$user $pass\r\n"
            assert_equal [mc_readline $fd] STORED
            lappend out [mc_exchange $fd "refresh_certs\r\n"]
        }
        set out
    } [list "CLIENT_ERROR admin commands are for --admin-users only\r\n" "OK\r\n"]
}

# In every build, TLS or not.
start_server {tags {mcds-only}} {
    test {TLS: without -Z, refresh_certs answers as memcached and ssl_enabled is no} {
        set fd [mc_connect]
        list [mc_exchange $fd "refresh_certs\r\n"] [dict get [mc_stats $fd settings] ssl_enabled] \
            [dict exists [mc_stats $fd] ssl_handshake_errors]
    } [list "Error TLS not enabled\r\n" no 0]
}

tags {tls mcds-only} {
    test {TLS: -Z without ssl_chain_cert, a bad ssl_* value or a missing file stop start-up} {
        tls_need
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z] s1 o1
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -o ssl_verify_mode=4] s2 o2
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -o ssl_min_version=tls] s3 o3
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z -o ssl_chain_cert=$::tls_dir/none.crt] s4 o4
        list $s1 [string match "*-Z needs -o ssl_chain_cert*" $o1] $s2 $s3 \
            [string match "*invalid argument for --extended: ssl_verify_mode=4*" $o2] \
            $s4 [string match "*Error loading the certificate chain: $::tls_dir/none.crt : *" $o4]
    } {64 1 64 64 1 1 1}
}

tags {mcds-only} {
    test {TLS: a build without TLS refuses -Z at start-up and says why} {
        if {[built_with_tls]} { skip "this mcds-server was built with TLS" }
        lassign [run_server_cmd -p 0 -l 127.0.0.1 -Z -o ssl_chain_cert=/nonexistent] status out
        list $status [string match "*built without TLS*-Z cannot be used*" $out]
    } {1 1}
}
