# Tables against a model kept in Tcl (doc/protocol.md, "9. Tables"): a
# seeded random workload of inserts, puts, updates and deletes (with and
# without versions) on a table with a composite primary key and three
# composite indexes (descending parts, NULLS LAST), each write's reply
# checked, and every read compared with the model: tget, selections
# through every index with random eq prefixes, ranges, directions and page
# sizes (and first pages with nocursor), and predicate scans with random
# predicates. A failure names its
# seed.

source [file join [srcdir] t support table.tcl]

set tm_fields {k1 bytes k2 int a int b bytes c int}
# index name -> parts {field desc nullslast}
set tm_indexes {
    primary {{k1 0 0} {k2 0 0}}
    ab {{a 0 0} {b 1 0}}
    bc {{b 0 1} {c 0 0}}
    cd {{c 1 1} {k1 0 0}}
}
set tm_domain [dict create \
    k1 [list {} a "a\0" b [encoding convertto utf-8 ав] "\xff"] \
    k2 {-3 0 1 2 7} \
    a {~null~ -2 -1 0 1 2} \
    b [list ~null~ {} a ab "a\0" b "\xff" null] \
    c {~null~ -9223372036854775808 -1 0 1 9223372036854775807}]

proc tm_pick {list} { lindex $list [expr {int(rand() * [llength $list])}] }
proc tm_type {f} { dict get $::tm_fields $f }

# -1, 0, 1 for two non-NULL values of field f.
proc tm_cmp {f x y} {
    if {[tm_type $f] eq "int"} { return [expr {$x < $y ? -1 : $x > $y ? 1 : 0}] }
    string compare $x $y
}

# Two rows in the order of an index's parts, then the primary key.
proc tm_order {parts x y} {
    foreach p [concat $parts {{k1 0 0} {k2 0 0}}] {
        lassign $p f desc last
        set u [dict get $x $f]
        set v [dict get $y $f]
        if {$u eq "~null~" && $v eq "~null~"} continue
        if {$u eq "~null~"} { return [expr {$last ? 1 : -1}] }
        if {$v eq "~null~"} { return [expr {$last ? -1 : 1}] }
        set c [tm_cmp $f $u $v]
        if {$desc} { set c [expr {-$c}] }
        if {$c != 0} { return $c }
    }
    return 0
}

proc tm_rows_sorted {parts} {
    lsort -command [list tm_order $parts] [dict values $::tm_model]
}

# ---- predicates: a nested list, rendered to tokens and evaluated ----

proc tm_pred {depth} {
    set r [expr {rand()}]
    if {$depth < 3 && $r < 0.2} { return [list and [tm_pred [incr depth]] [tm_pred $depth]] }
    if {$depth < 3 && $r < 0.35} { return [list or [tm_pred [incr depth]] [tm_pred $depth]] }
    if {$depth < 3 && $r < 0.45} { return [list not [tm_pred [incr depth]]] }
    set f [tm_pick {k1 k2 a b c}]
    set r [expr {rand()}]
    if {$r < 0.1} { return [list isnull $f] }
    if {$r < 0.2} { return [list notnull $f] }
    set v [tm_pick [lsearch -all -inline -not -exact [dict get $::tm_domain $f] ~null~]]
    if {[tm_type $f] eq "bytes" && $r < 0.35} { return [list prefix $f [string range $v 0 [expr {int(rand() * 2) - 1}]]] }
    list cmp $f [tm_pick {= != < <= > >=}] $v
}

proc tm_render {p} {
    switch [lindex $p 0] {
        and { return "( [tm_render [lindex $p 1]] and [tm_render [lindex $p 2]] )" }
        or { return "( [tm_render [lindex $p 1]] or [tm_render [lindex $p 2]] )" }
        not { return "not [tm_render [lindex $p 1]]" }
        isnull { return "[lindex $p 1] is null" }
        notnull { return "[lindex $p 1] is not null" }
        prefix { return "[lindex $p 1] prefix [t_tok [lindex $p 2]]" }
        cmp { return "[lindex $p 1] [lindex $p 2] [t_tok [lindex $p 3]]" }
    }
}

