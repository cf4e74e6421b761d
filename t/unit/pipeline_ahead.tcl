# Pipelined gets are looked up with keys hashed ahead of their turn: while
# a request runs, the server hashes the keys of the get and mg lines after
# it (stepping over set and ms lines and their data), and a multi-get's
# next key (doc/performance.md, "Pipelined headroom"). Whatever the server
# does early, every reply must be the one the line asked for: these tests
# send long pipelines of gets, mg, multi-gets, sets, ms and deletes over
# the same keys, cut into reads at every kind of place, and check each
# reply against a model of the cache.

# A random key of the test's key set: short ones, and ones of the longest
# length a key may have (250 bytes), which differ only at their end. Each
# random pipeline has its own prefix (two letters and the seed).
proc pa_key {} {
    set n [expr {int(rand() * 40)}]
    if {rand() < 0.1} {
        return "[string repeat x [expr {247 - [string length $::pa_prefix]}]]$::pa_prefix[format %03d $n]"
    }
    return "$::pa_prefix$n"
}

# The reply to a get of keys (a list) from a cache holding model.
proc pa_get_reply {model keys} {
    set exp {}
    foreach k $keys {
        if {[dict exists $model $k]} {
            set v [dict get $model $k]
            append exp "VALUE $k 0 [string length $v]\r\n$v\r\n"
        }
    }
    return "${exp}END\r\n"
}

# Appends to the request and the expected reply of one random line, and
# updates the model (dict key -> value).
proc pa_line {modelvar reqvar expvar} {
    upvar $modelvar model $reqvar req $expvar exp
    set r [expr {rand()}]
    if {$r < 0.45} {
        set k [pa_key]
        append req "get $k\r\n"
        if {[dict exists $model $k]} {
            set v [dict get $model $k]
            append exp "VALUE $k 0 [string length $v]\r\n$v\r\n"
        }
        append exp "END\r\n"
    } elseif {$r < 0.52} {
        set k [pa_key]
        if {rand() < 0.5} {
            append req "mg $k v\r\n"
            if {[dict exists $model $k]} {
                set v [dict get $model $k]
                append exp "VA [string length $v]\r\n$v\r\n"
            } else {
                append exp "EN\r\n"
            }
        } else {
            append req "mg $k\r\n"
            append exp [expr {[dict exists $model $k] ? "HD\r\n" : "EN\r\n"}]
        }
    } elseif {$r < 0.6} {
        set keys {}
        for {set i [expr {1 + int(rand() * 6)}]} {$i > 0} {incr i -1} { lappend keys [pa_key] }
        append req "get[string repeat { } [expr {1 + int(rand() * 2)}]][join $keys { }]\r\n"
        append exp [pa_get_reply $model $keys]
    } elseif {$r < 0.85} {
        set k [pa_key]
        set v [string repeat [format %c [expr {97 + int(rand() * 26)}]] [expr {int(rand() * 40)}]]
        # The value may itself read like a get line: it must be taken as data.
        if {rand() < 0.2} { set v [expr {rand() < 0.5 ? "get $k" : "mg $k v"}] }
        if {rand() < 0.3} {
            append req "ms $k [string length $v]\r\n$v\r\n"
            append exp "HD\r\n"
        } else {
            append req "set $k 0 0 [string length $v]\r\n$v\r\n"
            append exp "STORED\r\n"
        }
        dict set model $k $v
    } elseif {$r < 0.95} {
        set k [pa_key]
        append req "delete $k\r\n"
        if {[dict exists $model $k]} {
            append exp "DELETED\r\n"
            dict unset model $k
        } else {
            append exp "NOT_FOUND\r\n"
        }
    } elseif {[is_mcds]} {
        # A key one byte too long is refused, and the pipeline goes on.
        # (memcached 1.6 also drops the replies of the pipelined lines
        # before it that it has not sent yet.)
        append req "get [string repeat y 251]\r\n"
        append exp "CLIENT_ERROR bad command line format\r\n"
    } else {
        append req "get [string repeat y 250]\r\n"
        append exp "END\r\n"
    }
}

