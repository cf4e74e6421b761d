# Tables (doc/protocol.md, "9. Tables"): every verb with its exact
# replies, every error, NULL ordering, the separator case, descending
# parts, ranges, cursors continued from another connection and expiring,
# background index builds, and -m refusal with nothing lost (persistence:
# t/integration/persist_table.tcl).

source [file join [srcdir] t support table.tcl]

set users_schema "id:int,name:bytes,city:bytes,age:int key=id index=by_city:city+age:desc"

start_server {tags {table mcds-only}} {
    set fd [mc_connect]

    test {tcreate: CREATED, then EXISTS} {
        mc_exchange $fd "tcreate users $users_schema\r\ntcreate users id:int key=id\r\n"
    } "CREATED\r\nEXISTS\r\n"

    test {writes answer STORED with the new version, NOT_STORED, EXISTS, NOT_FOUND, DELETED} {
        mc_exchange $fd [join {
            "tinsert users id=1 name=Alice city=Paris age=34"
            "tinsert users id=2 name=Bob city=Paris age=40"
            "tinsert users id=1 name=X"
            "tput users id=3 name=Carl"
            "tupdate users id=3 age=20 ver=3"
            "tupdate users id=3 age=21 ver=3"
            "tupdate users id=9 age=1"
            "tdel users 3 ver=3"
            "tdel users 3 ver=4"
            "tdel users 3"
            "tinsert users id=3 name=Carl noreply"
            ""
        } "\r\n"]
    } "STORED 1\r\nSTORED 2\r\nNOT_STORED\r\nSTORED 3\r\nSTORED 4\r\nEXISTS\r\nNOT_FOUND\r\nEXISTS\r\nDELETED\r\nNOT_FOUND\r\n"

    test {tget: the row, some fields, a miss} {
        mc_exchange $fd "tget users 1\r\ntget users 1 fields=age,name\r\ntget users 7\r\ntget users 3\r\n"
    } [join {
        "ROW 1 4" "F id 1" 1 "F name 5" Alice "F city 5" Paris "F age 2" 34 END
        "ROW 1 2" "F name 5" Alice "F age 2" 34 END
        END
        "ROW 6 4" "F id 1" 3 "F name 4" Carl "F city null" "F age null" END ""
    } "\r\n"]

    test {tupdate keeps the fields it does not name; tput replaces the whole row} {
        mc_exchange $fd "tupdate users id=1 age=35\r\ntput users id=2 name=Bob\r\ntget users 1 fields=city,age\r\ntget users 2 fields=city\r\n"
    } "STORED 7\r\nSTORED 8\r\nROW 7 2\r\nF city 5\r\nParis\r\nF age 2\r\n35\r\nEND\r\nROW 8 1\r\nF city null\r\nEND\r\n"

    test {values are binary-safe: escapes in, data blocks out; the bytes null} {
        mc_exchange $fd "tput users id=5 name=a%00b%0d%0A%25%20z city=null\r\ntget users 5 fields=name\r\ntput users id=6 name=%6eull city=\r\ntget users 6 fields=name,city\r\ntput users id=7 name=% city=%\r\ntscan users fields=id where name = % and city = %\r\ntdel users 7\r\n"
    } "STORED 9\r\nROW 9 1\r\nF name 8\r\na\0b\r\n% z\r\nEND\r\nSTORED 10\r\nROW 10 2\r\nF name 4\r\nnull\r\nF city 0\r\n\r\nEND\r\nSTORED 11\r\nROW 11 1\r\nF id 1\r\n7\r\nCURSOR 0\r\nEND\r\nDELETED\r\n"

    test {errors of writes and reads, each one line, nothing changed} {
        mc_exchange $fd [join {
            "tinsert users id=10 nope=1"
            "tinsert users id=x"
            "tinsert users id=10 age=1.5"
            "tinsert users id=10 name=a name=b"
            "tinsert users name=a"
            "tinsert users id=null"
            "tinsert users id=10 name=%4"
            "tinsert users id=10 name=%zz"
            "tinsert users id=10 noreply name=a"
            "tupdate users id=1 ver=0"
            "tdel users"
            "tdel users 1 what=1"
            "tget users"
            "tdel users x"
            "tget users 1 fields=nope"
            "tget users 1 bogus"
            "tinsert nosuch id=1"
            "tget nosuch 1"
            "tinsert"
            "tget users 10"
            ""
        } "\r\n"]
    } [join {
        "CLIENT_ERROR no such field nope"
        "CLIENT_ERROR bad value for id"
        "CLIENT_ERROR bad value for age"
        "CLIENT_ERROR bad value for name"
        "CLIENT_ERROR missing key field id"
        "CLIENT_ERROR bad value for id"
        "CLIENT_ERROR bad value for name"
        "CLIENT_ERROR bad value for name"
        "CLIENT_ERROR noreply must be the last token"
        "CLIENT_ERROR bad value for ver"
        "ERROR"
        "CLIENT_ERROR unknown option what"
        "ERROR"
        "CLIENT_ERROR bad value for id"
        "CLIENT_ERROR no such field nope"
        "CLIENT_ERROR unknown option bogus"
        "NOT_FOUND"
        "NOT_FOUND"
        "ERROR"
        "END" ""
    } "\r\n"]

    test {noreply silences a write's errors too} {
        mc_exchange $fd "tinsert users id=1 name=dup noreply\r\ntinsert users id=x noreply\r\n"
    } ""

    test {tcreate errors name the wrong token} {
        mc_exchange $fd [join [list \
            "tcreate t2 a:float key=a" \
            "tcreate t2 a:int,a:int key=a" \
            "tcreate t2 a:int" \
            "tcreate t2 a:int key=b" \
            "tcreate t2 a:int key=a,a" \
            "tcreate t2 a:int key=a index=i:b" \
            "tcreate t2 a:int key=a index=primary:a" \
            "tcreate t2 a:int key=a index=i:a index=i:a" \
            "tcreate t2 a:int key=a index=i:a:up" \
            "tcreate t2 a-b:int key=a-b" \
            "tcreate t2 a:int key=a foo=1" \
            "tcreate [string repeat x 251] a:int key=a" \
            "tcreate t2" \
            ""] "\r\n"]
    } [join {
        "CLIENT_ERROR bad schema a:float"
        "CLIENT_ERROR bad schema a:int,a:int"
        "CLIENT_ERROR bad schema key="
        "CLIENT_ERROR bad schema key=b"
        "CLIENT_ERROR bad schema key=a,a"
        "CLIENT_ERROR bad schema index=i:b"
        "CLIENT_ERROR bad schema index=primary:a"
        "CLIENT_ERROR bad schema index=i:a"
        "CLIENT_ERROR bad schema index=i:a:up"
        "CLIENT_ERROR bad schema a-b:int"
        "CLIENT_ERROR bad schema foo=1"
        "CLIENT_ERROR bad table name"
        "ERROR" ""
    } "\r\n"]

    test {limits: 64 fields, 8 key fields, 16 indexes, 8 parts, 64-byte names, 200 tokens} {
        set f65 [join [lmap i [t_seq 65] { set _ f$i:int }] ,]
        set f64 [join [lmap i [t_seq 64] { set _ f$i:int }] ,]
        set k9 [join [lmap i [t_seq 9] { set _ f$i }] ,]
        set ix16 [join [lmap i [t_seq 16] { set _ index=i$i:f1 }] " "]
        set ix15 [join [lmap i [t_seq 15] { set _ index=i$i:f1 }] " "]
        set p9 [join [lmap i [t_seq 9] { set _ f$i }] +]
        set out [mc_exchange $fd [join [list \
            "tcreate big $f65 key=f0" "tcreate big $f64 key=$k9" "tcreate big $f64 key=f0 $ix16" \
            "tcreate big $f64 key=f0 index=i:$p9" "tcreate big [string repeat a 65]:int key=a" \
            "tcreate big $f64 key=f0 $ix15" "tinsert big [join [lmap i [t_seq 201] { set _ f0=$i }] { }]" \
            "tindex big i99 f2" ""] "\r\n"]]
        regsub -all {CLIENT_ERROR bad schema [^\r]*} $out {BAD} out
        set out
    } "BAD\r\nBAD\r\nBAD\r\nBAD\r\nBAD\r\nCREATED\r\nCLIENT_ERROR too many tokens\r\nCLIENT_ERROR bad index i99\r\n"

    test {NULLs first or last per part, whatever the direction} {
        mc_exchange $fd "tcreate n a:int,b:int key=a index=f:b index=l:b:nullslast index=fd:b:desc index=ld:b:desc:nullslast\r\n"
        foreach {a b} {1 5 2 null 3 -7 4 0 5 null} { mc_exchange $fd "tput n a=$a b=$b\r\n" }
        lmap ix {f l fd ld primary} { t_col [t_all $fd "tselect n $ix fields=a"] a }
    } {{2 5 3 4 1} {3 4 1 2 5} {2 5 1 4 3} {1 4 3 2 5} {1 2 3 4 5}}

    test {separators: (ав, "") and (а, в) are different entries, in the order of the first field} {
        set av [encoding convertto utf-8 ав]
        set a [encoding convertto utf-8 а]
        set v [encoding convertto utf-8 в]
        mc_exchange $fd "tcreate sep id:int,x:bytes,y:bytes key=id index=xy:x+y\r\n"
        mc_exchange $fd "tput sep id=1 x=[t_tok $av] y=\r\ntput sep id=2 x=[t_tok $a] y=[t_tok $v]\r\ntput sep id=3 x=[t_tok $a] y=\r\n"
        list [t_col [t_all $fd "tselect sep xy fields=id"] id] \
            [t_col [t_all $fd "tselect sep xy eq=[t_tok $a] fields=id"] id] \
            [t_col [t_all $fd "tselect sep xy eq=[t_tok $av] eq= fields=id"] id] \
            [t_col [t_all $fd "tselect sep xy eq=[t_tok $a] eq= fields=id"] id]
    } {{3 2 1} {3 2} 1 3}

    test {bytes order: a prefix first, 0x00 inside values, unsigned bytes} {
        mc_exchange $fd "tcreate bo id:int,x:bytes key=id index=x:x\r\n"
        foreach {id x} {1 a 2 a%00 3 a%00%00 4 %ff 5 ab 6 {} 7 a%01} { mc_exchange $fd "tput bo id=$id x=$x\r\n" }
        set asc [t_col [t_all $fd "tselect bo x fields=id"] id]
        list $asc [t_col [t_all $fd "tselect bo x desc fields=id"] id] \
            [t_col [t_all $fd "tselect bo x gt= fields=id"] id] [t_col [t_all $fd "tselect bo x le=% fields=id"] id]
    } {{6 1 2 3 7 5 4} {4 5 7 3 2 1 6} {1 2 3 7 5 4} 6}

    test {ranges: ge gt le lt on an ascending and a descending part, NULL never in a range} {
        mc_exchange $fd "tcreate r id:int,g:int,v:int key=id index=gv:g+v index=gvd:g+v:desc\r\n"
        foreach {id g v} {1 1 10 2 1 20 3 1 30 4 1 null 5 2 10 6 1 25} { mc_exchange $fd "tput r id=$id g=$g v=$v\r\n" }
        set out {}
        foreach ix {gv gvd} {
            foreach opts {{ge=20} {gt=20} {le=25} {lt=25} {ge=20 le=25} {gt=10 lt=30} {} {desc ge=20}} {
                lappend out [t_col [t_all $fd "tselect r $ix eq=1 $opts fields=id"] id]
            }
        }
        set out
    } [list {2 6 3} {6 3} {1 2 6} {1 2} {2 6} {2 6} {4 1 2 6 3} {3 6 2} \
            {3 6 2} {3 6} {6 2 1} {2 1} {6 2} {6 2} {4 3 6 2 1} {2 6 3}]

    test {tselect errors} {
        mc_exchange $fd [join {
            "tselect r nope"
            "tselect r gv eq=1 eq=2 eq=3"
            "tselect r gv eq=1 eq=2 ge=1"
            "tselect r gv ge=1 gt=2"
            "tselect r gv le=1 lt=2"
            "tselect r gv ge=null"
            "tselect r gv ge=1 eq=1"
            "tselect r gv eq=x"
            "tselect r gv eq=1 ge="
            "tselect r gv count=0"
            "tselect r gv count=1001"
            "tselect r gv ttl=3601"
            "tselect r gv fields=zz"
            "tselect r gv frob"
            "tselect nosuch gv"
            "tselect r"
            ""
        } "\r\n"]
    } [join {
        "CLIENT_ERROR no such index nope"
        "CLIENT_ERROR too many eq values"
        "CLIENT_ERROR too many eq values"
        "CLIENT_ERROR bad range"
        "CLIENT_ERROR bad range"
        "CLIENT_ERROR bad range"
        "CLIENT_ERROR bad range"
        "CLIENT_ERROR bad value for g"
        "CLIENT_ERROR bad value for v"
        "CLIENT_ERROR bad value for count"
        "CLIENT_ERROR bad value for count"
        "CLIENT_ERROR bad value for ttl"
        "CLIENT_ERROR no such field zz"
        "CLIENT_ERROR unknown option frob"
        "NOT_FOUND"
        "ERROR" ""
    } "\r\n"]

    test {tscan: comparisons, prefix, IS NULL, AND/OR/NOT, parentheses} {
        set out {}
        foreach p {
            {v >= 20} {v != 10} {not ( v = 10 )} {v is null} {v is not null and g = 1}
            {( g = 2 or v < 15 ) and not id = 1} {id = 1 or id = 2 and v = 30}
        } {
            lappend out [t_col [t_all $fd "tscan r fields=id where $p"] id]
        }
        lappend out [t_col [t_all $fd "tscan bo fields=id where x prefix a%00"] id]
        lappend out [t_col [t_all $fd "tscan bo fields=id where x > a and x < b"] id]
        lappend out [llength [t_all $fd "tscan bo"]]
    } {{2 3 6} {2 3 6} {2 3 4 6} 4 {1 2 3 6} 5 1 {2 3} {2 3 5 7} 7}

    test {tscan errors} {
        mc_exchange $fd [join [list \
            "tscan r where" \
            "tscan r where v" \
            "tscan r where v = " \
            "tscan r where v = x" \
            "tscan r where v prefix 1" \
            "tscan r where zz = 1" \
            "tscan r where ( v = 1" \
            "tscan r where v = 1 )" \
            "tscan r where v = null" \
            "tscan r where v is maybe" \
            "tscan r where [string repeat {( } 17]v = 1[string repeat { )} 17]" \
            "tscan r bogus where v = 1" \
            ""] "\r\n"]
    } [join {
        "CLIENT_ERROR bad predicate end"
        "CLIENT_ERROR bad predicate end"
        "CLIENT_ERROR bad predicate end"
        "CLIENT_ERROR bad predicate x"
        "CLIENT_ERROR bad predicate prefix"
        "CLIENT_ERROR bad predicate zz"
        "CLIENT_ERROR bad predicate end"
        "CLIENT_ERROR bad predicate )"
        "CLIENT_ERROR bad predicate null"
        "CLIENT_ERROR bad predicate maybe"
        "CLIENT_ERROR bad predicate ("
        "CLIENT_ERROR unknown option bogus" ""
    } "\r\n"]

    test {a cursor pages, continues from another connection, closes; tcursors lists it} {
        mc_exchange $fd "tcreate c id:int key=id\r\n"
        for {set i 1} {$i <= 25} {incr i} { mc_send $fd "tput c id=$i noreply\r\n" }
        lassign [t_rows $fd "tselect c primary count=10 fields=id"] rows cur
        set other [mc_connect]
        lassign [t_rows $other "tnext $cur count=10"] rows2 cur2
        assert_equal $cur2 $cur
        assert_match "CURSOR $cur c primary * *\r\n*END\r\n" [mc_exchange $other "tcursors\r\n"]
        lassign [t_rows $fd "tnext $cur"] rows3 cur3
        set ids [lmap r [concat $rows $rows2 $rows3] { dict get [lindex $r 1] id }]
        assert_equal $ids [t_seq 1 25]
        assert_equal $cur3 0
        lassign [t_rows $fd "tselect c primary count=5 desc fields=id"] rows cur
        set out [mc_exchange $other "tnext $cur count=5\r\ntclose $cur\r\ntclose $cur\r\ntnext $cur\r\ntnext x\r\ntnext 5 count=0\r\ntnext 5 foo=1\r\n"]
        mc_close $other
        assert_equal [regsub -all {ROW \d+ \d+\r\nF id \d+\r\n\d+\r\n} $out {}] "CURSOR $cur\r\nEND\r\nDELETED\r\nNOT_FOUND\r\nNOT_FOUND\r\nCLIENT_ERROR bad cursor\r\nCLIENT_ERROR bad value for count\r\nCLIENT_ERROR unknown option foo\r\n"
        lmap r $rows { dict get [lindex $r 1] id }
    } {25 24 23 22 21}

    test {a selection whose last page is exactly full answers CURSOR 0} {
        lindex [t_rows $fd "tselect c primary count=25 fields=id"] 1
    } 0

    test {nocursor: the first page only, no cursor kept} {
        set before [mc_stat $fd table_cursors]
        lassign [t_rows $fd "tselect c primary count=3 desc nocursor fields=id"] rows cur
        lassign [t_rows $fd "tscan c count=2 nocursor fields=id where id > 20"] rows2 cur2
        assert_equal [mc_stat $fd table_cursors] $before
        list [lmap r $rows { dict get [lindex $r 1] id }] $cur [lmap r $rows2 { dict get [lindex $r 1] id }] $cur2
    } {{25 24 23} 0 {21 22} 0}

    test {rows changed during a selection: the unchanged ones come exactly once} {
        lassign [t_rows $fd "tselect c primary count=10 fields=id"] rows cur
        mc_exchange $fd "tdel c 3\r\ntdel c 15\r\ntput c id=100\r\ntput c id=0\r\n"
        set ids [lmap r $rows { dict get [lindex $r 1] id }]
        while {$cur != 0} {
            lassign [t_rows $fd "tnext $cur count=7"] rows cur
            lappend ids {*}[lmap r $rows { dict get [lindex $r 1] id }]
        }
        set ids
    } [concat [t_seq 1 14] [t_seq 16 25] 100]

    test {a cursor expires after its lifetime unused, counted in stats} {
        lassign [t_rows $fd "tselect c primary count=1 ttl=5"] rows cur
        mc_exchange $fd "debugtime 3\r\n"
        lassign [t_rows $fd "tnext $cur count=1"] rows cur2
        assert_equal $cur2 $cur
        mc_exchange $fd "debugtime 6\r\n"
        list [mc_exchange $fd "tnext $cur\r\n"] [mc_stat $fd table_cursors_expired]
    } [list "NOT_FOUND\r\n" 1] debugtime

    test {tinfo, tlist, stats} {
        mc_exchange $fd "tdrop c\r\ntdrop sep\r\ntdrop bo\r\ntdrop r\r\ntdrop n\r\ntdrop big\r\ntdrop c\r\n"
        list [regsub {STAT bytes \d+} [mc_exchange $fd "tinfo users\r\ntlist\r\n"] {STAT bytes B}] \
            [mc_stat $fd tables] [mc_stat $fd table_rows] [mc_stat $fd table_index_entries] \
            [expr {[mc_stat $fd table_bytes] > 0}] [mc_exchange $fd "tinfo nosuch\r\n"]
    } [list [join {
        "FIELD id int key" "FIELD name bytes" "FIELD city bytes" "FIELD age int"
        "INDEX primary id ready 5" "INDEX by_city city+age:desc ready 5"
        "STAT rows 5" "STAT bytes B" "STAT version 12" END "TABLE users 5" END ""
    } "\r\n"] 1 5 10 1 "NOT_FOUND\r\n"]

    test {tindex, tdropindex and their errors} {
        mc_exchange $fd [join {
            "tindex users by_name name:desc" "tindex users by_name name" "tindex users x nope"
            "tindex users primary id" "tdropindex users primary" "tdropindex users nope"
            "tdropindex users by_name" "tindex nosuch i a" ""
        } "\r\n"]
    } [join {
        OK "CLIENT_ERROR bad index by_name" "CLIENT_ERROR bad index nope" "CLIENT_ERROR bad index id"
        "CLIENT_ERROR the primary index cannot be dropped" NOT_FOUND DELETED NOT_FOUND ""
    } "\r\n"]

    test {a cursor through a dropped index or table ends with an empty page} {
        mc_exchange $fd "tindex users by_age age\r\n"
        wait_for {[string match "*by_age age ready*" [mc_exchange $fd "tinfo users\r\n"]]}
        lassign [t_rows $fd "tselect users by_age count=1"] rows cur
        mc_exchange $fd "tdropindex users by_age\r\n"
        set a [mc_exchange $fd "tnext $cur\r\n"]
        lassign [t_rows $fd "tselect users primary count=1"] rows cur
        mc_exchange $fd "tdrop users\r\n"
        list $a [mc_exchange $fd "tnext $cur\r\ntnext $cur\r\n"] [mc_stat $fd tables] [mc_stat $fd table_bytes]
    } [list "CURSOR 0\r\nEND\r\n" "CURSOR 0\r\nEND\r\nNOT_FOUND\r\n" 0 0]

    test {an index added to a populated table is built in the background, then used} {
        mc_exchange $fd "tcreate big id:int,k:int key=id\r\n"
        for {set i 0} {$i < 5000} {incr i} { mc_send $fd "tput big id=$i k=[expr {$i % 7}] noreply\r\n" }
        mc_exchange $fd "tindex big byk k\r\n"
        wait_for {[string match "*byk k ready 5000*" [mc_exchange $fd "tinfo big\r\n"]]}
        mc_exchange $fd "tput big id=5000 k=3\r\ntdel big 3\r\n"
        set got [t_col [t_all $fd "tselect big byk eq=3 count=1000 fields=id"] id]
        set want [lsort -integer [concat [lmap i [t_seq 5000] { if {$i % 7 == 3 && $i != 3} { set i } else continue }] 5000]]
        assert_equal $got $want
        mc_exchange $fd "tdrop big\r\n"
    } "DELETED\r\n"

    test {an error line leaves the connection in step (no table verb reads a data block)} {
        mc_exchange $fd "tinsert nosuch id=1 name=set\r\nset k 0 0 1\r\nx\r\nget k\r\n"
    } "NOT_FOUND\r\nSTORED\r\nVALUE k 0 1\r\nx\r\nEND\r\n"

    test {help lists the table verbs} {
        mc_exchange $fd "help tselect\r\n"
    } "HELP tselect rows through an index: tselect <table> <index> \[eq=\]... \[ge|gt|le|lt=\] \[desc\] \[count=\] \[fields=\] \[ttl=\]\r\nEND\r\n"
    mc_close $fd
}