proc tm_eval {p row} {
    switch [lindex $p 0] {
        and { return [expr {[tm_eval [lindex $p 1] $row] && [tm_eval [lindex $p 2] $row]}] }
        or { return [expr {[tm_eval [lindex $p 1] $row] || [tm_eval [lindex $p 2] $row]}] }
        not { return [expr {![tm_eval [lindex $p 1] $row]}] }
        isnull { return [expr {[dict get $row [lindex $p 1]] eq "~null~"}] }
        notnull { return [expr {[dict get $row [lindex $p 1]] ne "~null~"}] }
    }
    set v [dict get $row [lindex $p 1]]
    if {$v eq "~null~"} { return 0 }
    if {[lindex $p 0] eq "prefix"} { return [string equal -length [string length [lindex $p 2]] $v [lindex $p 2]] }
    set c [tm_cmp [lindex $p 1] $v [lindex $p 3]]
    switch [lindex $p 2] {
        = { expr {$c == 0} } != { expr {$c != 0} } < { expr {$c < 0} }
        <= { expr {$c <= 0} } > { expr {$c > 0} } >= { expr {$c >= 0} }
    }
}

# ---- the workload ----

proc tm_row_line {row} {
    join [lmap f {k1 k2 a b c} { set _ $f=[t_tok [dict get $row $f]] }] " "
}

proc tm_random_row {} {
    set row {}
    foreach f {k1 k2 a b c} {
        set vals [dict get $::tm_domain $f]
        if {$f in {k1 k2}} { set vals [lsearch -all -inline -not -exact $vals ~null~] }
        dict set row $f [tm_pick $vals]
    }
    return $row
}

proc tm_key {row} { list [dict get $row k1] [dict get $row k2] }

proc tm_expect {fd line want what} {
    set got [mc_exchange $fd "$line\r\n"]
    if {$got ne $want} { fail "seed $::tm_seed $what: '[visible $line]' answered '[visible $got]', the model '[visible $want]'" }
}

proc tm_write {fd} {
    set row [tm_random_row]
    set key [tm_key $row]
    set have [dict exists $::tm_model $key]
    switch [tm_pick {put insert update update del}] {
        put {
            dict set ::tm_model $key $row
            dict set ::tm_ver $key [incr ::tm_v]
            tm_expect $fd "tput t [tm_row_line $row]" "STORED $::tm_v\r\n" tput
        }
        insert {
            if {$have} { tm_expect $fd "tinsert t [tm_row_line $row]" "NOT_STORED\r\n" tinsert; return }
            dict set ::tm_model $key $row
            dict set ::tm_ver $key [incr ::tm_v]
            tm_expect $fd "tinsert t [tm_row_line $row]" "STORED $::tm_v\r\n" tinsert
        }
        update {
            set line "tupdate t k1=[t_tok [lindex $key 0]] k2=[lindex $key 1]"
            set changed {}
            foreach f {a b c} { if {rand() < 0.5} { dict set changed $f [dict get $row $f]; append line " $f=[t_tok [dict get $row $f]]" } }
            set ver {}
            if {rand() < 0.3} { set ver [expr {$have && rand() < 0.5 ? [dict get $::tm_ver $key] : 999999}]; append line " ver=$ver" }
            if {!$have} { tm_expect $fd $line "NOT_FOUND\r\n" tupdate; return }
            if {$ver ne "" && $ver != [dict get $::tm_ver $key]} { tm_expect $fd $line "EXISTS\r\n" tupdate; return }
            dict set ::tm_model $key [dict merge [dict get $::tm_model $key] $changed]
            dict set ::tm_ver $key [incr ::tm_v]
            tm_expect $fd $line "STORED $::tm_v\r\n" tupdate
        }
        del {
            set line "tdel t [t_tok [lindex $key 0]] [lindex $key 1]"
            if {!$have} { tm_expect $fd $line "NOT_FOUND\r\n" tdel; return }
            dict unset ::tm_model $key
            incr ::tm_v
            tm_expect $fd $line "DELETED\r\n" tdel
        }
    }
}

proc tm_get {fd} {
    set row [tm_random_row]
    set key [tm_key $row]
    lassign [t_rows $fd "tget t [t_tok [lindex $key 0]] [lindex $key 1]"] rows
    set want {}
    if {[dict exists $::tm_model $key]} { set want [list [list [dict get $::tm_ver $key] [dict get $::tm_model $key]]] }
    if {$rows ne $want} { fail "seed $::tm_seed tget [visible $key]: got [visible $rows], the model [visible $want]" }
}

