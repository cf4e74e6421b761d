# Helpers of the table tests (doc/protocol.md, "9. Tables"): replies read
# as Tcl values, and values written as tokens.

# A value as a request token: %XX for a space, a control byte, '%' and
# bytes over 0x7e; "null" for the Tcl value ~null~, the bytes "null" as
# %6eull, the empty value as %.
proc t_tok {v} {
    if {$v eq "~null~"} { return null }
    if {$v eq "null"} { return %6eull }
    if {$v eq ""} { return % }
    set out {}
    foreach ch [split $v {}] {
        scan $ch %c code
        if {$code <= 0x20 || $code >= 0x7f || $ch eq "%"} {
            append out [format %%%02X $code]
        } else {
            append out $ch
        }
    }
    return $out
}

# One reply of rows: {rows cursor} where rows is a list of {ver {f v …}}
# (a NULL as ~null~), cursor the CURSOR line's id ({} when none); an
# error line comes back as {error <line>}.
proc t_read_rows {fd} {
    set rows {}
    set cursor {}
    while 1 {
        set line [mc_readline $fd]
        if {$line eq "END"} break
        if {[regexp {^CURSOR (\d+)$} $line -> cursor]} continue
        if {![regexp {^ROW (\d+) (\d+)$} $line -> ver n]} { return [list error $line] }
        set fields {}
        for {set i 0} {$i < $n} {incr i} {
            set f [mc_readline $fd]
            if {[regexp {^F (\S+) null$} $f -> name]} {
                lappend fields $name ~null~
            } elseif {[regexp {^F (\S+) (\d+)$} $f -> name len]} {
                lappend fields $name [string range [mc_read_bytes $fd [expr {$len + 2}]] 0 end-2]
            } else {
                fail "bad field line '[visible $f]'"
            }
        }
        lappend rows [list $ver $fields]
    }
    list $rows $cursor
}

# Sends line and reads its rows.
proc t_rows {fd line} {
    mc_send $fd "$line\r\n"
    t_read_rows $fd
}

# Every row of a selection, page after page (the same connection): the
# rows' field lists.
proc t_all {fd line {next {}}} {
    lassign [t_rows $fd $line] rows cursor
    if {$rows eq "error"} { fail "$line: $cursor" }
    set out [lmap r $rows { lindex $r 1 }]
    while {$cursor ne "" && $cursor != 0} {
        lassign [t_rows $fd "tnext $cursor $next"] rows cursor
        if {$rows eq "error"} { fail "tnext: $cursor" }
        lappend out {*}[lmap r $rows { lindex $r 1 }]
    }
    return $out
}

# The values of field f of rows (field lists).
proc t_col {rows f} {
    lmap r $rows { dict get $r $f }
}

# 0..n-1 (one argument) or a..b (two), as Tcl 8.7's lseq.
proc t_seq {a {b {}}} {
    if {$b eq ""} { set b [expr {$a - 1}]; set a 0 }
    set out {}
    for {set i $a} {$i <= $b} {incr i} { lappend out $i }
    return $out
}
