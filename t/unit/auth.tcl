# Authentication with -Y/--auth-file (doc/protocol.md, "Authentication"):
# memcached's text-protocol exchange (a set whose data is "<user>
# <password>"), SASL PLAIN over the binary protocol, the same credentials
# for both; nothing else is served before it, every failure is answered
# as memcached 1.6.18 answers it, a too-long token is skipped whole, and
# SIGHUP reloads the file.

proc auth_file {lines} {
    set path [file join [tmpdir auth] users]
    set f [open $path w]
    puts -nonewline $f [join $lines "\n"]
    close $f
    return $path
}

# Sends bytes and reads n reply lines (before authentication there is no
# version fence: every line but the auth set is refused).
proc auth_lines {fd bytes n} {
    mc_send $fd $bytes
    set out {}
    for {set i 0} {$i < $n} {incr i} { append out [mc_readline $fd] "\r\n" }
    return $out
}

# A SASL PLAIN message: authzid NUL user NUL password.
proc sasl_plain {user pass {authzid {}}} { return "$authzid\0$user\0$pass" }

set ::authf [auth_file {alice:s3cret bob:pa:ss:word {} carol:x}]

start_server [list tags {auth mcds-only} args [list -Y $::authf]] {
    test {auth: before authenticating every command is CLIENT_ERROR unauthenticated} {
        set fd [mc_connect]
        auth_lines $fd "get k\r\nversion\r\nstats\r\nqpush q 0 0 1\r\nflush_all\r\nmg k v\r\nnosuchverb\r\n" 7
    } [string repeat "CLIENT_ERROR unauthenticated\r\n" 7]

    test {auth: a wrong password, an unknown user: authentication failure, still unauthenticated} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 12\r\nalice secret\r\nset a 0 0 9\r\nnobody xx\r\nget k\r\n" 3
    } "CLIENT_ERROR authentication failure\r\nCLIENT_ERROR authentication failure\r\nCLIENT_ERROR unauthenticated\r\n"

    test {auth: malformed tokens: one word, no CRLF after the data} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 5\r\nalice\r\nset a 0 0 12\r\nalice s3cretXY" 2
    } "CLIENT_ERROR bad authentication token format\r\nCLIENT_ERROR bad command line termination\r\n"

    test {auth: a token longer than 1024 bytes is refused and its data skipped whole} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 5000\r\n[string repeat x 5000]\r\nversion\r\n" 2
    } "CLIENT_ERROR bad authentication token format\r\nCLIENT_ERROR unauthenticated\r\n"

    test {auth: the right set authenticates (STORED); then everything works, pipelined} {
        set fd [mc_connect]
        mc_exchange $fd "set anykey 5 0 12\r\nalice s3cret\r\nset k 0 0 2\r\nhi\r\nget k\r\nqpush q 0 0 1\r\nx\r\n"
    } "STORED\r\nSTORED\r\nVALUE k 0 2\r\nhi\r\nEND\r\nPUSHED 1\r\n"

    test {auth: the auth set stores nothing; a password may hold ':'} {
        set fd [mc_connect]
        assert_equal [mc_exchange $fd "set anykey 0 0 14\r\nbob pa:ss:word\r\n"] "STORED\r\n"
        mc_get $fd anykey
    } {}

    test {auth: a token arriving in pieces is waited for} {
        set fd [mc_connect]
        mc_send $fd "set a 0 0 1"
        after 50
        mc_send $fd "2\r\nalice s3"
        after 50
        mc_send $fd "cret\r\nversion\r\n"
        list [mc_readline $fd] [mc_readline $fd]
    } {STORED {VERSION 1.6.18}}

    test {auth: binary before authenticating: VERSION is served, anything else is refused and closes} {
        set fd [mc_connect]
        set v [bin_show [bin_cmd $fd [bin_pkt VERSION]]]
        set r [bin_show [bin_cmd $fd [bin_pkt GET -key k]]]
        list $v $r [mc_is_closed $fd]
    } {{VERSION OK 1.6.18} {GET AUTH_ERROR {Auth failure.}} 1}

    test {auth: binary SASL: the mechanism list is PLAIN} {
        bin_show [bin_cmd [mc_connect] [bin_pkt SASL_LIST_MECHS]]
    } {SASL_LIST_MECHS OK PLAIN}

    test {auth: binary SASL PLAIN: a wrong password fails and the connection stays open} {
        set fd [mc_connect]
        list [bin_show [bin_cmd $fd [bin_pkt SASL_AUTH -key PLAIN -value [sasl_plain alice nope]]]] \
            [bin_show [bin_cmd $fd [bin_pkt SASL_AUTH -key CRAM-MD5 -value x]]] \
            [bin_show [bin_cmd $fd [bin_pkt SASL_STEP -key PLAIN -value [sasl_plain alice s3cret]]]] \
            [bin_show [bin_cmd $fd [bin_pkt SASL_AUTH -key PLAIN -value "alice"]]] \
            [bin_show [bin_cmd $fd [bin_pkt VERSION]]]
    } {{SASL_AUTH AUTH_ERROR {Auth failure.}} {SASL_AUTH AUTH_ERROR {Auth failure.}} {SASL_STEP AUTH_ERROR {Auth failure.}} {SASL_AUTH AUTH_ERROR {Auth failure.}} {VERSION OK 1.6.18}}

    test {auth: binary SASL PLAIN with the file's credentials (authzid ignored), then commands work} {
        set fd [mc_connect]
        set a [bin_show [bin_cmd $fd [bin_pkt SASL_AUTH -key PLAIN -value [sasl_plain carol x admin]]]]
        bin_set $fd bk bv
        list $a [bin_show [bin_cmd $fd [bin_pkt GET -key bk]]]
    } {{SASL_AUTH OK Authenticated} {GET OK flags=0 bv}}

    test {auth: stats counts attempts and failures; stats settings says auth is on} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 12\r\nalice s3cret\r\n" 1
        set before [mc_stats $fd]
        auth_lines [mc_connect] "set a 0 0 6\r\nbob no\r\nset a 0 0 12\r\nalice s3cret\r\n" 2
        set after [mc_stats $fd]
        set st [mc_stats $fd settings]
        list [expr {[dict get $after auth_cmds] - [dict get $before auth_cmds]}] \
            [expr {[dict get $after auth_errors] - [dict get $before auth_errors]}] \
            [dict get $st auth_enabled_ascii] [dict get $st auth_enabled_sasl]
    } {2 1 yes yes}

    test {auth: the password is never logged} {
        string match {*s3cret*} [read_file [srv stderr]]
    } 0

    test {auth: SIGHUP reloads the file: a new user works, a removed one no longer does} {
        set f [open $::authf w]
        puts $f "dave:n3w"
        close $f
        exec kill -HUP [srv pid]
        set fd [mc_connect]
        wait_for {[auth_lines [mc_connect] "set a 0 0 8\r\ndave n3w\r\n" 1] eq "STORED\r\n"}
        auth_lines [mc_connect] "set a 0 0 12\r\nalice s3cret\r\n" 1
    } "CLIENT_ERROR authentication failure\r\n"

    test {auth: a reload that fails keeps the credentials loaded before} {
        set f [open $::authf w]
        puts $f "no colon here"
        close $f
        exec kill -HUP [srv pid]
        wait_for {[string match "*not reloaded*" [read_file [srv stderr]]]}
        auth_lines [mc_connect] "set a 0 0 8\r\ndave n3w\r\n" 1
    } "STORED\r\n"
}

