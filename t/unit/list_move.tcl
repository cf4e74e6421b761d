# lmove (and its waiting form) and lmpop (doc/protocol.md, "6. Lists"):
# every reply and error the page gives,
# malformed and hostile input, maxlen and memory limits, waits woken by
# pushes, and counts: every element that goes in comes out exactly once.

# lm_move fd src dst se de -> the reply of one lmove.
proc lm_move {fd src dst se de {tail {}}} {
    mc_exchange $fd "lmove $src $dst $se $de$tail\r\n"
}

# l_parse_all key bytes -> the values of every VALUE line of several
# answers (each ending in END).
proc l_parse_all {key bytes} {
    set out {}
    foreach {- n v} [regexp -all -inline "VALUE [regsub -all {\W} $key {\\&}] 0 (\\d+)\r\n(\[^\r\]*)\r\n" $bytes] {
        lappend out $v
    }
    return $out
}

# mc_read_answers fd n -> the bytes of n answers that each end in END (or
# are one other line).
proc mc_read_answers {fd n} {
    set out {}
    for {set i 0} {$i < $n} {} {
        set line [mc_readline $fd]
        if {[string match "VALUE *" $line]} {
            set len [lindex $line 3]
            append out "$line\r\n[mc_read_bytes $fd [expr {$len + 2}]]"
            continue
        }
        append out "$line\r\n"
        incr i
    }
    return $out
}

# mc_read_ends fd n: reads n answers; returns how many were read.
proc mc_read_ends {fd n} {
    mc_read_answers $fd $n
    return $n
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {lmove: the four pairs of ends; the answer names the destination} {
        l_push $fd rpush m1 {a b c d}
        set r {}
        lappend r [lm_move $fd m1 m2 left left] [lm_move $fd m1 m2 left right] \
            [lm_move $fd m1 m2 right left] [lm_move $fd m1 m2 right right]
        lappend r [l_all $fd m1] [l_all $fd m2]
    } [list [l_vals m2 a] [l_vals m2 b] [l_vals m2 d] [l_vals m2 c] {} {d a b c}]

    test {lmove: a list onto itself rotates it (either way), even at its maxlen} {
        mc_exchange $fd "lcreate rot maxlen=3\r\n"
        l_push $fd rpush rot {1 2 3}
        assert_equal [lm_move $fd rot rot left right] [l_vals rot 1]
        assert_equal [l_all $fd rot] {2 3 1}
        assert_equal [lm_move $fd rot rot right left] [l_vals rot 1]
        assert_equal [lm_move $fd rot rot left left] [l_vals rot 1]
        assert_equal [lm_move $fd rot rot right right] [l_vals rot 3]
        l_all $fd rot
    } {1 2 3}

    test {lmove: an empty or missing source answers END and creates nothing} {
        mc_exchange $fd "lcreate empty\r\n"
        list [lm_move $fd nosuch d1 left left] [lm_move $fd empty d1 left right] \
            [mc_exchange $fd "llen d1\r\nllen nosuch\r\n"]
    } [list "END\r\n" "END\r\n" "NOT_FOUND\r\nNOT_FOUND\r\n"]

    test {lmove: a missing destination is created; an existing one keeps its options} {
        l_push $fd rpush s3 {x y}
        mc_exchange $fd "lcreate d3 maxlen=1\r\n"
        list [lm_move $fd s3 new3 left left] [mc_exchange $fd "llen new3\r\n"] \
            [lm_move $fd s3 d3 left left] [l_push $fd rpush d3 {z}]
    } [list [l_vals new3 x] "1\r\n" [l_vals d3 y] "NOT_STORED\r\n"]

    test {lmove: a destination at its maxlen answers NOT_STORED; the element stays in the source} {
        mc_exchange $fd "lcreate full maxlen=2\r\n"
        l_push $fd rpush full {f1 f2}
        l_push $fd rpush src4 {e1 e2}
        list [lm_move $fd src4 full left right] [l_all $fd src4] [l_all $fd full]
    } [list "NOT_STORED\r\n" {e1 e2} {f1 f2}]

    test {lmove: either key of another type is refused, nothing moves} {
        mc_set $fd str v
        mc_exchange $fd "qpush q1 0 0 1\r\nm\r\n"
        l_push $fd rpush src5 {keep}
        list [lm_move $fd str src5 left left] [lm_move $fd src5 str left left] \
            [lm_move $fd src5 q1 left left] [lm_move $fd q1 src5 left left] [l_all $fd src5] \
            [lm_move $fd nosuch str left left]
    } [list {*}[lrepeat 4 "CLIENT_ERROR key holds another type of value\r\n"] {keep} "END\r\n"]

    test {lmove: errors of the line} {
        set k [string repeat k 251]
        mc_exchange $fd [string cat "lmove a b left\r\n" "lmove a b left right wait=1 x\r\n" \
                             "lmove a b up right\r\n" "lmove a b left LEFT\r\n" \
                             "lmove a b left right wait=x\r\n" "lmove a b left right wait=-1\r\n" \
                             "lmove a b left right count=2\r\n" "lmove $k b left right\r\n" \
                             "lmove a $k left right\r\n" "lmove a b left right noreply\r\n"]
    } [string cat "ERROR\r\nERROR\r\n" [string repeat "CLIENT_ERROR expected left or right\r\n" 2] \
           [string repeat "CLIENT_ERROR bad value for wait\r\n" 2] "CLIENT_ERROR unknown option count\r\n" \
           [string repeat "CLIENT_ERROR key too long\r\n" 2] "CLIENT_ERROR unknown option noreply\r\n"]

    test {lmove: every element moved exactly once, as many times as it takes} {
        mc_exchange $fd "delete cnt1\r\ndelete cnt2\r\n"
        set all {}
        for {set i 0} {$i < 300} {incr i} { lappend all "e$i" }
        for {set i 0} {$i < 300} {incr i 50} { l_push $fd rpush cnt1 [lrange $all $i [expr {$i + 49}]] }
        set req {}
        for {set i 0} {$i < 310} {incr i} { append req "lmove cnt1 cnt2 right left\r\n" }
        set r [mc_exchange $fd $req]
        set got [l_parse_all cnt2 $r]
        list [llength $got] [expr {$got eq [lreverse $all]}] [expr {[l_all $fd cnt2] eq $all}] \
            [l_all $fd cnt1] [regexp -all {END\r\n} $r]
    } {300 1 1 {} 310}

    test {help lmove, lmpop} {
        set r {}
        foreach v {lmove lmpop} {
            lappend r [string match "HELP $v *$v <*" [string trim [mc_exchange $fd "help $v\r\n"]]]
        }
        set r
    } {1 1}
}

