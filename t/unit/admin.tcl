# Administrative verbs: version, verbosity, quit, shutdown, cache_memlimit.

start_server {tags {admin}} {
    set fd [mc_connect]

    test {version answers VERSION 1.6.18} {
        mc_cmd $fd version
    } {VERSION 1.6.18}

    test {version ignores extra tokens} {
        mc_send $fd "version x\r\nversion noreply\r\nget nokey\r\n"
        mc_expect $fd "VERSION 1.6.18\r\nVERSION 1.6.18\r\nEND\r\n"
    }

    test {the version number is three parts of at most 255 each (libmemcached)} {
        set v [lindex [mc_cmd $fd version] 1]
        assert_true {[regexp {^(\d+)\.(\d+)\.(\d+)$} $v -> a b c] && $a <= 255 && $b <= 255 && $c <= 255} "version $v"
    }

    test {verbosity with a level answers OK} {
        mc_exchange $fd "verbosity 1\r\nverbosity 0\r\n"
    } "OK\r\nOK\r\n"

    test {verbosity without a level is ERROR} {
        mc_exchange $fd "verbosity\r\n"
    } "ERROR\r\n"

    test {verbosity with a bad level is CLIENT_ERROR} {
        mc_exchange $fd "verbosity abc\r\nverbosity -1\r\n"
    } "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\n"

    test {verbosity noreply is silent} {
        mc_exchange $fd "verbosity 1 noreply\r\nverbosity 0 noreply\r\n"
    } ""

    test {verbosity ignores a third token that is not noreply} {
        mc_exchange $fd "verbosity 0 2\r\n"
    } "OK\r\n"

    test {verbosity with too many tokens is ERROR} {
        mc_exchange $fd "verbosity 0 noreply extra\r\n"
    } "ERROR\r\n"

    test {verbosity noreply alone is silent (bad level, error suppressed)} {
        mc_exchange $fd "verbosity noreply\r\n"
    } ""

    test {a huge verbosity level is accepted} {
        mc_exchange $fd "verbosity 4294967295\r\nverbosity 0\r\n"
    } "OK\r\nOK\r\n"

    test {verbosity shows in stats settings} {
        mc_cmd $fd "verbosity 1"
        set v [dict get [mc_stats $fd settings] verbosity]
        mc_cmd $fd "verbosity 0"
        list $v [dict get [mc_stats $fd settings] verbosity]
    } {1 0}

    test {quit closes the connection without a reply} {
        set c [mc_connect]
        mc_send $c "quit\r\n"
        mc_read_until_close $c
    } {}

    test {quit with extra tokens also closes} {
        set c [mc_connect]
        mc_send $c "quit now please\r\n"
        mc_read_until_close $c
    } {}

    test {commands before quit in a pipeline are answered, those after are not} {
        set c [mc_connect]
        mc_send $c "set q 0 0 1\r\nx\r\nget q\r\nquit\r\nget q\r\n"
        mc_read_until_close $c
    } "STORED\r\nVALUE q 0 1\r\nx\r\nEND\r\n"

    test {quit lowers curr_connections} {
        # Connections closed by earlier tests may still be on their way out.
        set before -1
        for {set i 0} {$i < 50} {incr i} {
            set now [mc_stat $fd curr_connections]
            if {$now == $before} break
            set before $now
            after 100
        }
        set c [mc_connect]
        mc_cmd $c version
        assert_equal [mc_stat $fd curr_connections] [expr {$before + 1}]
        mc_send $c "quit\r\n"
        mc_read_until_close $c
        wait_for {[mc_stat $fd curr_connections] == $before}
    }

    test {QUIT in capitals is not quit} {
        mc_exchange $fd "QUIT\r\n"
    } "ERROR\r\n"

    test {shutdown without -A is refused} {
        mc_exchange $fd "shutdown\r\nshutdown graceful\r\nshutdown foo\r\n"
    } "ERROR: shutdown not enabled\r\nERROR: shutdown not enabled\r\nERROR: shutdown not enabled\r\n"

    test {cache_memlimit changes limit_maxbytes} {
        assert_equal [mc_cmd $fd "cache_memlimit 100"] OK
        assert_equal [mc_stat $fd limit_maxbytes] 104857600
        assert_equal [mc_cmd $fd "cache_memlimit 64"] OK
        mc_stat $fd limit_maxbytes
    } 67108864

    test {cache_memlimit below 8 MB is refused} {
        mc_exchange $fd "cache_memlimit 7\r\ncache_memlimit 0\r\n"
    } "MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\nMEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n"

    test {cache_memlimit with a bad or missing size is ERROR} {
        mc_exchange $fd "cache_memlimit\r\ncache_memlimit abc\r\ncache_memlimit -1\r\ncache_memlimit 64 x y\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\n"

    test {cache_memlimit noreply is silent} {
        mc_exchange $fd "cache_memlimit 64 noreply\r\n"
    } ""
}

start_server {tags {admin} args {-A}} {
    test {shutdown with a bad mode is CLIENT_ERROR invalid shutdown mode} {
        set fd [mc_connect]
        mc_exchange $fd "shutdown foo\r\nshutdown graceful now\r\nshutdown noreply\r\n"
    } "CLIENT_ERROR invalid shutdown mode\r\nCLIENT_ERROR invalid shutdown mode\r\nCLIENT_ERROR invalid shutdown mode\r\n"

    test {shutdown with -A closes the connection and the server exits 0} {
        set fd [mc_connect]
        set other [mc_connect]
        mc_cmd $other version
        mc_send $fd "shutdown\r\n"
        assert_equal [mc_read_until_close $fd] {}
        assert_equal [wait_server_exit] 0
        server_valgrind_check
        # Other clients are disconnected too.
        mc_read_until_close $other
    } {}
}

start_server {tags {admin} args {-A}} {
    test {shutdown graceful with -A closes the connection and the server exits 0} {
        set fd [mc_connect]
        mc_send $fd "shutdown graceful\r\n"
        assert_equal [mc_read_until_close $fd] {}
        assert_equal [wait_server_exit] 0
        server_valgrind_check
    }
}
