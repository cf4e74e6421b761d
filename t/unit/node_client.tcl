# contrib/node, the Node.js package (mcds on npm): its tests
# (contrib/node/test/*.test.js, node's own test runner) run every call with
# its replies and errors against a server started here (MCDS_ADDR), a pool
# of it and a second one (MCDS_ADDR2), and authentication against a third
# started with -Y (MCDS_AUTH_ADDR); one of them compiles a C program that
# asks libmemcached where 2,000 keys go and checks the pool sends each key
# there; replicas.test.js checks replica sets against fake servers (the
# live checks are client_replicas.tcl's). Then npm pack makes the package.
# Skipped, saying why, when node or npm is absent.

proc node_binary {} {
    foreach name {node nodejs} {
        set n [auto_execok $name]
        if {$n ne {}} { return [lindex $n 0] }
    }
    skip "node is not installed (apt-get install nodejs)"
}

# The summary lines of node's TAP reporter ("# pass 12") as a dict.
proc node_tap_counts {out} {
    set d {}
    foreach name {tests pass fail cancelled skipped todo} {
        if {[regexp -line "^# $name (\\d+)\$" $out -> n]} { dict set d $name $n }
    }
    return $d
}

set ::node_dir [file join [srcdir] contrib node]
set ::node_auth [file join [tmpdir nodeauth] users]
set f [open $::node_auth w]; puts $f "alice:s3cret"; close $f

start_server {tags {clients node mcds-only} args {-I 1m}} {
  start_server {tags {clients node mcds-only}} {
    start_server [list tags {clients node mcds-only} args [list -Y $::node_auth]] {
        test {contrib/node: node --test, every call with its replies and errors, placement as libmemcached's} {
            set node [node_binary]
            # tls.test.js runs below, against a server started with -Z.
            set files [lsearch -all -inline -not [lsort [glob [file join $::node_dir test *.test.js]]] *tls.test.js]
            lassign [run_cmd 300 env MCDS_ADDR=127.0.0.1:[srv -2 port] MCDS_ADDR2=127.0.0.1:[srv -1 port] \
                MCDS_AUTH_ADDR=127.0.0.1:[srv port] MCDS_AUTH_USER=alice MCDS_AUTH_PASSWORD=s3cret \
                $node --test --test-reporter=tap {*}$files] status out
            set counts [node_tap_counts $out]
            if {$status ne "0"} { fail "node --test exited $status:\n$out" }
            if {![dict exists $counts pass] || [dict get $counts pass] == 0} { fail "node --test ran no test:\n$out" }
            foreach line [regexp -all -inline -line {^.*# SKIP.*$} $out] { puts "    node: [string trim $line]" }
            verbose $out
            list fail [dict get $counts fail] cancelled [dict get $counts cancelled] \
                all_ran [expr {[dict get $counts pass] + [dict get $counts skipped] == [dict get $counts tests]}]
        } {fail 0 cancelled 0 all_ran 1}
    }
  }
}

# TLS: a throwaway CA and a server certificate for 127.0.0.1 (openssl's
# command line); skipped, saying why, when mcds-server has no TLS.
proc node_tls_certs {dir} {
    foreach cmd [list \
        [list req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout $dir/ca.key -out $dir/ca.crt -days 2 -subj /CN=mcds-node-ca] \
        [list req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout $dir/server.key -out $dir/server.csr -subj /CN=localhost] \
        [list x509 -req -in $dir/server.csr -CA $dir/ca.crt -CAkey $dir/ca.key \
            -CAcreateserial -out $dir/server.crt -days 2 -extfile $dir/server.ext]] {
        lassign [run_cmd 60 openssl {*}$cmd] status out
        if {$status ne "0"} { return "openssl $cmd: $out" }
    }
    return {}
}

set ::node_tls [tmpdir nodetls]
set f [open $::node_tls/server.ext w]; puts $f "subjectAltName=IP:127.0.0.1,DNS:localhost"; close $f
set ::node_tls_why {}
if {[auto_execok openssl] eq {}} {
    set ::node_tls_why "the openssl command is not installed (apt-get install openssl)"
} else {
    set ::node_tls_why [node_tls_certs $::node_tls]
}

start_server [list tags {tls clients node mcds-only} args [list -Z -o \
        ssl_chain_cert=$::node_tls/server.crt,ssl_key=$::node_tls/server.key]] {
    test {contrib/node: over TLS, the server's certificate checked} {
        if {$::node_tls_why ne {}} { skip $::node_tls_why }
        set node [node_binary]
        lassign [run_cmd 120 env MCDS_TLS_ADDR=127.0.0.1:[srv port] MCDS_TLS_CA=$::node_tls/ca.crt \
            $node --test --test-reporter=tap [file join $::node_dir test tls.test.js]] status out
        set counts [node_tap_counts $out]
        if {$status ne "0"} { fail "node --test exited $status:\n$out" }
        verbose $out
        list pass [dict get $counts pass] fail [dict get $counts fail]
    } {pass 2 fail 0}
}

test {contrib/node: package.json's version is configure.ac's} {
    set f [open [file join [srcdir] configure.ac]]; set ac [read $f]; close $f
    set f [open [file join $::node_dir package.json]]; set pkg [read $f]; close $f
    regexp {AC_INIT\(\[mcds\], \[([^\]]+)\]} $ac -> want
    regexp {"version": "([^"]+)"} $pkg -> got
    list $got [expr {$got eq $want}]
} {0.1.0 1}

test {contrib/node: npm pack makes the package (offline), with what it needs and no tests} {
    set npm [auto_execok npm]
    if {$npm eq {}} { skip "npm is not installed (apt-get install npm)" }
    set dir [tmpdir npmpack]
    lassign [run_cmd 120 env npm_config_cache=[file join $dir cache] npm_config_offline=true \
        npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false \
        {*}$npm pack --pack-destination $dir $::node_dir] status out
    if {$status ne "0"} { fail "npm pack exited $status:\n$out" }
    set tgz [glob -nocomplain [file join $dir mcds-*.tgz]]
    if {[llength $tgz] != 1} { fail "npm pack made [list $tgz]:\n$out" }
    lassign [run_cmd 30 tar tzf [lindex $tgz 0]] status listing
    if {$status ne "0"} { fail "tar tzf: $listing" }
    set files [lsort [split [string trim $listing] \n]]
    set want {}
    foreach f {package.json index.js index.d.ts README.md} { lappend want package/$f }
    foreach f [glob -directory $::node_dir -tails lib/*.js lib/commands/*.js] { lappend want package/$f }
    assert_equal $files [lsort $want]
    file tail [lindex $tgz 0]
} {mcds-0.1.0.tgz}