# Failed logins are bounded (doc/protocol.md, "Authentication"): a
# connection that fails 5 times is closed; an address that fails 10 times
# is refused for a second, then for twice as long after each further
# failure; a success clears it; the log gets a line a second at most.
set ::thrf [auth_file {alice:s3cret}]
start_server [list tags {auth mcds-only} args [list -Y $::thrf --debug -v]] {
    set adm [mc_connect]
    auth_lines $adm "set a 0 0 12\r\nalice s3cret\r\n" 1

    test {a connection that fails 5 times is answered 5 times, then closed} {
        set fd [mc_connect]
        mc_send $fd [string repeat "set a 0 0 11\r\nalice wrong\r\n" 20]
        set r [mc_read_until_close $fd]
        mc_close $fd
        set r
    } [string repeat "CLIENT_ERROR authentication failure\r\n" 5]

    test {10 failures from one address: the right password is refused until the lock-out ends} {
        set fd [mc_connect]
        mc_send $fd [string repeat "set a 0 0 11\r\nalice wrong\r\n" 5]
        mc_read_until_close $fd
        mc_close $fd
        set fd [mc_connect]
        set r [auth_lines $fd "set a 0 0 12\r\nalice s3cret\r\n" 1]
        set s [mc_stats $adm]
        list $r [expr {[dict get $s auth_throttled] >= 1}] [dict get $s auth_locked_addresses]
    } [list "CLIENT_ERROR authentication failure\r\n" 1 1]

    test {once the lock-out has passed the right password works, and clears the address} {
        assert_equal [mc_exchange $adm "debugtime 2\r\n"] "OK\r\n"
        set fd [mc_connect]
        list [auth_lines $fd "set a 0 0 12\r\nalice s3cret\r\n" 1] [mc_stat $adm auth_locked_addresses]
    } [list "STORED\r\n" 0]

    test {the log: at most a line a second about failures, with how many it left out} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 11\r\nalice wrong\r\n" 1
        set lines [regexp -all -inline {authentication failed for user alice from [^\n]*} [read_file [srv stderr]]]
        list [expr {[llength $lines] <= 4}] [regexp {\((\d+) more failure\(s\) not logged\)} [lindex $lines end] -> n] \
            [expr {$n >= 8}]
    } {1 1 1}

    test {binary SASL: a connection that fails 5 times is closed after the 5th Auth failure} {
        set fd [mc_connect]
        mc_send $fd [string repeat [bin_pkt SASL_AUTH -key PLAIN -value [sasl_plain alice nope]] 8]
        set r [mc_read_until_close $fd]
        mc_close $fd
        list [string length $r] [regexp -all {Auth failure\.} $r]
    } {185 5}
}

