# The server's layout (doc/design.md, "Layers"): server/ is in folders by
# layer, and a file includes only headers of its own folder and of the
# folders below it. Read from the #include lines of every server file; a
# .c and its .h are one unit. Also: no include cycle crosses a folder,
# cycles inside a folder stay small, few files are left at the top, and
# the order doc/design.md draws is the order checked here.

# Bottom to top.
set ::layers {base cache persist types store repl net ops proto verbs}
set ::server_dir [file join [srcdir] server]

# Every .c and .h under server/, as paths relative to it.
proc layer_files {} {
    set out {}
    foreach dir [concat [list {}] $::layers] {
        foreach f [glob -nocomplain -directory [file join $::server_dir $dir] -tails *.c *.h] {
            lappend out [expr {$dir eq {} ? $f : "$dir/$f"}]
        }
    }
    return [lsort $out]
}

# The server headers a file includes, as paths relative to server/
# (includes are written from server/: "cache/item.h").
proc layer_includes {f} {
    set out {}
    foreach line [split [read_file [file join $::server_dir $f]] \n] {
        if {[regexp {^\s*#\s*include\s+"([^"]+)"} $line -> inc] &&
            [file exists [file join $::server_dir $inc]]} {
            lappend out $inc
        }
    }
    return $out
}

proc layer_of {f} {
    set parts [file split $f]
    return [expr {[llength $parts] == 1 ? "top" : [lindex $parts 0]}]
}

proc layer_rank {layer} {
    if {$layer eq "top"} { return [llength $::layers] }
    return [lsearch -exact $::layers $layer]
}

proc layer_unit {f} { file rootname $f }

test {layers: every file of server/ is at the top or in one of the layer folders} {
    set stray {}
    foreach d [glob -nocomplain -directory $::server_dir -type d -tails *] {
        if {$d ni $::layers && ![string match *-obj $d] && ![string match .* $d]} { lappend stray $d/ }
    }
    set stray
} {}

test {layers: at most 6 .c files directly in server/} {
    set top [glob -nocomplain -directory $::server_dir -tails *.c]
    expr {[llength $top] <= 6 ? "ok" : $top}
} ok

test {layers: every include goes to the file's own folder or one below it} {
    set bad {}
    foreach f [layer_files] {
        set from [layer_of $f]
        foreach inc [layer_includes $f] {
            set to [layer_of $inc]
            if {$to eq "top" && $from ne "top" || [layer_rank $to] > [layer_rank $from]} {
                lappend bad "$f -> $inc"
            }
        }
    }
    join $bad \n
} {}

# Strongly connected components of the unit graph (Tarjan).
proc layer_sccs {graph} {
    set ::scc_index 0
    set ::scc_stack {}
    set ::scc_out {}
    array unset ::scc_idx
    array unset ::scc_low
    array unset ::scc_on
    foreach v [dict keys $graph] {
        if {![info exists ::scc_idx($v)]} { layer_strong $graph $v }
    }
    return $::scc_out
}

proc layer_strong {graph v} {
    set ::scc_idx($v) $::scc_index
    set ::scc_low($v) $::scc_index
    incr ::scc_index
    lappend ::scc_stack $v
    set ::scc_on($v) 1
    foreach w [dict get $graph $v] {
        if {![info exists ::scc_idx($w)]} {
            layer_strong $graph $w
            set ::scc_low($v) [expr {min($::scc_low($v), $::scc_low($w))}]
        } elseif {[info exists ::scc_on($w)]} {
            set ::scc_low($v) [expr {min($::scc_low($v), $::scc_idx($w))}]
        }
    }
    if {$::scc_low($v) == $::scc_idx($v)} {
        set comp {}
        while 1 {
            set w [lindex $::scc_stack end]
            set ::scc_stack [lrange $::scc_stack 0 end-1]
            unset ::scc_on($w)
            lappend comp $w
            if {$w eq $v} break
        }
        if {[llength $comp] > 1} { lappend ::scc_out [lsort $comp] }
    }
}

proc layer_graph {} {
    set g [dict create]
    foreach f [layer_files] {
        set u [layer_unit $f]
        if {![dict exists $g $u]} { dict set g $u {} }
        foreach inc [layer_includes $f] {
            set t [layer_unit $inc]
            if {$t ne $u && $t ni [dict get $g $u]} { dict lappend g $u $t }
        }
    }
    foreach u [dict keys $g] {
        foreach t [dict get $g $u] { if {![dict exists $g $t]} { dict set g $t {} } }
    }
    return $g
}

test {layers: no include cycle crosses a folder, and none inside a folder holds more than 6 units} {
    set bad {}
    foreach comp [layer_sccs [layer_graph]] {
        set folders [lsort -unique [lmap u $comp { layer_of $u }]]
        if {[llength $folders] > 1 || [llength $comp] > 6} { lappend bad $comp }
    }
    join $bad \n
} {}

test {layers: doc/design.md draws the same order, bottom to top} {
    set doc [read_file [file join [srcdir] doc design.md]]
    if {![regexp {Layers, bottom to top: ([a-z, ]+)\.} $doc -> order]} { fail "no 'Layers, bottom to top:' line in doc/design.md" }
    regsub -all {,} $order {} order
    expr {$order eq $::layers ? "same" : $order}
} same