# Sends req in pieces cut at random places (at most max bytes each), a
# few milliseconds apart, so that lines and keys are cut between reads.
proc pa_send_cut {fd req max} {
    set at 0
    set len [string length $req]
    while {$at < $len} {
        set n [expr {1 + int(rand() * $max)}]
        mc_send $fd [string range $req $at [expr {$at + $n - 1}]]
        incr at $n
        if {rand() < 0.3} { after 2 }
    }
}

# Sends a random pipeline of `lines` lines (seed: the random seed, and the
# keys' prefix), whole in the background when max is 20000 or more, else
# cut into pieces of up to max bytes, and checks every reply byte.
proc pa_run_random {fd seed lines max} {
    expr {srand($seed)}
    set ::pa_prefix "r$seed"
    set model [dict create]
    set req {}
    set exp {}
    for {set i 0} {$i < $lines} {incr i} { pa_line model req exp }
    if {$max >= 20000} {
        mc_send_bg $fd $req
    } else {
        pa_send_cut $fd $req $max
    }
    set got [mc_read_bytes $fd [string length $exp]]
    if {$got ne $exp} {
        set i 0
        while {[string index $got $i] eq [string index $exp $i]} { incr i }
        fail "replies differ at byte $i: got '[visible [string range $got [expr {$i - 60}] [expr {$i + 60}]]]',\
              expected '[visible [string range $exp [expr {$i - 60}] [expr {$i + 60}]]]'"
    }
}

start_server {tags {pipeline}} {
    set fd [mc_connect]

    test {get and mg lines pipelined after a get hit the keys they name} {
        mc_exchange $fd "set a 0 0 1\r\n1\r\nset b 0 0 1\r\n2\r\nset c 0 0 1\r\n3\r\n"
        mc_exchange $fd "get a\r\nget b\r\nmg c v\r\nget d\r\nmg a v k\r\nget a\r\n"
    } "VALUE a 0 1\r\n1\r\nEND\r\nVALUE b 0 1\r\n2\r\nEND\r\nVA 1\r\n3\r\nEND\r\nVA 1 ka\r\n1\r\nVALUE a 0 1\r\n1\r\nEND\r\n"

    test {a key cut by the end of a read is the whole key once the rest arrives} {
        mc_exchange $fd "set bc 0 0 2\r\nbc\r\n"
        mc_send $fd "get a\r\nget b"
        assert_equal [mc_read_bytes $fd 21] "VALUE a 0 1\r\n1\r\nEND\r\n"
        after 20
        mc_exchange $fd "c\r\n"
    } "VALUE bc 0 2\r\nbc\r\nEND\r\n"

    test {a value that reads like a get line is data, and the get after it is answered} {
        mc_exchange $fd "get a\r\nset g 0 0 5\r\nget c\r\nget g\r\n"
    } "VALUE a 0 1\r\n1\r\nEND\r\nSTORED\r\nVALUE g 0 5\r\nget c\r\nEND\r\n"

    test {a set or delete between two gets of a key is seen by the second} {
        mc_exchange $fd "get a\r\nget a\r\nset a 0 0 2\r\nxy\r\nget a\r\ndelete a\r\nget a\r\nget a a\r\n"
    } "VALUE a 0 1\r\n1\r\nEND\r\nVALUE a 0 1\r\n1\r\nEND\r\nSTORED\r\nVALUE a 0 2\r\nxy\r\nEND\r\nDELETED\r\nEND\r\nEND\r\n"

    test {gets lines pipelined answer their keys with a cas} {
        set r [mc_exchange $fd "gets b\r\ngets c\r\ngets nope\r\n"]
        regsub -all {VALUE (\S+) 0 1 [0-9]+(\r)} $r {VALUE \1 0 1 CAS\2} r
        set r
    } "VALUE b 0 1 CAS\r\n2\r\nEND\r\nVALUE c 0 1 CAS\r\n3\r\nEND\r\nEND\r\n"

    foreach {seed lines max} {1 3000 20000 2 3000 700 3 800 40} {
        test "random pipeline (seed $seed, $lines lines, reads of up to $max bytes): every reply as modelled" {
            pa_run_random $fd $seed $lines $max
        }
    }
}