# Two connections moving between the same two lists in opposite
# directions at once, and several moving out of one list: the lists' locks
# are taken in one order, so nothing deadlocks, and every element is in
# exactly one list at the end.
start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {two clients moving A to B and B to A at once: no deadlock, every element kept once} {
        set all {}
        for {set i 0} {$i < 200} {incr i} { lappend all "a$i" }
        l_push $fd rpush A [lrange $all 0 63]
        l_push $fd rpush A [lrange $all 64 127]
        l_push $fd rpush B [lrange $all 128 191]
        l_push $fd rpush B [lrange $all 192 199]
        set c1 [mc_connect]
        set c2 [mc_connect]
        set r1 {}
        set r2 {}
        for {set i 0} {$i < 2000} {incr i} {
            append r1 "lmove A B left right\r\n"
            append r2 "lmove B A [expr {$i % 2 ? {left} : {right}}] left\r\n"
        }
        mc_send_bg $c1 $r1
        mc_send_bg $c2 $r2
        set e1 [mc_read_ends $c1 2000]
        set e2 [mc_read_ends $c2 2000]
        set both [concat [l_all $fd A] [l_all $fd B]]
        list $e1 $e2 [expr {[lsort $both] eq [lsort $all]}] [mc_stat $fd list_elements]
    } {2000 2000 1 200}

    test {four clients moving out of one list: each element answered to exactly one of them} {
        set all {}
        for {set i 0} {$i < 1000} {incr i} { lappend all [format m%04d $i] }
        for {set i 0} {$i < 1000} {incr i 50} { l_push $fd rpush M [lrange $all $i [expr {$i + 49}]] }
        set cs {}
        foreach k {1 2 3 4} {
            set c [mc_connect]
            mc_send_bg $c [string repeat "lmove M N$k left right\r\n" 300]
            lappend cs $c
        }
        set got {}
        set k 0
        foreach c $cs {
            incr k
            set r [mc_read_answers $c 300]
            lappend got {*}[l_parse_all N$k $r]
            assert_equal [l_parse_all N$k $r] [l_all $fd N$k]
        }
        list [llength $got] [expr {[lsort $got] eq [lsort $all]}] [mc_exchange $fd "llen M\r\n"]
    } [list 1000 1 "0\r\n"]
}

