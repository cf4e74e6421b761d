# stats detail on|off|dump (memcached's per-prefix counters) and mcds's
# help verb. The untagged tests' replies were taken from memcached 1.6.18
# (this file passes against it).

start_server {tags {stats}} {
    set fd [mc_connect]

    test {stats detail counts gets, hits, sets and deletes per prefix, newest first} {
        mc_exchange $fd "stats detail on\r\nset a:b 0 0 1\r\nx\r\nget a:b\r\nget c:d\r\ndelete a:b\r\nset nodelim 0 0 1\r\nx\r\nstats detail dump\r\n"
    } [string cat "OK\r\nSTORED\r\nVALUE a:b 0 1\r\nx\r\nEND\r\nEND\r\nDELETED\r\nSTORED\r\n" \
           "PREFIX c get 1 hit 0 set 0 del 0\r\nPREFIX a get 1 hit 1 set 1 del 1\r\nEND\r\n"]

    test {stats detail off stops counting and keeps what was counted} {
        mc_exchange $fd "stats detail off\r\nget a:x\r\nstats detail dump\r\n"
    } "OK\r\nEND\r\nPREFIX c get 1 hit 0 set 0 del 0\r\nPREFIX a get 1 hit 1 set 1 del 1\r\nEND\r\n"

    test {stats reset clears the prefixes} {
        mc_exchange $fd "stats reset\r\nstats detail dump\r\n"
    } "RESET\r\nEND\r\n"

    test {stats detail without on, off or dump} {
        mc_exchange $fd "stats detail\r\nstats detail foo\r\n"
    } [string repeat "CLIENT_ERROR usage: stats detail on|off|dump\r\n" 2]

    test {stats settings shows detail_enabled} {
        mc_cmd $fd "stats detail on"
        set on [dict get [mc_stats $fd settings] detail_enabled]
        mc_cmd $fd "stats detail off"
        list $on [dict get [mc_stats $fd settings] detail_enabled]
    } {yes no}
}

start_server {tags {stats mcds-only}} {
    set fd [mc_connect]

    test {stats detail keeps at most 1024 prefixes} {
        mc_cmd $fd "stats detail on"
        set batch {}
        for {set i 0} {$i < 1100} {incr i} { append batch "get p$i:k\r\n" }
        mc_exchange $fd $batch
        mc_send $fd "stats detail dump\r\n"
        set n 0
        while {[mc_readline $fd] ne "END"} { incr n }
        set n
    } 1024

    test {help lists every verb with one line, then END} {
        mc_send $fd "help\r\n"
        set verbs {}
        while {[set line [mc_readline $fd]] ne "END"} {
            if {![regexp {^HELP (\S+) \S} $line -> v]} { fail "bad help line '$line'" }
            lappend verbs $v
        }
        list [expr {[lsearch $verbs qpop] >= 0}] [expr {[lsearch $verbs get] >= 0}] \
            [expr {[lsearch $verbs help] >= 0}]
    } {1 1 1}

    test {help <verb> answers that verb's line; an unknown one is refused} {
        list [mc_exchange $fd "help qack\r\n"] [mc_exchange $fd "help nope\r\n"] [mc_exchange $fd "help a b\r\n"]
    } [list "HELP qack acknowledge popped messages: qack <q> <id> \[<id>...\]\r\nEND\r\n" "CLIENT_ERROR unknown verb\r\n" "ERROR\r\n"]
}
