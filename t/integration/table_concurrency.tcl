# Tables under concurrency (doc/protocol.md, "What a selection guarantees
# while rows change under it"): 16 OS processes write rows of one table
# while this process runs selections through an index and predicate scans
# page after page. Every page's rows satisfy the selection and come in the
# index's order, across pages too; once the writers are done the table
# equals their models. An index added to a table of 100,000 rows answers at
# once and is built in steps while other clients are served. Bounded in
# operations and time (t/helpers/table_worker.tcl).

source [file join [srcdir] t support table.tcl]
set ::tc_worker [file join [srcdir] t helpers table_worker.tcl]

# -1, 0, 1: entry order of the index gv (g, then v desc NULLS LAST, then id).
proc tc_cmp {x y} {
    foreach {a b} [list [dict get $x g] [dict get $y g]] {}
    if {$a != $b} { return [expr {$a < $b ? -1 : 1}] }
    set a [dict get $x v]
    set b [dict get $y v]
    if {$a ne $b} {
        if {$a eq "~null~"} { return 1 }
        if {$b eq "~null~"} { return -1 }
        if {$a != $b} { return [expr {$a > $b ? -1 : 1}] }
    }
    set a [dict get $x id]
    set b [dict get $y id]
    expr {$a < $b ? -1 : $a > $b ? 1 : 0}
}

start_server {tags {table concurrency mcds-only}} {
    set fd [mc_connect]
    mc_exchange $fd "tcreate cc id:int,g:int,v:int key=id index=gv:g+v:desc:nullslast\r\n"

    test {16 writers x 1500 writes while selections page through an index: each page in order and matching} {
        set hs {}
        for {set w 0} {$w < 16} {incr w} {
            lappend hs [exec_bg [info nameofexecutable] $::tc_worker [srcdir] [srv port] [expr {100 + $w}] $w 1500 120]
        }
        set selections 0
        set deadline [expr {[clock milliseconds] + 60000}]
        while 1 {
            update
            set running [llength [lmap h $hs { if {$::bg($h,done) ne "0"} continue; set h }]]
            if {($running == 0 && $selections >= 5) || [clock milliseconds] > $deadline} break
            incr selections
            set g [expr {int(rand() * 4)}]
            set lo [expr {int(rand() * 60)}]
            set prev {}
            lassign [t_rows $fd "tselect cc gv eq=$g le=[expr {$lo + 40}] count=[expr {1 + int(rand() * 9)}]"] rows cur
            while 1 {
                foreach r $rows {
                    set row [lindex $r 1]
                    if {[dict get $row g] != $g || [dict get $row v] eq "~null~" || [dict get $row v] > $lo + 40} {
                        fail "row [visible $row] does not match g=$g v<=[expr {$lo + 40}]"
                    }
                    if {$prev ne "" && [tc_cmp $prev $row] >= 0} { fail "out of order: [visible $prev] then [visible $row]" }
                    set prev $row
                }
                if {$cur == 0} break
                lassign [t_rows $fd "tnext $cur count=[expr {1 + int(rand() * 9)}]"] rows cur
            }
            set prev {}
            lassign [t_rows $fd "tscan cc count=7 where v >= $lo and not g = 1"] rows cur
            while 1 {
                foreach r $rows {
                    set row [lindex $r 1]
                    if {[dict get $row g] == 1 || [dict get $row v] eq "~null~" || [dict get $row v] < $lo} {
                        fail "scan row [visible $row] does not match"
                    }
                    if {$prev ne "" && [dict get $prev id] >= [dict get $row id]} { fail "scan out of order" }
                    set prev $row
                }
                if {$cur == 0} break
                lassign [t_rows $fd "tnext $cur count=7"] rows cur
            }
        }
        set want {}
        foreach h $hs {
            set out [wait_bg $h 150]
            if {![regexp {ok\n?$} $out]} { fail "worker output: [visible [string range $out end-300 end]]" }
            foreach line [split $out \n] {
                if {[regexp {^R (\d+) (\d+) (\S+)$} $line -> id g v]} {
                    lappend want [list id $id g $g v [expr {$v eq "null" ? "~null~" : $v}]]
                }
            }
        }
        set want [lsort -command tc_cmp $want]
        assert_equal [t_all $fd "tselect cc gv count=1000"] $want
        assert_equal [t_all $fd "tscan cc count=1000"] [lsort -command {apply {{x y} { expr {[dict get $x id] - [dict get $y id]} }}} $want]
        verbose "$selections selections and scans during the writes"
        expr {$selections >= 5}
    } 1

    test {an index added to 100,000 rows answers at once; other clients are served while it is built} {
        mc_exchange $fd "tcreate big id:int,k:int key=id\r\n"
        for {set i 0} {$i < 100000} {incr i 1000} {
            set batch {}
            for {set j $i} {$j < $i + 1000} {incr j} { append batch "tput big id=$j k=[expr {$j % 97}] noreply\r\n" }
            mc_send $fd $batch
        }
        mc_exchange $fd ""
        set other [mc_connect]
        mc_send $fd "tindex big byk k\r\n"
        assert_equal [mc_readline $fd] OK
        set during [mc_exchange $other "tinfo big\r\ntget big 5 fields=k\r\ntselect big byk\r\n"]
        assert_match "*INDEX byk k building *ROW 6 1\r\nF k 1\r\n5\r\nEND\r\nCLIENT_ERROR index is being built\r\n" $during
        wait_for {[string match "*byk k ready 100000*" [mc_exchange $other "tinfo big\r\n"]]} 200 50
        mc_close $other
        llength [t_all $fd "tselect big byk eq=5 count=1000 fields=id"]
    } [llength [lmap i [t_seq 100000] { if {$i % 97 == 5} { set i } else continue }]]
}
