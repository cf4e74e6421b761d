# Helpers for list tests (doc/protocol.md, "5. Lists").

# l_push fd verb key values ?tail? -> the reply of one push of values.
proc l_push {fd verb key values {tail {}}} {
    set lens {}
    set data {}
    foreach v $values {
        lappend lens [string length $v]
        append data "$v\r\n"
    }
    mc_exchange $fd "$verb $key [join $lens { }]$tail\r\n$data"
}

# l_blocks line ?value ...? -> the line, then one data block per value.
proc l_blocks {line args} {
    set out "$line\r\n"
    foreach v $args { append out "$v\r\n" }
    return $out
}

# l_vals key values -> the VALUE lines and END a read of values answers.
proc l_vals {key values} {
    set out {}
    foreach v $values { append out "VALUE $key 0 [string length $v]\r\n$v\r\n" }
    return "${out}END\r\n"
}

# l_all fd key -> every element of the list, by lrange pages.
proc l_all {fd key} {
    set out {}
    set off 0
    while 1 {
        set r [mc_exchange $fd "lrange $key $off 1000\r\n"]
        set page [l_parse $key $r]
        if {[llength $page] == 0} { return $out }
        lappend out {*}$page
        incr off [llength $page]
    }
}

# l_parse key bytes -> the values of VALUE lines ending in END.
proc l_parse {key bytes} {
    set out {}
    set i 0
    while 1 {
        set eol [string first "\r\n" $bytes $i]
        set line [string range $bytes $i [expr {$eol - 1}]]
        if {$line eq "END"} { return $out }
        if {![regexp "^VALUE [regsub -all {\W} $key {\\&}] 0 (\\d+)$" $line -> n]} {
            fail "unexpected line '[visible $line]'"
        }
        set start [expr {$eol + 2}]
        lappend out [string range $bytes $start [expr {$start + $n - 1}]]
        set i [expr {$start + $n + 2}]
    }
}

# l_waiters fd n: waits until the server counts n waiting list pops.
proc l_waiters {fd n} {
    wait_for {[mc_stat $fd list_waiters] == $n} 100 50
}

# l_wait_len fd key n: waits until the list holds n elements. Elements
# handed to a waiter that hung up go back when its worker sees the
# hang-up, which may come after the waiter has left list_waiters.
proc l_wait_len {fd key n} {
    wait_for {[mc_exchange $fd "llen $key\r\n"] eq "$n\r\n"} 100 50
}