# Waiting moves: woken by a push on any connection, in their turn among
# the source's waiters, exactly once each.
start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {a waiting lmove is woken by a push: the element moves, the answer names the destination} {
        set w [mc_connect]
        mc_send $w "lmove wq wd left right wait=100\r\n"
        l_waiters $fd 1
        mc_no_reply $w 100
        assert_equal [mc_exchange $fd "rpush wq 1 1\r\na\r\nb\r\n"] "2\r\n"
        assert_equal [mc_exchange $w ""] [l_vals wd a]
        list [l_all $fd wq] [l_all $fd wd] [mc_stat $fd list_waiters]
    } {b a 0}

    test {waiting moves and pops are served in arrival order, each exactly once} {
        set ws {}
        foreach line {"lmove o1 od1 left left wait=100" "lpop o1 2 wait=100" "lmove o1 od2 right left wait=100"
                      "lmove o1 o1 left right wait=100"} {
            set w [mc_connect]
            mc_send $w "$line\r\n"
            lappend ws $w
            l_waiters $fd [llength $ws]
        }
        assert_equal [mc_exchange $fd "rpush o1 1 1 1 1 1\r\n1\r\n2\r\n3\r\n4\r\n5\r\n"] "5\r\n"
        set r {}
        foreach w $ws { lappend r [mc_exchange $w ""] }
        lappend r [l_all $fd o1] [l_all $fd od1] [l_all $fd od2]
    } [list [l_vals od1 1] [l_vals o1 {2 3}] [l_vals od2 5] [l_vals o1 4] {4} {1} {5}]

    test {more waiting moves than elements: as many served as elements came, the rest still wait} {
        set ws {}
        for {set i 0} {$i < 5} {incr i} {
            set w [mc_connect]
            mc_send $w "lmove x1 xd left right wait=100\r\n"
            lappend ws $w
            l_waiters $fd [llength $ws]
        }
        assert_equal [mc_exchange $fd "rpush x1 1 1 1\r\na\r\nb\r\nc\r\n"] "3\r\n"
        set got {}
        foreach w [lrange $ws 0 2] { lappend got {*}[l_parse xd [mc_exchange $w ""]] }
        assert_equal [mc_stat $fd list_waiters] 2
        assert_equal [mc_exchange $fd "rpush x1 1 1 1\r\nd\r\ne\r\nf\r\n"] "3\r\n"
        foreach w [lrange $ws 3 4] { lappend got {*}[l_parse xd [mc_exchange $w ""]] }
        list $got [l_all $fd xd] [l_all $fd x1] [mc_stat $fd list_waiters]
    } {{a b c d e} {a b c d e} f 0}

    test {a chain of waiting moves: A to B, B to C; one push to A ends in C} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lmove cA cB left left wait=100\r\n"
        mc_send $w2 "lmove cB cC left left wait=100\r\n"
        l_waiters $fd 2
        assert_equal [mc_exchange $fd "rpush cA 1\r\nq\r\n"] "1\r\n"
        list [mc_exchange $w1 ""] [mc_exchange $w2 ""] [mc_exchange $fd "llen cA\r\nllen cB\r\nllen cC\r\n"]
    } [list [l_vals cB q] [l_vals cC q] "0\r\n0\r\n1\r\n"]

    test {waiting moves between two lists both ways: a push to each moves both} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lmove pA pB left left wait=100\r\n"
        mc_send $w2 "lmove pB pA left left wait=100\r\n"
        l_waiters $fd 2
        mc_exchange $fd "rpush pA 1\r\n1\r\nrpush pB 1\r\n2\r\n"
        set a [mc_exchange $w1 ""]
        set b [mc_exchange $w2 ""]
        list [lsort [concat [l_all $fd pA] [l_all $fd pB]]] [string match "VALUE pB 0 1*" $a] \
            [string match "VALUE pA 0 1*" $b]
    } {{1 2} 1 1}

    test {a waiting lmove that runs out answers END; the lists it made stay, empty} {
        set w [mc_connect]
        mc_send $w "lmove t1 t2 left left wait=0.2\r\nllen t1\r\nllen t2\r\n"
        list [mc_readline $w] [mc_readline $w] [mc_readline $w]
    } {END 0 0}

    test {a waiting lmove ends with END when its source is deleted or flushed} {
        set w [mc_connect]
        mc_send $w "lmove ds dd left left wait=100\r\n"
        l_waiters $fd 1
        mc_exchange $fd "delete ds\r\n"
        mc_exchange $w ""
    } "END\r\n"

    test {destination deleted while waiting: END, and the element stays in the source} {
        set w [mc_connect]
        mc_send $w "lmove gs gd left left wait=100\r\n"
        l_waiters $fd 1
        assert_equal [mc_exchange $fd "delete gd\r\n"] "DELETED\r\n"
        assert_equal [mc_exchange $fd "rpush gs 1\r\nk\r\n"] "1\r\n"
        list [mc_exchange $w ""] [l_all $fd gs] [mc_exchange $fd "llen gd\r\n"]
    } [list "END\r\n" k "NOT_FOUND\r\n"]

    test {destination full when the element comes: NOT_STORED; the element goes to the next waiter} {
        mc_exchange $fd "lcreate fd1 maxlen=1\r\n"
        l_push $fd rpush fd1 {full}
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lmove fs fd1 left left wait=100\r\n"
        l_waiters $fd 1
        mc_send $w2 "lpop fs wait=100\r\n"
        l_waiters $fd 2
        assert_equal [mc_exchange $fd "rpush fs 1\r\nv\r\n"] "1\r\n"
        list [mc_exchange $w1 ""] [mc_exchange $w2 ""] [l_all $fd fd1] [mc_stat $fd list_waiters]
    } [list "NOT_STORED\r\n" [l_vals fs v] full 0]

    test {a waiting move onto its own list rotates once the element comes} {
        set w [mc_connect]
        mc_send $w "lmove r1 r1 left right wait=100\r\n"
        l_waiters $fd 1
        assert_equal [mc_exchange $fd "rpush r1 1 1\r\n1\r\n2\r\n"] "2\r\n"
        list [mc_exchange $w ""] [l_all $fd r1]
    } [list [l_vals r1 1] {2 1}]

    test {a client that hangs up while its move waits loses nothing} {
        set w [mc_connect]
        mc_send $w "lmove h1 h2 left left wait=100\r\n"
        l_waiters $fd 1
        mc_close $w
        mc_exchange $fd "rpush h1 1\r\nz\r\n"
        wait_for {[mc_stat $fd list_waiters] == 0} 100 50
        list [lsort [concat [l_all $fd h1] [l_all $fd h2]]]
    } {z}

    test {a pop waiting behind a timed-out move is served by the next push} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lmove tb tbd left left wait=0.3\r\n"
        l_waiters $fd 1
        mc_send $w2 "lpop tb wait=100\r\n"
        l_waiters $fd 2
        assert_equal [mc_readline $w1] END
        l_waiters $fd 1
        mc_exchange $fd "rpush tb 1\r\ny\r\n"
        mc_exchange $w2 ""
    } [l_vals tb y]

    test {commands pipelined behind a waiting move are answered after it} {
        set w [mc_connect]
        mc_send $w "lmove pp ppd right left wait=100\r\nllen ppd\r\n"
        l_waiters $fd 1
        mc_exchange $fd "rpush pp 1\r\nw\r\n"
        list [mc_readline $w] [mc_readline $w] [mc_readline $w] [mc_readline $w]
    } {{VALUE ppd 0 1} w END 1}

    test {a ring of waiting moves (A to B, B to C, C to A) fed from two connections: no deadlock, nothing lost} {
        set ws {}
        foreach {src dst} {rgA rgB rgB rgC rgC rgA} {
            for {set i 0} {$i < 10} {incr i} {
                set w [mc_connect]
                mc_send $w "lmove $src $dst left right wait=100\r\n"
                lappend ws $w
            }
        }
        l_waiters $fd 30
        set p1 [mc_connect]
        set p2 [mc_connect]
        set a {}
        set b {}
        set all {}
        for {set i 0} {$i < 20} {incr i} {
            append a "rpush [lindex {rgA rgB rgC} [expr {$i % 3}]] 3\r\n[format x%02d $i]\r\n"
            append b "lpush [lindex {rgC rgA rgB} [expr {$i % 3}]] 3\r\n[format y%02d $i]\r\n"
            lappend all [format x%02d $i] [format y%02d $i]
        }
        mc_send_bg $p1 $a
        mc_send_bg $p2 $b
        mc_read_answers $p1 20
        mc_read_answers $p2 20
        set moved 0
        foreach w $ws {
            set r [mc_exchange $w ""]
            incr moved [regexp -all {VALUE rg[ABC] 0 3} $r]
        }
        list $moved [expr {[lsort [concat [l_all $fd rgA] [l_all $fd rgB] [l_all $fd rgC]]] eq [lsort $all]}] \
            [mc_stat $fd list_waiters]
    } {30 1 0}

    test {twenty waiting moves and twenty pushes racing: each element moved exactly once} {
        set ws {}
        for {set i 0} {$i < 20} {incr i} {
            set w [mc_connect]
            mc_send $w "lmove rc rcd left right wait=100\r\n"
            lappend ws $w
        }
        l_waiters $fd 20
        set p1 [mc_connect]
        set p2 [mc_connect]
        set a {}
        set b {}
        for {set i 0} {$i < 15} {incr i} {
            append a "rpush rc 3\r\n[format a%02d $i]\r\n"
            append b "lpush rc 3\r\n[format b%02d $i]\r\n"
        }
        mc_send_bg $p1 $a
        mc_send_bg $p2 $b
        mc_read_answers $p1 15
        mc_read_answers $p2 15
        set got {}
        foreach w $ws { lappend got {*}[l_parse rcd [mc_exchange $w ""]] }
        set all {}
        for {set i 0} {$i < 15} {incr i} { lappend all [format a%02d $i] [format b%02d $i] }
        assert_equal [lsort $got] [lsort [l_all $fd rcd]]
        list [llength $got] [expr {[lsort [concat [l_all $fd rcd] [l_all $fd rc]]] eq [lsort $all]}] \
            [llength [l_all $fd rc]]
    } {20 1 10}
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {lmpop: the first list in the order given that has elements, its key named} {
        l_push $fd rpush mp2 {a b c}
        l_push $fd rpush mp3 {x}
        mc_exchange $fd "lcreate mp1\r\n"
        list [mc_exchange $fd "lmpop mp0 mp1 mp2 mp3 left\r\n"] \
            [mc_exchange $fd "lmpop mp0 mp1 mp2 mp3 right count=5\r\n"] \
            [mc_exchange $fd "lmpop mp0 mp1 mp2 mp3 left count=5\r\n"] \
            [mc_exchange $fd "lmpop mp0 mp1 mp2 mp3 left\r\n"] [mc_exchange $fd "llen mp0\r\n"]
    } [list [l_vals mp2 a] [l_vals mp2 {c b}] [l_vals mp3 x] "END\r\n" "NOT_FOUND\r\n"]

    test {lmpop: keys named left or right, options in either order} {
        l_push $fd rpush left {l1 l2 l3}
        list [mc_exchange $fd "lmpop right left right wait=1 count=2\r\n"] \
            [mc_exchange $fd "lmpop left left\r\n"]
    } [list [l_vals left {l3 l2}] [l_vals left l1]]

    test {lmpop: a key of another type is refused and nothing is popped} {
        l_push $fd rpush mt1 {keep}
        mc_set $fd mtstr v
        list [mc_exchange $fd "lmpop mt1 mtstr left\r\n"] [l_all $fd mt1]
    } [list "CLIENT_ERROR key holds another type of value\r\n" keep]

    test {lmpop: 64 keys are fine, 65 too many} {
        set keys {}
        for {set i 0} {$i < 64} {incr i} { lappend keys k$i }
        l_push $fd rpush k63 {last}
        list [mc_exchange $fd "lmpop [join $keys { }] left\r\n"] \
            [mc_exchange $fd "lmpop [join $keys { }] k64 left\r\n"] \
            [mc_exchange $fd "lmpop [join $keys { }] [join $keys { }] left count=1 wait=1\r\n"]
    } [list [l_vals k63 last] "CLIENT_ERROR too many keys\r\n" "CLIENT_ERROR too many keys\r\n"]

    test {lmpop: errors of the line} {
        set k [string repeat k 251]
        mc_exchange $fd [string cat "lmpop\r\n" "lmpop a\r\n" "lmpop left\r\n" "lmpop a b\r\n" \
                             "lmpop a left count=0\r\n" "lmpop a left count=1001\r\n" \
                             "lmpop a left wait=x\r\n" "lmpop a left lease=1\r\n" "lmpop a left b\r\n" \
                             "lmpop $k left\r\n"]
    } [string cat "ERROR\r\nERROR\r\nERROR\r\nCLIENT_ERROR expected left or right\r\n" \
           [string repeat "CLIENT_ERROR count must be 1..1000\r\n" 2] "CLIENT_ERROR bad value for wait\r\n" \
           "CLIENT_ERROR unknown option lease\r\n" "CLIENT_ERROR unknown option b\r\n" \
           "CLIENT_ERROR key too long\r\n"]

    test {lmpop wait=: woken by a push to any of its lists, served by that one alone} {
        set w [mc_connect]
        mc_send $w "lmpop wa wb wc right count=2 wait=100\r\n"
        l_waiters $fd 3
        assert_equal [mc_exchange $fd "rpush wb 1 1 1\r\n1\r\n2\r\n3\r\n"] "3\r\n"
        assert_equal [mc_exchange $w ""] [l_vals wb {3 2}]
        l_waiters $fd 0
        assert_equal [mc_exchange $fd "rpush wa 1\r\n9\r\n"] "1\r\n"
        list [l_all $fd wa] [l_all $fd wb] [l_all $fd wc]
    } {9 1 {}}

    test {lmpop wait=: one wait is served once even when two of its lists get elements at once} {
        set got {}
        for {set round 0} {$round < 20} {incr round} {
            set w [mc_connect]
            mc_send $w "lmpop ra$round rb$round left wait=100\r\n"
            l_waiters $fd 2
            set p1 [mc_connect]
            set p2 [mc_connect]
            mc_send $p1 "rpush ra$round 1\r\nA\r\n"
            mc_send $p2 "rpush rb$round 1\r\nB\r\n"
            assert_equal [mc_readline $p1] 1
            assert_equal [mc_readline $p2] 1
            set r [mc_exchange $w ""]
            set n [expr {[llength [l_all $fd ra$round]] + [llength [l_all $fd rb$round]]}]
            lappend got [expr {[regexp -all VALUE $r] == 1 && $n == 1}]
            mc_close $w
            mc_close $p1
            mc_close $p2
        }
        lsort -unique $got
    } 1

    test {lmpop wait=: time out, a deleted list, a hang-up that loses nothing} {
        set w [mc_connect]
        mc_send $w "lmpop to1 to2 left wait=0.2\r\n"
        assert_equal [mc_readline $w] END
        mc_send $w "lmpop dl1 dl2 left wait=100\r\n"
        l_waiters $fd 2
        mc_exchange $fd "delete dl2\r\n"
        assert_equal [mc_exchange $w ""] "END\r\n"
        l_waiters $fd 0
        mc_send $w "lmpop hg1 hg2 left count=3 wait=100\r\n"
        l_waiters $fd 2
        mc_close $w
        l_waiters $fd 0
        mc_exchange $fd "rpush hg2 1 1\r\na\r\nb\r\n"
        l_all $fd hg2
    } {a b}

    test {lmpop wait=: a list with waiting pops and a multi-list wait serves them in arrival order} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_send $w1 "lmpop ao1 ao2 left wait=100\r\n"
        l_waiters $fd 2
        mc_send $w2 "lpop ao2 wait=100\r\n"
        l_waiters $fd 3
        mc_exchange $fd "rpush ao2 1 1\r\n1\r\n2\r\n"
        list [mc_exchange $w1 ""] [mc_exchange $w2 ""]
    } [list [l_vals ao2 1] [l_vals ao2 2]]
}