start_server {args {-m 8} tags {table mcds-only}} {
    test {-m: a write that finds no room is refused, nothing half-applied, the table kept} {
        set fd [mc_connect]
        mc_exchange $fd "tcreate m id:int,v:bytes key=id index=byv:v\r\n"
        set big [string repeat x 4000]
        set stored 0
        for {set i 0} {$i < 10000} {incr i} {
            set r [mc_exchange $fd "tinsert m id=$i v=$big$i\r\n"]
            if {$r ne "STORED [expr {$i + 1}]\r\n"} break
            incr stored
        }
        assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
        assert_true {$stored > 100}
        assert_match "*STAT rows $stored\r\n*" [mc_exchange $fd "tinfo m\r\n"]
        assert_match "*INDEX byv v ready $stored\r\n*" [mc_exchange $fd "tinfo m\r\n"]
        assert_equal [mc_exchange $fd "tget m $i\r\n"] "END\r\n"
        # the refused update leaves the row as it was
        set r [mc_exchange $fd "tupdate m id=0 v=$big${big}y\r\n"]
        assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
        assert_equal [t_col [t_all $fd "tselect m byv eq=${big}0 fields=id"] id] 0
        # deleting rows gives room back
        for {set j 0} {$j < 50} {incr j} { mc_exchange $fd "tdel m $j\r\n" }
        mc_close $fd
        string range [mc_exchange [set fd [mc_connect]] "tinsert m id=$i v=x\r\n"] 0 5
    } "STORED"
}
