# TLS on the replication link (doc/replication.md, "TLS on the link"): a
# replica with --primary-tls follows a primary started with -Z, verifying
# its certificate against --primary-tls-ca and the host it connects to,
# through partial and full resyncs; with ssl_verify_mode=2 it shows its
# own certificate (--primary-tls-cert/--primary-tls-key). A replica whose
# check fails (another CA, a certificate for another name, no client
# certificate, plain TCP to a TLS port or TLS to a plain one) never
# receives a record and says why in its log. Bad option sets stop the
# start-up. The test's own connections use each primary's notls port.

source [file join [srcdir] t support repl.tcl]
source [file join [srcdir] t support tls.tcl]

# A second CA and a certificate of it, and a certificate of the test CA
# for another name only.
proc rt_make_other_certs {} {
    set d $::tls_dir
    tls_openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout $d/other-ca.key -out $d/other-ca.crt -days 2 -subj /CN=other-test-ca
    tls_make_cert elsewhere elsewhere.example "subjectAltName=DNS:elsewhere.example"
}
if {$::tls_why eq {} && [catch rt_make_other_certs err]} {
    set ::tls_why "could not make test certificates: $err"
}

# Primary options: -Z with the test's server certificate (more: extra
# ssl_* options), a notls port for the test, --data-dir.
proc rt_primary_args {name {more {}} {cert server}} {
    set d $::tls_dir
    set o "ssl_chain_cert=$d/$cert.crt,ssl_key=$d/$cert.key"
    if {$more ne {}} { append o ,$more }
    set ::rt_plain [free_port]
    list -Z -o $o -l notls:127.0.0.1:$::rt_plain --data-dir [tmpdir rtls_$name] --persist-items
}

proc rt_connect_plain {} { mc_connect_addr 127.0.0.1 $::rt_plain }

# The replica at level never gets a record: its link is not up, its log
# is empty, and its log file says why (pattern).
proc rt_refused {level pattern} {
    wait_for {[string match $pattern [read_file [srv $level stderr]]]} 100 100
    set rfd [repl_connect $level]
    list [expr {[mc_stat $rfd repl_link] ne "up"}] [mc_stat $rfd repl_position] [mc_get $rfd k]
}

start_server [list tags {repl tls mcds-only} args [rt_primary_args p1]] {
    tls_need
    set ::tls_port [srv port]
    set pfd [rt_connect_plain]
    # a snapshot removes log.0: a new replica resyncs in full
    repl_work $pfd 11 150
    assert_equal [mc_exchange $pfd "snapshot\r\n"] "OK\r\n"
    wait_for {[mc_stat $pfd persist_snapshot_in_progress] == 0} 200 50
    repl_work $pfd 12 100

    start_server [list tags {repl} args [list --data-dir [tmpdir rtls_r1] --persist-items \
            --replicaof 127.0.0.1:$::tls_port --primary-tls-ca $::tls_dir/ca.crt]] {
        test {replication TLS: a replica with --primary-tls-ca resyncs in full from a -Z primary, then follows it} {
            tls_need
            set rfd [repl_connect_caught_up 0 $pfd]
            repl_work $pfd 13 150
            repl_assert_equal $pfd $rfd
            list [mc_stat $pfd repl_replicas] [mc_stat $rfd repl_link] [mc_stat $rfd repl_full_syncs] \
                [mc_stat $rfd repl_partial_syncs] \
                [string match "*asks for the log (? 0) over TLS*" [read_file [srv -1 stderr]]]
        } {1 up 1 1 1}

        test {replication TLS: values larger than a TLS record cross the link} {
            tls_need
            assert_equal [mc_set $pfd big [string repeat x 300000]] STORED
            set rfd [repl_connect_caught_up 0 $pfd]
            string length [mc_get $rfd big]
        } 300000
    }

    start_server [list tags {repl} args [list --data-dir [tmpdir rtls_r2] --persist-items \
            --replicaof localhost:$::tls_port --primary-tls --primary-tls-ca $::tls_dir/ca.crt]] {
        test {replication TLS: the primary's DNS name is checked as well as an address} {
            tls_need
            set rfd [repl_connect_caught_up 0 $pfd]
            repl_assert_equal $pfd $rfd
            mc_stat $rfd repl_link
        } up
    }

    foreach {name args pattern} [list \
            "another CA" [list --replicaof 127.0.0.1:$::tls_port --primary-tls-ca $::tls_dir/other-ca.crt] \
                "*TLS to 127.0.0.1:$::tls_port: the primary's certificate is refused: *" \
            "plain TCP to the TLS port" [list --replicaof 127.0.0.1:$::tls_port] \
                "*127.0.0.1:$::tls_port ended the link without answering psync (a TLS port? see --primary-tls)*" \
            "TLS to the primary's plain port" [list --replicaof 127.0.0.1:$::rt_plain --primary-tls-ca $::tls_dir/ca.crt] \
                "*TLS to 127.0.0.1:$::rt_plain: the handshake failed: *"] {
        start_server [list tags {repl} args [concat [list --data-dir [tmpdir rtls_bad]] $args]] {
            test "replication TLS: a replica with $name gets nothing and says why" {
                tls_need
                rt_refused 0 $pattern
            } {1 0 {}}
        }
    }

    test {replication TLS: psync pipelined behind a reply still to send over TLS is refused} {
        tls_need
        set fd [tls_connect $::tls_port]
        mc_send $fd "version\r\npsync ? 0\r\n"
        list [string match "VERSION *" [mc_readline $fd]] [mc_readline $fd] [mc_stat $pfd repl_replicas]
    } {1 {SERVER_ERROR psync over TLS must wait for the replies before it} 0}
}

