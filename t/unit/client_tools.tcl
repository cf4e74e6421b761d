# libmemcached's command-line tools (Debian's libmemcached-tools, named
# memccp, memccat, memcrm, memcflush, memcstat, memctouch, memcexist) run
# against the server under test, once over the text protocol and once with
# --binary. Every effect a tool claims is checked through a separate
# text-protocol connection: what memccp stores, memccat must give back byte
# for byte; the TTL that memctouch sets shows in `mg <key> t`; memcrm and
# memcflush really remove; memcexist never creates the key it asks about.
# Proven against memcached 1.6.18 (./runtest --server /usr/bin/memcached).

# The tools, or a skip when libmemcached-tools is missing.
proc memc_tool {name} {
    set bin [auto_execok $name]
    if {$bin eq {}} {
        skip "$name is not installed (apt-get install libmemcached-tools)"
    }
    return $bin
}

# memc mode tool args... -> {status output}: run a tool against the server
# under test; mode is text or binary.
proc memc {mode tool args} {
    set cmd [memc_tool $tool]
    lappend cmd --servers=127.0.0.1:[srv port]
    if {$mode eq "binary"} { lappend cmd --binary }
    return [run_cmd 20 {*}$cmd {*}$args]
}

# memc_ok mode tool args... -> output; fails unless the tool exits 0.
proc memc_ok {mode tool args} {
    lassign [memc $mode $tool {*}$args] status out
    if {$status ne "0"} {
        fail "$tool ([join $args]) in $mode mode exited $status: [visible $out]"
    }
    return $out
}

# memc_fails mode pattern tool args... -> output; fails unless the tool
# exits non-zero with output matching the glob pattern (the server's answer
# as libmemcached names it, so that a broken connection does not pass for
# a refusal). Tools that are silent about a miss are run with -v.
proc memc_fails {mode pattern tool args} {
    lassign [memc $mode $tool {*}$args] status out
    if {$status eq "0"} {
        fail "$tool ([join $args]) in $mode mode succeeded, expected a failure: [visible $out]"
    }
    if {$status eq "timeout"} { fail "$tool ([join $args]) in $mode mode timed out" }
    if {![string match $pattern $out]} {
        fail "$tool ([join $args]) in $mode mode exited $status with '[visible $out]', expected '$pattern'"
    }
    return $out
}

proc write_file {path data} {
    set f [open $path w]
    fconfigure $f -translation binary
    puts -nonewline $f $data
    close $f
}

# The remaining TTL of key as `mg <key> t` reports it ({} on a miss, -1 for
# no expiry).
proc ttl_of {fd key} {
    set line [mc_cmd $fd "mg $key t"]
    if {$line eq "EN"} { return {} }
    if {![regexp {^HD t(-?\d+)$} $line -> ttl]} { fail "mg $key t: unexpected '$line'" }
    return $ttl
}

