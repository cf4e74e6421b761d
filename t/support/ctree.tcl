# Tree-counter helpers shared by the units that speak the ct* verbs
# (doc/protocol.md, "5. Tree counters"): period texts computed in Tcl, a
# model of the values that recomputes every total from the accepted
# increments, and readers of VALUE listings.

# ct_period code unixtime -> the period text of type code (unit 3..7,
# length 1) holding that time, in UTC.
proc ct_period {code t} {
    switch -- $code {
        101 { return [clock format $t -format %Y%m%d%H%M%S -gmt 1] }
        102 { return [clock format $t -format %Y%m%d%H%M -gmt 1] }
        103 { return [clock format $t -format %Y%m%d%H -gmt 1] }
        104 { return [clock format $t -format %Y%m%d -gmt 1] }
        105 { return [clock format $t -format %Y%m -gmt 1] }
        106 { return [clock format $t -format %Y -gmt 1] }
        107 { return 1 }
    }
    error "ct_period: no Tcl format for type $code"
}

# ct_values fd key ?options? -> dict {counter code period} -> exact total
# (value + fraction) from one ctvalues listing (which must end in END).
proc ct_values {fd key {opts {}}} {
    set r [mc_exchange $fd "ctvalues $key count=10000 $opts\r\n"]
    set out [dict create]
    foreach line [split [string trimright $r "\n"] "\n"] {
        set line [string trimright $line "\r"]
        if {$line eq "END"} { return $out }
        if {![regexp {^VALUE (\S+) (\d+) (\d+) (\d+) (-?\d+) (-?\d+)$} $line -> k c code p v f] || $k ne $key} {
            fail "ctvalues $key: unexpected line '[visible $line]'"
        }
        dict set out [list $c $code $p] [expr {$v + $f}]
    }
    fail "ctvalues $key: no END in '[visible $r]'"
}

# ct_make_tree fd parents ?limits?: creates every object of the dict
# object -> parent ("" for a root), parents first, each with its limit
# from the dict object -> {counter type max}; fails unless all CREATED.
proc ct_make_tree {fd parents {limits {}}} {
    dict for {o p} $parents {
        set line "ctobj $o"
        if {$p ne {}} { append line " parent=$p" }
        if {[dict exists $limits $o]} { append line " limits=[join [dict get $limits $o] :]" }
        assert_equal [mc_exchange $fd "$line\r\n"] "CREATED\r\n"
    }
}

# ct_path parents o: o, then its ancestors up to the root.
proc ct_path {parents o} {
    set path [list $o]
    for {set p [dict get $parents $o]} {$p ne {}} {set p [dict get $parents $p]} { lappend path $p }
    return $path
}

# A model of accepted increments: ct_model_add model obj-path counter
# codes t delta adds delta to every period of every code at time t, for
# every object of the path (the object, then its ancestors).
proc ct_model_add {modelvar path counter codes t delta} {
    upvar $modelvar m
    foreach o $path {
        foreach code $codes {
            set k [list $o $counter $code [ct_period $code $t]]
            set v [expr {([dict exists $m $k] ? [dict get $m $k] : 0) + $delta}]
            if {$v == 0} { dict unset m $k } else { dict set m $k $v }
        }
    }
}

# The model's values of one object, as ct_values returns them.
proc ct_model_of {model obj} {
    set out [dict create]
    dict for {k v} $model {
        if {[lindex $k 0] eq $obj} { dict set out [lrange $k 1 end] $v }
    }
    return $out
}

# Sorted "counter/type/period=total" lines of a dict, for readable comparisons.
proc ct_lines {d} {
    set out {}
    dict for {k v} $d { lappend out "[join $k /]=$v" }
    return [lsort $out]
}

# ---- big subtrees (deletes released in steps) ----

# ct_bulk fd lines reply: sends every line at once; each answer must be reply.
proc ct_bulk {fd lines reply} {
    mc_send $fd [join [lmap l $lines { string cat $l "\r\n" }] ""]
    foreach l $lines {
        set got [mc_readline $fd]
        if {$got ne $reply} { fail "$l: [visible $got]" }
    }
}

# ct_build_subtree fd root nmid nleaf: under the existing object root,
# nmid children root.M with nleaf leaves root.M.L each, and one increment
# of 1 per leaf (counter 1, type 103) over the 48 hours from 2021-01-01.
proc ct_build_subtree {fd root nmid nleaf} {
    set objs {}
    set incrs {}
    for {set m 0} {$m < $nmid} {incr m} {
        lappend objs "ctobj $root.$m parent=$root"
        for {set l 0} {$l < $nleaf} {incr l} {
            lappend objs "ctobj $root.$m.$l parent=$root.$m"
            lappend incrs "ctincr $root.$m.$l 1 103 @[expr {1609459200 + 3600 * ($l % 48)}] 1"
        }
    }
    ct_bulk $fd $objs CREATED
    ct_bulk $fd $incrs STORED
}

# ct_kscan fd glob -> the keys of tree-counter objects matching glob, by a
# whole kscan.
proc ct_kscan {fd glob} {
    set keys {}
    set req "kscan 0 count=10000 type=ctree match=$glob\r\n"
    while 1 {
        set r [mc_exchange $fd $req]
        foreach {- k} [regexp -all -inline {KEY (\S+) ctree} $r] { lappend keys $k }
        if {![regexp {CURSOR (\d+)\r\nEND\r\n$} $r -> cur]} { fail "kscan: [visible $r]" }
        if {$cur == 0} { return $keys }
        set req "kscan $cur count=10000\r\n"
    }
}

# ct_model_periods model -> sorted "counter type period objects" lines: how
# many objects of the model hold a value in each period, as ctperiods
# lists them (ct_server_periods).
proc ct_model_periods {model} {
    set n [dict create]
    foreach k [dict keys $model] { dict incr n [lrange $k 1 end] }
    set out {}
    foreach k [dict keys $n] { lappend out "[join $k { }] [dict get $n $k]" }
    return [lsort $out]
}

proc ct_server_periods {fd} {
    set out {}
    foreach {- c t p n} [regexp -all -inline {PERIOD (\d+) (\d+) (\d+) (\d+)\r\n} [mc_exchange $fd "ctperiods count=10000\r\n"]] {
        lappend out "$c $t $p $n"
    }
    return [lsort $out]
}

# ct_fill fd key t0 -> {n last}: increments of 1 to key (counter 1, type
# 101), one new second from t0 each, 1000 at a time, until one is not
# STORED (at most 200,000): how many were, and the first answer that was not.
proc ct_fill {fd key t0} {
    set n 0
    set last {}
    for {set batch 0} {$batch < 200 && $last eq {}} {incr batch} {
        set b {}
        for {set i 0} {$i < 1000} {incr i} { append b "ctincr $key 1 101 @[expr {$t0 + $batch * 1000 + $i}] 1\r\n" }
        mc_send $fd $b
        for {set i 0} {$i < 1000} {incr i} {
            set l [mc_readline $fd]
            if {$l eq "STORED" && $last eq {}} { incr n } elseif {$last eq {}} { set last $l }
        }
    }
    return [list $n $last]
}
