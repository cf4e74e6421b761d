# memcached's operator verbs: stats cachedump, lru_crawler (metadump, crawl,
# enable, disable, sleep, tocrawl), slabs, lru; and the tools that use them
# (memcdump, memcached-tool keys|dump|display|stats|settings). Replies of
# the untagged tests were taken from memcached 1.6.18 (this file passes
# against it); mcds-only tests are where mcds has no such part.

# The lines of a dump with the values that vary (times, CAS, sizes, slab
# class) blanked, sorted.
proc op_blank {text} {
    regsub -all {(exp|la|cas|size|cls)=\d+} $text {\1=N} text
    regsub -all {; \d+ s\]} $text {; N s]} text
    return [lsort [split [string trimright $text "\n"] "\n"]]
}

# Reads a dump's lines up to END.
proc op_read_dump {fd} {
    flush $fd
    set lines {}
    while {[gets $fd line] >= 0} {
        set line [string trimright $line "\r"]
        if {$line eq "END"} break
        lappend lines $line
    }
    return $lines
}

# A metadump on a connection of its own, read to its END or its error
# line (memcached serves nothing else on a connection after a metadump).
proc op_metadump {arg} {
    set fd [mc_connect]
    puts -nonewline $fd "lru_crawler metadump $arg\r\n"
    flush $fd
    set lines {}
    while {[gets $fd line] >= 0} {
        set line [string trimright $line "\r"]
        lappend lines $line
        if {![string match key=* $line]} break
    }
    close $fd
    return $lines
}

proc op_tool {name} {
    set bin [auto_execok $name]
    if {$bin eq {}} { skip "$name is not installed" }
    return $bin
}

proc memcached_tool {args} {
    set script /usr/share/memcached/scripts/memcached-tool
    if {![file exists $script]} { skip "memcached-tool is not installed (apt-get install memcached)" }
    lassign [run_cmd 30 perl $script {*}$args] status out
    if {$status ne "0"} { fail "memcached-tool [join $args] exited $status: $out" }
    # its progress lines go to stderr, merged here
    regsub -all -line {^Dumping memcache (contents|keys)\n} $out {} out
    return $out
}