start_server {tags {clients client_tools}} {
    set fd [mc_connect]
    set dir [tmpdir tools]

    foreach mode {text binary} {
        test "memccp then memccat -f ($mode): a 5000-byte binary file comes back byte-identical" {
            set data [randstring 5000 binary]
            set src [file join $dir small-$mode.bin]
            write_file $src $data
            memc_ok $mode memccp $src
            # memccp stores under the file's basename; the text protocol sees it.
            assert_equal [mc_getflags $fd small-$mode.bin] [list 0 $data]
            set back [file join $dir small-$mode.back]
            memc_ok $mode memccat --file=$back small-$mode.bin
            assert_equal [string length [read_file $back]] 5000
            assert_true {[read_file $back] eq $data} "memccat --file output differs"
            # To stdout it prints the value and a newline.
            set out [memc_ok $mode memccat small-$mode.bin]
            assert_true {$out eq "$data\n"} "memccat stdout differs"
        }

        test "memccp then memccat ($mode): a 300 KB file comes back byte-identical" {
            set data [randstring 307200 binary]
            set src [file join $dir large-$mode.bin]
            write_file $src $data
            memc_ok $mode memccp $src
            assert_true {[mc_get $fd large-$mode.bin] eq $data} "text get of the value differs"
            set back [file join $dir large-$mode.back]
            memc_ok $mode memccat --file=$back large-$mode.bin
            assert_equal [file size $back] 307200
            assert_true {[read_file $back] eq $data} "memccat --file output differs"
        }

        test "memccp --flags --expire ($mode): flags and TTL seen by get and mg" {
            set src [file join $dir flagged-$mode.txt]
            write_file $src "flagged $mode"
            memc_ok $mode memccp --flags=4242 --expire=100 $src
            assert_equal [mc_getflags $fd flagged-$mode.txt] [list 4242 "flagged $mode"]
            assert_range [ttl_of $fd flagged-$mode.txt] 95 100
            # memccat -F prints the flags on a line of their own first.
            memc_ok $mode memccat -F flagged-$mode.txt
        } "4242\nflagged $mode\n"

        test "memccp --add and --replace ($mode): refused where add/replace must fail" {
            set src [file join $dir ar-$mode.txt]
            write_file $src one
            memc_ok $mode memccp --add $src
            assert_equal [mc_get $fd ar-$mode.txt] one
            write_file $src two
            memc_fails $mode [expr {$mode eq "binary" ? "*DATA EXISTS*" : "*NOT STORED*"}] \
                memccp --add $src
            assert_equal [mc_get $fd ar-$mode.txt] one
            memc_ok $mode memccp --replace $src
            assert_equal [mc_get $fd ar-$mode.txt] two
            set src2 [file join $dir nothere-$mode.txt]
            write_file $src2 three
            memc_fails $mode [expr {$mode eq "binary" ? "*NOT FOUND*" : "*NOT STORED*"}] \
                memccp --replace $src2
            mc_get $fd nothere-$mode.txt
        } {}

        test "memccat of a missing key ($mode) exits non-zero" {
            memc_fails $mode "*NOT FOUND*" memccat -v missing-$mode
            # With a present key among them it still reports the miss.
            assert_equal [mc_set $fd present-$mode yes] STORED
            assert_equal [memc_ok $mode memccat present-$mode] "yes\n"
            memc_fails $mode "*missing-$mode*NOT FOUND*" memccat -v present-$mode missing-$mode
            list
        } {}

        test "memctouch ($mode): the new TTL shows through the text protocol" {
            assert_equal [mc_set $fd touch-$mode abc 5 100] STORED
            assert_range [ttl_of $fd touch-$mode] 95 100
            memc_ok $mode memctouch --expire=5000 touch-$mode
            assert_range [ttl_of $fd touch-$mode] 4990 5000
            # Value and flags unchanged.
            mc_getflags $fd touch-$mode
        } {5 abc}

        test "memctouch of a missing key ($mode) fails and creates nothing" {
            memc_fails $mode "*NOT FOUND*" memctouch -v --expire=100 notouch-$mode
            mc_get $fd notouch-$mode
        } {}

        test "memcexist ($mode): 0 for a present key, non-zero for a missing one, which stays missing" {
            assert_equal [mc_set $fd exist-$mode v] STORED
            memc_ok $mode memcexist exist-$mode
            memc_fails $mode "*NOT FOUND*" memcexist -v noexist-$mode
            # libmemcached asks with an add of an already expired item: it
            # must neither show up nor change the present key.
            assert_equal [mc_get $fd noexist-$mode] {}
            mc_get $fd exist-$mode
        } {v}

        test "memcrm ($mode): removes the key; a second memcrm fails" {
            assert_equal [mc_set $fd rm-$mode v] STORED
            assert_equal [mc_set $fd keep-$mode w] STORED
            memc_ok $mode memcrm rm-$mode
            assert_equal [mc_get $fd rm-$mode] {}
            memc_fails $mode "*NOT FOUND*" memcrm -v rm-$mode
            mc_get $fd keep-$mode
        } {w}

        test "memcflush ($mode): every key is gone afterwards" {
            for {set i 0} {$i < 20} {incr i} {
                assert_equal [mc_set $fd flush-$mode-$i v$i] STORED
            }
            assert_equal [mc_get $fd flush-$mode-7] v7
            memc_ok $mode memcflush
            set left {}
            for {set i 0} {$i < 20} {incr i} {
                if {[mc_get $fd flush-$mode-$i] ne {}} { lappend left flush-$mode-$i }
            }
            # The server can still store after the flush.
            assert_equal [mc_set $fd after-flush-$mode x] STORED
            assert_equal [mc_get $fd after-flush-$mode] x
            set left
        } {}

        test "memcstat ($mode): Server line, the server's pid and version" {
            set out [memc_ok $mode memcstat]
            set port [srv port]
            assert_match "Server: 127.0.0.1 ($port)\n*" $out
            assert_true {[regexp -line {^\tpid: (\d+)$} $out -> pid]} "no pid line: $out"
            assert_equal $pid [mc_stat $fd pid]
            assert_equal $pid [srv pid]
            set version [string range [mc_cmd $fd version] 8 end]
            assert_true {[regexp -line {^\tversion: (\S+)$} $out -> v]} "no version line: $out"
            assert_equal $v $version
            assert_true {[regexp -line {^\tcurr_connections: \d+$} $out]} "no curr_connections line: $out"
            # -S prints one "host:port version" line.
            string trim [memc_ok $mode memcstat -S]
        } "127.0.0.1:[srv port] [string range [mc_cmd $fd version] 8 end]"
    }
}