# Pages of a selection; each page's size random; the rows in order.
proc tm_pages {fd line} {
    set line [string map [list %COUNT% count=[expr {1 + int(rand() * 7)}]] $line]
    lassign [t_rows $fd $line] rows cursor
    if {$rows eq "error"} { fail "seed $::tm_seed '[visible $line]': $cursor" }
    set out [lmap r $rows { lindex $r 1 }]
    while {$cursor != 0} {
        lassign [t_rows $fd "tnext $cursor count=[expr {1 + int(rand() * 7)}]"] rows cursor
        lappend out {*}[lmap r $rows { lindex $r 1 }]
    }
    return $out
}

proc tm_select {fd} {
    set ix [tm_pick [dict keys $::tm_indexes]]
    set parts [dict get $::tm_indexes $ix]
    set neq [expr {int(rand() * ([llength $parts] + 1))}]
    set line "tselect t $ix %COUNT%"
    set conds {}
    for {set i 0} {$i < $neq} {incr i} {
        set f [lindex $parts $i 0]
        set v [tm_pick [dict get $::tm_domain $f]]
        append line " eq=[t_tok $v]"
        lappend conds [list eq $f $v]
    }
    if {$neq < [llength $parts]} {
        set f [lindex $parts $neq 0]
        set vals [lsearch -all -inline -not -exact [dict get $::tm_domain $f] ~null~]
        foreach side {lo hi} {
            if {rand() < 0.4} {
                set op [tm_pick [expr {$side eq "lo" ? {ge gt} : {le lt}}]]
                set v [tm_pick $vals]
                append line " $op=[t_tok $v]"
                lappend conds [list $op $f $v]
            }
        }
    }
    set desc [expr {rand() < 0.5}]
    if {$desc} { append line " desc" }
    set want {}
    foreach row [tm_rows_sorted $parts] {
        set ok 1
        foreach c $conds {
            lassign $c op f v
            set x [dict get $row $f]
            if {$op eq "eq"} { set ok [expr {$ok && $x eq $v}]; continue }
            if {$x eq "~null~"} { set ok 0; break }
            set k [tm_cmp $f $x $v]
            set ok [expr {$ok && ($op eq "ge" ? $k >= 0 : $op eq "gt" ? $k > 0 : $op eq "le" ? $k <= 0 : $k < 0)}]
        }
        if {$ok} { lappend want $row }
    }
    if {$desc} { set want [lreverse $want] }
    if {rand() < 0.2} {
        # nocursor: the first page only
        set n [expr {1 + int(rand() * 7)}]
        set line [string map [list %COUNT% "count=$n nocursor"] $line]
        lassign [t_rows $fd $line] rows cursor
        set got [lmap r $rows { lindex $r 1 }]
        set want [lrange $want 0 [expr {$n - 1}]]
        if {$cursor != 0 || $got ne $want} { fail "seed $::tm_seed '[visible $line]': got [visible $got] $cursor, the model [visible $want]" }
        return
    }
    set got [tm_pages $fd $line]
    if {$got ne $want} { fail "seed $::tm_seed '[visible $line]': got [visible $got], the model [visible $want]" }
}

proc tm_scan {fd} {
    set p [tm_pred 0]
    set line "tscan t %COUNT% where [tm_render $p]"
    set want {}
    foreach row [tm_rows_sorted {}] { if {[tm_eval $p $row]} { lappend want $row } }
    set got [tm_pages $fd $line]
    if {$got ne $want} { fail "seed $::tm_seed '[visible $line]': got [visible $got], the model [visible $want]" }
}

start_server {tags {table mcds-only}} {
    foreach seed {1 2 3} {
        test "a random workload against the model (seed $seed)" {
            set ::tm_seed $seed
            expr {srand($seed)}
            set fd [mc_connect]
            mc_exchange $fd "tdrop t\r\n"
            assert_equal [mc_exchange $fd "tcreate t k1:bytes,k2:int,a:int,b:bytes,c:int key=k1,k2 index=ab:a+b:desc index=bc:b:nullslast+c index=cd:c:desc:nullslast+k1\r\n"] "CREATED\r\n"
            set ::tm_model [dict create]
            set ::tm_ver [dict create]
            set ::tm_v 0
            for {set step 0} {$step < 1500} {incr step} {
                set r [expr {rand()}]
                if {$r < 0.55} { tm_write $fd } elseif {$r < 0.65} { tm_get $fd } elseif {$r < 0.9} { tm_select $fd } else { tm_scan $fd }
            }
            assert_equal [mc_stat $fd table_rows] [dict size $::tm_model]
            mc_close $fd
            expr {[dict size $::tm_model] > 10}
        } 1
    }
}