# Out of memory: a move that finds no room under -m is refused with
# nothing moved; the element stays in its source.
start_server {tags {list mcds-only} args {-m 2 -M}} {
    set fd [mc_connect]

    test {-M: lmove with no room answers out of memory; nothing is lost or doubled} {
        set v [string repeat y 40000]
        for {set n 0} {$n < 200} {incr n} {
            if {[l_push $fd rpush om1 [list "$n:$v"]] ne "[expr {$n + 1}]\r\n"} break
        }
        # Fill what is left with small elements: less room than a big
        # element needs remains.
        for {set m 0} {$m < 2000} {incr m} {
            if {[l_push $fd rpush om2 [list [string repeat s 2000]]] ne "[expr {$m + 1}]\r\n"} break
        }
        set r [lm_move $fd om1 om2 left right]
        assert_equal $r "SERVER_ERROR out of memory storing object\r\n"
        assert_equal [mc_exchange $fd "llen om1\r\nllen om2\r\n"] "$n\r\n$m\r\n"
        # Room made again: the move goes on, and every element is somewhere once.
        mc_exchange $fd "lpop om1 4\r\n"
        set r2 [lm_move $fd om1 om2 left right]
        list [string match "VALUE om2 0 40002*" $r2] [expr {[llength [l_all $fd om1]] == $n - 5}] \
            [expr {[llength [l_all $fd om2]] == $m + 1}] [lindex [l_all $fd om2] end] [mc_stat $fd evictions]
    } [list 1 1 1 "4:[string repeat y 40000]" 0]
}