set ::admf [auth_file {root:r00t app:4pp}]

start_server [list tags {auth mcds-only} args [list -Y $::admf --admin-users root,ops -A --debug]] {
    test {--admin-users: another user's admin commands are refused (noreply silences the refusal); data commands work} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 7\r\napp 4pp\r\n" 1
        mc_set $fd k v
        list [mc_exchange $fd "flush_all\r\nflush_all noreply\r\nverbosity 1\r\ncache_memlimit 100\r\nsnapshot\r\ndebugtime 10\r\nshutdown\r\n"] \
            [mc_get $fd k]
    } [list [string repeat "CLIENT_ERROR admin commands are for --admin-users only\r\n" 6] v]

    # What shows other clients' keys or traffic, or tunes the server for
    # everyone, is for admins too; plain stats and kscan (a data verb)
    # are for every user.
    test {--admin-users: dumps, watch, stats conns/cachedump/detail/reset and the tuning verbs are admin commands} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 7\r\napp 4pp\r\n" 1
        set r [mc_exchange $fd [string cat "lru_crawler metadump all\r\nlru_crawler crawl all\r\nwatch\r\n" \
                                    "stats conns\r\nstats cachedump 1 0\r\nstats detail dump\r\nstats detail on\r\n" \
                                    "stats reset\r\nslabs automove 1\r\nlru tune mode=1\r\n"]]
        assert_equal $r [string repeat "CLIENT_ERROR admin commands are for --admin-users only\r\n" 10]
        set s [mc_exchange $fd "stats\r\n"]
        list [string match "STAT pid *END\r\n" $s] [k_all $fd count=10000 match=k]
    } {1 {{k string -1}}}

    test {--admin-users: a listed user may dump and watch} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 9\r\nroot r00t\r\n" 1
        set r [mc_exchange $fd "lru_crawler metadump all\r\nstats detail dump\r\n"]
        set w [mc_connect]
        auth_lines $w "set a 0 0 9\r\nroot r00t\r\n" 1
        mc_send $w "watch\r\n"
        list [string match "key=k *END\r\n*" $r] [mc_readline $w]
    } {1 OK}

    test {--admin-users: binary flush by another user is Auth failure, and nothing is flushed} {
        set fd [mc_connect]
        bin_cmd $fd [bin_pkt SASL_AUTH -key PLAIN -value [sasl_plain app 4pp]]
        list [bin_show [bin_cmd $fd [bin_pkt FLUSH]]] [bin_show [bin_cmd $fd [bin_pkt GET -key k]]]
    } {{FLUSH AUTH_ERROR {Auth failure.}} {GET OK flags=0 v}}

    test {--admin-users: a listed user may; cache_memlimit's change is logged} {
        set fd [mc_connect]
        auth_lines $fd "set a 0 0 9\r\nroot r00t\r\n" 1
        assert_equal [mc_exchange $fd "cache_memlimit 100\r\nverbosity 0\r\nflush_all\r\n"] "OK\r\nOK\r\nOK\r\n"
        list [mc_get $fd k] [string match "*memory limit goes from 64 MB to 100 MB*" [read_file [srv stderr]]]
    } {{} 1}
}

tags {auth mcds-only} {
    test {--admin-users without -Y stops start-up} {
        lassign [run_server_cmd -p 0 --admin-users root] status out
        list [expr {$status != 0}] [string match "*--admin-users needs -Y*" $out]
    } {1 1}
}

start_server {tags {auth}} {
    test {auth: without -Y, SASL is an unknown command and text needs nothing} {
        set fd [mc_connect]
        list [bin_show [bin_cmd $fd [bin_pkt SASL_LIST_MECHS]]] [mc_cmd [mc_connect] version]
    } {{SASL_LIST_MECHS UNKNOWN_COMMAND {Unknown command}} {VERSION 1.6.18}}
}

tags {auth mcds-only} {
    test {auth: a missing auth file stops start-up} {
        lassign [run_server_cmd -p 0 -Y /nonexistent/users] status out
        list [expr {$status != 0}] [string match "*auth file /nonexistent/users*" $out]
    } {1 1}

    test {auth: a line without a colon stops start-up, naming the line} {
        lassign [run_server_cmd -p 0 -Y [auth_file {alice:x nocolon}]] status out
        list [expr {$status != 0}] [string match "*line 2 is not*" $out]
    } {1 1}
}
