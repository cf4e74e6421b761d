# TLS test helpers shared by the units that need certificates (unit/tls,
# integration/replication_tls): a throwaway CA, a server certificate for
# localhost and 127.0.0.1 and a client certificate, made with the openssl
# command line in the unit's scratch directory (::tls_dir). ::tls_why is
# empty when they could be made and Tcl's tls package (a TLS client for the
# test itself) is there, else why not: tls_need skips a test then.

set ::tls_dir [tmpdir certs]
set ::tls_why {}
if {[auto_execok openssl] eq {}} {
    set ::tls_why "the openssl command is not installed (apt-get install openssl)"
} elseif {[catch {package require tls}]} {
    set ::tls_why "Tcl's tls package is not installed (apt-get install tcl-tls)"
}

# openssl args...: runs the openssl command line, fails on an error.
proc tls_openssl {args} {
    lassign [run_cmd 60 openssl {*}$args] status out
    if {$status ne "0"} { error "openssl $args: $out" }
}

# tls_make_cert name cn ?ext?: a P-256 key name.key and a certificate
# name.crt for cn, signed by ca.crt.
proc tls_make_cert {name cn {ext {}}} {
    set d $::tls_dir
    tls_openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout $d/$name.key -out $d/$name.csr -subj /CN=$cn
    set cmd [list x509 -req -in $d/$name.csr -CA $d/ca.crt -CAkey $d/ca.key \
        -CAcreateserial -out $d/$name.crt -days 2]
    if {$ext ne {}} {
        set f [open $d/$name.ext w]
        puts $f $ext
        close $f
        lappend cmd -extfile $d/$name.ext
    }
    tls_openssl {*}$cmd
}

proc tls_make_certs {} {
    set d $::tls_dir
    tls_openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout $d/ca.key -out $d/ca.crt -days 2 -subj /CN=mcds-test-ca
    tls_make_cert server localhost "subjectAltName=IP:127.0.0.1,DNS:localhost"
    tls_make_cert client mcds-test-client
}

if {$::tls_why eq {} && [catch tls_make_certs err]} {
    set ::tls_why "could not make test certificates: $err"
}

# tls_need: skips the test when the client side cannot run here.
proc tls_need {} {
    if {$::tls_why ne {}} { skip $::tls_why }
}


# Errors come back to the test from the channel; the package's default
# callback would also print them.
proc tls__callback {what args} {
    if {$what eq "verify"} { return [lindex $args 3] }
    return
}

# tls_connect ?port? ?tls options...? -> a TLS channel to the innermost
# server (closed with its block), after a completed handshake.
proc tls_connect {{port {}} args} {
    if {$port eq {}} { set port [srv port] }
    set fd [tls::socket -cafile $::tls_dir/ca.crt -require 1 -servername localhost \
        -command tls__callback {*}$args 127.0.0.1 $port]
    lappend ::srvinfo([srv_id 0],fds) $fd
    fconfigure $fd -translation binary -encoding binary -blocking 1 -buffering full \
        -buffersize 1048576
    tls::handshake $fd
    return $fd
}

# The server's certificate as this channel sees it: its subject.
proc tls_peer_subject {fd} {
    dict get [tls::status $fd] subject
}

proc tls_server_args {{more {}}} {
    set d $::tls_dir
    set o "ssl_chain_cert=$d/server.crt,ssl_key=$d/server.key"
    if {$more ne {}} { append o ,$more }
    return [list -Z -o $o]
}