# A multi-get's keys are fetched two ahead: long multi-gets, with repeated
# keys, keys that differ only at their end, misses, and values large
# enough that the output fills and the line is resumed later, cut into
# reads at random places.
start_server {tags {pipeline} args {--conn-output-max 65536}} {
    set fd [mc_connect]

    test {multi-gets of up to 120 keys, cut anywhere and resumed when the output fills: every key answered in order} {
        expr {srand(9)}
        set long [string repeat k 247]
        set model [dict create]
        set req {}
        for {set i 0} {$i < 60} {incr i} {
            set k [expr {$i % 3 ? "m$i" : "$long[format %03d $i]"}]
            set v [string repeat [format %c [expr {97 + $i % 26}]] [expr {$i % 7 ? 20 + $i : 30000}]]
            dict set model $k $v
            append req "set $k 0 0 [string length $v]\r\n$v\r\n"
        }
        mc_send_bg $fd $req
        mc_read_bytes $fd [expr {60 * 8}]
        set req {}
        set exp {}
        for {set line 0} {$line < 40} {incr line} {
            set keys {}
            for {set j [expr {2 + int(rand() * 119)}]} {$j > 0} {incr j -1} {
                set i [expr {int(rand() * 70)}]
                lappend keys [expr {$i % 3 ? "m$i" : "$long[format %03d $i]"}]
            }
            append req "get [join $keys { }]\r\n"
            append exp [pa_get_reply $model $keys]
        }
        pa_send_cut $fd $req 3000
        set got [mc_read_bytes $fd [string length $exp]]
        assert_equal [string length $got] [string length $exp]
        expr {$got eq $exp}
    } 1
}

# With -R 1 a connection yields after every request: the lines noted ahead
# wait in the read buffer while it is compacted and refilled.
start_server {tags {pipeline} args {-R 1}} {
    set fd [mc_connect]

    foreach {seed lines max} {4 3000 20000 5 1500 300} {
        test "random pipeline under -R 1 (seed $seed, $lines lines, reads of up to $max bytes): every reply as modelled" {
            pa_run_random $fd $seed $lines $max
        }
    }
}

# The table grows (from 2^13 buckets, three times) while another client
# pipelines gets and mg of keys it holds: the buckets read ahead may belong
# to a table being retired; every reply must still be a hit.
start_server {tags {pipeline mcds-only} args {-o hashpower=13}} {
    set fd [mc_connect]
    set filler [mc_connect]

    test {pipelined gets while the table grows several times: every one hits} {
        set req {}
        for {set i 0} {$i < 200} {incr i} { append req "set g$i 0 0 [string length v$i]\r\nv$i\r\n" }
        mc_send $fd $req
        mc_read_bytes $fd [expr {200 * 8}]
        set level [mc_stat $fd hash_power_level]
        set sets {}
        for {set i 0} {$i < 60000} {incr i} { append sets "set f$i 0 0 1 noreply\r\nx\r\n" }
        mc_send_bg $filler $sets
        set req {}
        set exp {}
        for {set round 0} {$round < 30} {incr round} {
            for {set i 0} {$i < 200} {incr i} {
                if {$i % 2} {
                    append req "get g$i\r\n"
                    append exp "VALUE g$i 0 [string length v$i]\r\nv$i\r\nEND\r\n"
                } else {
                    append req "mg g$i v\r\n"
                    append exp "VA [string length v$i]\r\nv$i\r\n"
                }
            }
        }
        mc_send_bg $fd $req
        assert_equal [mc_read_bytes $fd [string length $exp]] $exp
        mc_exchange $filler ""
        wait_for {[mc_stat $fd hash_is_expanding] == 0}
        assert_true {[mc_stat $fd hash_power_level] >= $level + 3} "the table grew from 2^$level to 2^[mc_stat $fd hash_power_level]"
        assert_equal [mc_stat $fd curr_items] 60200
    }
}