start_server [list tags {repl tls mcds-only} args [rt_primary_args p2 {} elsewhere]] {
    tls_need
    set ::tls_port [srv port]
    set pfd [rt_connect_plain]
    assert_equal [mc_set $pfd k v] STORED
    start_server [list tags {repl} args [list --data-dir [tmpdir rtls_name] \
            --replicaof 127.0.0.1:$::tls_port --primary-tls-ca $::tls_dir/ca.crt]] {
        test {replication TLS: a certificate that names another host is refused} {
            tls_need
            rt_refused 0 "*TLS to 127.0.0.1:$::tls_port: the primary's certificate is refused: *"
        } {1 0 {}}
    }
}

start_server [list tags {repl tls mcds-only} args [rt_primary_args p3 "ssl_verify_mode=2,ssl_ca_cert=$::tls_dir/ca.crt"]] {
    tls_need
    set ::tls_port [srv port]
    set pfd [rt_connect_plain]
    assert_equal [mc_set $pfd k v] STORED

    start_server [list tags {repl} args [list --data-dir [tmpdir rtls_m1] --persist-items \
            --replicaof 127.0.0.1:$::tls_port --primary-tls-ca $::tls_dir/ca.crt \
            --primary-tls-cert $::tls_dir/client.crt --primary-tls-key $::tls_dir/client.key]] {
        test {replication TLS: a primary that asks for a client certificate gets --primary-tls-cert's} {
            tls_need
            set rfd [repl_connect_caught_up 0 $pfd]
            list [mc_get $rfd k] [mc_stat $pfd repl_replicas]
        } {v 1}
    }

    start_server [list tags {repl} args [list --data-dir [tmpdir rtls_m2] \
            --replicaof 127.0.0.1:$::tls_port --primary-tls-ca $::tls_dir/ca.crt]] {
        test {replication TLS: without a client certificate such a primary refuses the replica} {
            tls_need
            rt_refused 0 "*127.0.0.1:$::tls_port ended the link without answering psync; TLS: *certificate required*"
        } {1 0 {}}
    }
}

test {replication TLS: option sets that cannot work stop the start-up} {
    tls_need
    set d $::tls_dir
    set out {}
    foreach {args want} [list \
            [list --primary-tls-cert $d/client.crt] "*--primary-tls-cert and --primary-tls-key go together*" \
            [list --primary-tls-key $d/client.key] "*--primary-tls-cert and --primary-tls-key go together*" \
            [list --primary-tls-ca $d/none.crt] "*TLS to the primary: the CA list $d/none.crt does not load*" \
            [list --primary-tls-cert $d/none.crt --primary-tls-key $d/client.key] \
                "*--primary-tls-cert $d/none.crt does not load*" \
            [list --primary-tls-cert $d/client.crt --primary-tls-key $d/server.key] \
                "*--primary-tls-key $d/server.key does not *"] {
        lassign [run_server_cmd -p 0 -l 127.0.0.1 --data-dir [tmpdir rtls_opts] {*}$args] status text
        lappend out [expr {$status ne "0" && [string match $want $text]}]
    }
    set out
} {1 1 1 1 1}