start_server {tags {operator}} {
    set fd [mc_connect]
    set set_at [clock seconds]
    mc_exchange $fd "set foo 0 0 3\r\nbar\r\nset b%r 5 100 2\r\nhi\r\nset a~b.c_d-e!* 0 0 1\r\nx\r\n"

    test {lru_crawler metadump all: one line per key, key percent-encoded} {
        op_blank [join [lrange [op_metadump all] 0 end-1] "\n"]
    } [list "key=a~b.c_d-e%21%2A exp=-1 la=N cas=N fetch=no cls=N size=N" \
           "key=b%25r exp=N la=N cas=N fetch=no cls=N size=N" \
           "key=foo exp=-1 la=N cas=N fetch=no cls=N size=N"]

    test {metadump lines end in a bare newline, END in CRLF} {
        set fd2 [mc_connect]
        puts -nonewline $fd2 "lru_crawler metadump hash\r\n"
        flush $fd2
        set all {}
        while {![string match "*END\r\n" $all]} { append all [read $fd2 1] }
        close $fd2
        list [regexp {\nkey=} $all] [regexp {\r\nkey=} $all] [string match "*\nEND\r\n" $all]
    } {1 0 1}

    # memcached refuses a metadump pipelined after other commands: one each.
    test {metadump: a class list with 1 dumps, other classes are empty, bad ones BADCLASS} {
        set r [llength [op_metadump 1,2]]
        foreach arg {2 0 1,x 64} { lappend r [op_metadump $arg] }
        set r
    } [list 4 END {{BADCLASS invalid class id}} {{BADCLASS invalid class id}} {{BADCLASS invalid class id}}]

    test {metadump without a class or with one too many tokens is ERROR} {
        list [op_metadump ""] [op_metadump "all 5"]
    } {ERROR ERROR}

    test {stats cachedump 1 0 lists every item with its size and expiry} {
        mc_send $fd "stats cachedump 1 0\r\n"
        op_blank [join [op_read_dump $fd] "\n"]
    } [list {ITEM a~b.c_d-e!* [1 b; N s]} {ITEM b%r [2 b; N s]} {ITEM foo [3 b; N s]}]

    # memcached 1.6.18's time here is off by its start-up offset (as in me).
    test {stats cachedump: 0 s for an item without a TTL, a Unix time otherwise} {
        mc_send $fd "stats cachedump 1 0\r\n"
        set lines [op_read_dump $fd]
        # the TTL ends 100 s after the set, which came a while ago (long
        # under valgrind): between then and now, a second of clock either side
        list [lsearch -inline $lines {ITEM foo *}] [regexp {ITEM b%r \[2 b; (\d+) s\]} $lines -> t] \
            [expr {$t >= $set_at + 100 - 1 && $t <= [clock seconds] + 100 + 1}]
    } [list {ITEM foo [3 b; 0 s]} 1 1] {mcds-only}

    test {stats cachedump: errors and other classes as memcached} {
        mc_exchange $fd "stats cachedump\r\nstats cachedump 1\r\nstats cachedump x 1\r\nstats cachedump 1 x\r\nstats cachedump 2 0\r\nstats cachedump 63 0\r\nstats cachedump 64 0\r\n"
    } [string cat "CLIENT_ERROR bad command line\r\nCLIENT_ERROR bad command line\r\n" \
           "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\n" \
           "END\r\nEND\r\nCLIENT_ERROR Illegal slab id\r\n"]

    test {lru_crawler crawl, sleep and tocrawl} {
        mc_exchange $fd [string cat "lru_crawler crawl 1\r\nlru_crawler crawl x\r\n" \
            "lru_crawler crawl\r\nlru_crawler crawl 1 noreply\r\nlru_crawler sleep 100\r\n" \
            "lru_crawler sleep x\r\nlru_crawler sleep 2000000\r\nlru_crawler tocrawl 10\r\n" \
            "lru_crawler tocrawl x\r\nlru_crawler foo\r\nlru_crawler\r\n"]
    } [string cat "OK\r\nBADCLASS invalid class id\r\nERROR\r\nERROR\r\nOK\r\n" \
           "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR sleep must be one second or less\r\nOK\r\n" \
           "CLIENT_ERROR bad command line format\r\nERROR\r\nERROR\r\n"]

    test {lru_crawler enable on a running crawler fails; disable twice is OK} {
        mc_exchange $fd "lru_crawler enable\r\nlru_crawler disable\r\nlru_crawler disable\r\n"
    } "ERROR failed to start lru crawler thread\r\nOK\r\nOK\r\n"

    # memcached's stopping thread may still refuse the enable that follows.
    test {a disabled crawler refuses crawl and metadump; enable brings it back} {
        list [op_metadump all] [mc_exchange $fd "lru_crawler crawl 1\r\nlru_crawler enable\r\nlru_crawler crawl 1\r\n"]
    } [list {{CLIENT_ERROR lru crawler disabled}} "CLIENT_ERROR lru crawler disabled\r\nOK\r\nOK\r\n"] {mcds-only}

    test {slabs automove: 0 1 2 and ratio, checked} {
        mc_exchange $fd [string cat "slabs automove 0\r\nslabs automove 2\r\nslabs automove 3\r\nslabs automove x\r\n" \
            "slabs automove\r\nslabs automove ratio 0.5\r\nslabs automove ratio\r\nslabs automove ratio x y\r\n" \
            "slabs automove 1 noreply\r\nslabs automove 3 noreply\r\nslabs foo\r\nslabs\r\nslabs reassign 1\r\n"]
    } [string cat "OK\r\nOK\r\nERROR\r\nCLIENT_ERROR bad command line format\r\nERROR\r\nOK\r\nERROR\r\nERROR\r\n" \
           "ERROR\r\nERROR\r\nERROR\r\n"]

    test {lru tune is checked; lru with another word or no word is ERROR} {
        mc_exchange $fd "lru tune 10 20 0.1 2.0\r\nlru tune 90 20 0.1 2.0\r\nlru tune 10 20 0 2\r\nlru tune x\r\nlru\r\nlru foo\r\nlru mode\r\nlru tune 10 20 0.1 2.0 noreply\r\n"
    } [string cat "OK\r\nERROR hot and warm pcts must not exceed 80\r\n" \
           "ERROR hot/warm age factors must be greater than 0\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\n"]

    test {slabs reassign: no slab pages to move} {
        mc_exchange $fd "slabs reassign 1 2\r\n"
    } "CLIENT_ERROR slab reassignment disabled\r\n" {mcds-only}

    test {lru mode and temp_ttl: ERROR, as memcached without its LRU maintainer} {
        mc_exchange $fd "lru mode flat\r\nlru mode segmented\r\nlru temp_ttl 10\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\n" {mcds-only}
}

start_server {tags {operator mcds-only}} {
    set fd [mc_connect]

    test {dumps leave queues out and never pop them} {
        mc_exchange $fd "set plain 0 0 1\r\nx\r\nqpush jobs 0 0 1\r\nm\r\n"
        mc_send $fd "lru_crawler metadump all\r\n"
        set meta [op_read_dump $fd]
        mc_send $fd "stats cachedump 1 0\r\n"
        set cache [op_read_dump $fd]
        list [llength $meta] [llength $cache] [string match *plain* $meta] [mc_stat $fd queue_ready]
    } {1 1 1 1}

    test {a dump larger than the output buffer is streamed whole, each key once} {
        set v [string repeat v 10]
        set batch {}
        for {set i 0} {$i < 20000} {incr i} {
            append batch "set k$i 0 0 10 noreply\r\n$v\r\n"
        }
        mc_send $fd $batch
        mc_exchange $fd "mn\r\n"
        mc_send $fd "lru_crawler metadump all\r\n"
        set keys [dict create]
        foreach line [op_read_dump $fd] {
            regexp {^key=(\S+) } $line -> k
            dict incr keys $k
        }
        set dups 0
        dict for {k n} $keys { if {$n != 1} { incr dups } }
        list [dict size $keys] $dups
    } {20001 0}

    test {a cachedump limit stops the stream early} {
        mc_send $fd "stats cachedump 1 5\r\n"
        llength [op_read_dump $fd]
    } 5

    test {a client that disconnects in the middle of a dump} {
        set fd2 [mc_connect]
        mc_send $fd2 "lru_crawler metadump all\r\n"
        read $fd2 100
        close $fd2
        mc_exchange $fd "mn\r\n"
    } "MN\r\n"
}

start_server {tags {operator tools}} {
    set fd [mc_connect]
    mc_exchange $fd "set t1 3 0 5\r\nhello\r\nset t2 0 1000 2\r\nhi\r\n"

    test {memcdump lists the keys} {
        lassign [run_cmd 20 {*}[op_tool memcdump] --servers=127.0.0.1:[srv port]] status out
        list $status [lsort [split [string trim $out] "\n"]]
    } {0 {t1 t2}}

    test {memcached-tool keys} {
        lsort [regexp -all -inline {key=\S+} [memcached_tool 127.0.0.1:[srv port] keys]]
    } {key=t1 key=t2}

    test {memcached-tool stats and settings answer} {
        list [regexp {curr_items\s+2} [memcached_tool 127.0.0.1:[srv port] stats]] \
            [regexp {maxconns\s+\d+} [memcached_tool 127.0.0.1:[srv port] settings]]
    } {1 1}

    test {memcached-tool display shows class 1 with its pages and count} {
        regexp -line {^\s+1\s+\S+\s+\d+s\s+(\d+)\s+(\d+)\s} [memcached_tool 127.0.0.1:[srv port] display] -> pages nitems
        list [expr {$pages >= 1}] $nitems
    } {1 2}

    test {memcached-tool dump restores into a second server} {
        set dump [memcached_tool 127.0.0.1:[srv port] dump]
        start_server {} {
            set fd2 [mc_connect]
            mc_send $fd2 $dump
            foreach line [split $dump "\n"] { if {[string match "add *" $line]} { mc_readline $fd2 } }
            set got [list [mc_exchange $fd2 "get t1\r\n"] [regexp {^HD t(\d+)} [mc_exchange $fd2 "mg t2 t\r\n"] -> ttl] \
                [expr {$ttl > 900 && $ttl <= 1000}]]
        }
        set got
    } [list "VALUE t1 3 5\r\nhello\r\nEND\r\n" 1 1]
}
