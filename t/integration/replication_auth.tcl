# Replication to a primary started with -Y (doc/replication.md,
# "Set-up"): a replica with --primary-auth-file logs in as the file's
# first user:password line and follows; one with a wrong password or
# none is refused and never receives a record; with --admin-users the
# user must be an admin (psync is an admin verb).

source [file join [srcdir] t support repl.tcl]

# A file of lines in a fresh directory.
proc ra_file {name lines} {
    set path [file join [tmpdir ra_$name] $name]
    set f [open $path w]
    puts -nonewline $f [join $lines "\n"]
    close $f
    return $path
}

# An authenticated connection to the server at level.
proc ra_connect {level user pass} {
    set fd [repl_connect $level]
    set cred "$user $pass"
    mc_send $fd "set auth 0 0 [string length $cred]\r\n$cred\r\n"
    assert_equal [mc_readline $fd] STORED
    return $fd
}

set ::users [ra_file users {admin:adm1n alice:s3cret}]
set ::good [ra_file good {admin:adm1n}]
set ::wrong [ra_file wrong {admin:nope}]
set ::plain [ra_file plain {alice:s3cret}]

set dp [tmpdir rauth_p]
start_server [list tags {repl auth mcds-only} args [list -Y $::users --admin-users admin --data-dir $dp --persist-items]] {
    set pfd [ra_connect 0 admin adm1n]
    set ::pp [srv port]
    assert_equal [mc_set $pfd k v] STORED

    start_server [list tags {repl} args [list --data-dir [tmpdir rauth_r1] --persist-items \
            --replicaof 127.0.0.1:$::pp --primary-auth-file $::good]] {
        test {replication auth: a replica with the primary's credentials follows it} {
            set rfd [repl_connect_caught_up 0 $pfd]
            assert_equal [mc_set $pfd k2 v2] STORED
            set rfd [repl_connect_caught_up 0 $pfd]
            list [mc_get $rfd k] [mc_get $rfd k2] [mc_stat $pfd repl_replicas]
        } {v v2 1}
    }

    foreach {name file why} [list wrong $::wrong "a wrong password" plain $::plain "a user who is not an admin" \
                                 none {} "no credentials"] {
        set args [list --data-dir [tmpdir rauth_$name] --persist-items --replicaof 127.0.0.1:$::pp]
        if {$file ne {}} { lappend args --primary-auth-file $file }
        start_server [list tags {repl} args $args] {
            test "replication auth: a replica with $why is refused and gets nothing" {
                set rfd [repl_connect 0]
                after 1500
                list [expr {[mc_stat $rfd repl_link] ne "up"}] [mc_stat $rfd repl_position] [mc_get $rfd k] \
                    [mc_stat $pfd repl_replicas]
            } {1 0 {} 0}
        }
    }
}