# A one-key get line that was noted is answered without the command
# table's walk when its key holds a cache value or nothing; any other
# key goes the whole way. Both must answer and count exactly as a get.
start_server {tags {pipeline}} {
    set fd [mc_connect]

    test {one-key gets count in cmd_get, get_hits and get_misses once each} {
        mc_exchange $fd "set h1 0 0 1\r\n1\r\nset h2 0 0 1\r\n2\r\n"
        set before [lmap s {cmd_get get_hits get_misses} { mc_stat $fd $s }]
        mc_exchange $fd "get h1\r\nget m1\r\ngets h2\r\nget h1\r\nget m2\r\nget h1 m3\r\n"
        set after [lmap s {cmd_get get_hits get_misses} { mc_stat $fd $s }]
        lmap a $after b $before { expr {$a - $b} }
    } {7 4 3}

    test {a NUL in a get line ends it: the key is read up to the NUL} {
        mc_exchange $fd "set ab 0 0 2\r\nxy\r\nget ab\0cd\r\nget ab\r\n"
    } "STORED\r\nVALUE ab 0 2\r\nxy\r\nEND\r\nVALUE ab 0 2\r\nxy\r\nEND\r\n"

    test {pipelined mg and ms with base64 keys (b) find the decoded key} {
        # "YWJj" is "abc" in base64
        mc_exchange $fd "ms YWJj 2 b\r\nhi\r\nmg YWJj b v\r\nmg abc v\r\nget abc\r\nmg abc v\r\nmg YWJj b v\r\n"
    } "HD\r\nVA 2\r\nhi\r\nVA 2\r\nhi\r\nVALUE abc 0 2\r\nhi\r\nEND\r\nVA 2\r\nhi\r\nVA 2\r\nhi\r\n"

    test {pipelined sets with flags, TTLs and lengths of every kind answer as sets} {
        set req "set f1 123456789 0 1\r\na\r\nset f2 4294967295 0 1\r\nb\r\n"
        append req "set f3 0 999999999 1\r\nc\r\nset f4 0 -1 1\r\nd\r\nset f5 0 0 1 noreply\r\ne\r\n"
        append req "set f6 0 0 01\r\nf\r\nset f7 7 0 1\0junk\r\ng\r\nget f1 f2 f3 f4 f5 f6 f7\r\n"
        mc_exchange $fd $req
    } [join {STORED STORED STORED STORED STORED STORED "VALUE f1 123456789 1" a "VALUE f2 4294967295 1" b
             "VALUE f5 0 1" e "VALUE f6 0 1" f "VALUE f7 7 1" g END ""} "\r\n"]

    test {pipelined one-line sets count once each in cmd_set} {
        set before [mc_stat $fd cmd_set]
        mc_exchange $fd "set c1 0 0 1\r\na\r\nset c2 0 0 1 noreply\r\nb\r\nset c3 1 2 1\r\nc\r\nget c2\r\n"
        expr {[mc_stat $fd cmd_set] - $before}
    } 3

    test {a key with a slash that is no queue is an ordinary key} {
        mc_exchange $fd "set s/peek 0 0 1\r\np\r\nget s/peek\r\nget s/nope\r\n"
    } "STORED\r\nVALUE s/peek 0 1\r\np\r\nEND\r\nEND\r\n"
}

start_server {tags {pipeline mcds-only}} {
    set fd [mc_connect]

    test {a pipelined one-key get of a queue takes a message; of a list, misses} {
        assert_equal [mc_exchange $fd "qcreate pq\r\nset pq 0 0 2\r\nm1\r\nset pq 0 0 2\r\nm2\r\nlcreate pl\r\nrpush pl 1\r\nx\r\n"] \
            "CREATED\r\nSTORED\r\nSTORED\r\nCREATED\r\n1\r\n"
        mc_exchange $fd "set pk 0 0 1\r\nv\r\nget pk\r\nget pq\r\nget pl\r\nget pk\r\nget pq\r\nget pq\r\n"
    } "STORED\r\nVALUE pk 0 1\r\nv\r\nEND\r\nVALUE pq 0 2\r\nm1\r\nEND\r\nEND\r\nVALUE pk 0 1\r\nv\r\nEND\r\nVALUE pq 0 2\r\nm2\r\nEND\r\nEND\r\n"

    test {the queue's messages were taken once each} {
        lmap n {ready in_flight pushed acked} { q_stat $fd pq $n }
    } {0 0 2 2}
}
