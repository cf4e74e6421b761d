# lpos, lpushx and rpushx (doc/protocol.md, "6. Lists"): every reply and
# error the page gives, malformed and hostile input (a data block is never
# run as a command), a list long enough that lpos builds its value index
# in pieces, and pushes that wake waiting pops and moves.

# lm_lines n -> "<n>\r\n" lines of each number, then END (lpos).
proc lm_lines {args} {
    set out {}
    foreach n $args { append out "$n\r\n" }
    return "${out}END\r\n"
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {lpos: the page's example; rank, count, maxlen} {
        l_push $fd rpush lp {a b a c a b}
        list [mc_exchange $fd [l_blocks "lpos lp 1" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 count=0" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 rank=2" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 rank=-1 count=2" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 rank=-2 count=0" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 maxlen=2 count=0" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 rank=-1 maxlen=2 count=0" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 rank=4" a]] \
            [mc_exchange $fd [l_blocks "lpos lp 1 count=2 rank=1 maxlen=0" b]]
    } [list [lm_lines 0] [lm_lines 0 2 4] [lm_lines 2] [lm_lines 4 2] [lm_lines 2 0] [lm_lines 0] \
           [lm_lines 4] [lm_lines] [lm_lines 1 5]]

    test {lpos: no match END, no list NOT_FOUND, another type refused} {
        mc_set $fd lstr v
        list [mc_exchange $fd [l_blocks "lpos lp 1" z]] [mc_exchange $fd [l_blocks "lpos nolist 1" a]] \
            [mc_exchange $fd [l_blocks "lpos lstr 1" v]] [mc_exchange $fd [l_blocks "lpos lp 0" ""]]
    } [list "END\r\n" "NOT_FOUND\r\n" "CLIENT_ERROR key holds another type of value\r\n" "END\r\n"]

    test {lpos: a bad option is named and its data block skipped, never run} {
        mc_exchange $fd [string cat [l_blocks "lpos lp 9" "flush_all"] [l_blocks "lpos lp 9 rank=0" "flush_all"] \
                             [l_blocks "lpos lp 9 rank=x" "flush_all"] [l_blocks "lpos lp 9 count=1001" "flush_all"] \
                             [l_blocks "lpos lp 9 count=-1" "flush_all"] [l_blocks "lpos lp 9 maxlen=-1" "flush_all"] \
                             [l_blocks "lpos lp 9 size=1" "flush_all"] \
                             [l_blocks "lpos lp 9 rank=1 count=1 maxlen=1 x" "flush_all"] \
                             [l_blocks "lpos lp 9 noreply" "flush_all"] "llen lp\r\n"]
    } [string cat "END\r\n" [string repeat "CLIENT_ERROR bad value for rank\r\n" 2] \
           [string repeat "CLIENT_ERROR bad value for count\r\n" 2] "CLIENT_ERROR bad value for maxlen\r\n" \
           "CLIENT_ERROR unknown option size\r\n" "CLIENT_ERROR too many tokens\r\n" \
           "CLIENT_ERROR unknown option noreply\r\n" "6\r\n"]

    test {lpos: a length that cannot be read closes the connection; no block runs} {
        mc_set $fd keep v
        list [mc_last_reply "lpos lp x\r\nflush_all\r\n"] [mc_last_reply "lpos lp -1\r\nflush_all\r\n"] \
            [mc_last_reply "lpos lp noreply\r\nflush_all\r\n"] \
            [mc_exchange $fd "lpos lp 9 junk\r\nflush_all\r\nllen lp\r\n"] [mc_get $fd keep]
    } [list "CLIENT_ERROR bad length\r\n" "CLIENT_ERROR bad length\r\n" \
           "CLIENT_ERROR noreply must be the last token\r\n" \
           "CLIENT_ERROR unknown option junk\r\n6\r\n" v]

    test {lpos: a data block without its \r\n is a bad data chunk} {
        mc_exchange $fd "lpos lp 1\r\naXY\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\n"

    test {lpos on a list of 200000 elements: the index is built in pieces, positions are right} {
        mc_exchange $fd "delete big\r\n"
        set before [mc_stat $fd list_index_steps]
        for {set i 0} {$i < 200000} {incr i 64} {
            set vals {}
            for {set j $i} {$j < $i + 64} {incr j} { lappend vals [expr {$j % 1000 == 7 ? "hit" : "v$j"}] }
            mc_send $fd "rpush big [join [lmap v $vals {string length $v}] { }]\r\n[join $vals "\r\n"]\r\n"
            mc_readline $fd
        }
        set r [mc_exchange $fd [l_blocks "lpos big 3 count=0" hit]]
        set want {}
        for {set i 7} {$i < 200000} {incr i 1000} { lappend want $i }
        assert_equal $r [lm_lines {*}$want]
        assert_equal [mc_exchange $fd [l_blocks "lpos big 3 rank=-3" hit]] [lm_lines 197007]
        assert_equal [mc_exchange $fd [l_blocks "lpos big 3 rank=-1 maxlen=500" hit]] [lm_lines]
        assert_equal [mc_exchange $fd [l_blocks "lpos big 3 rank=-1 maxlen=993" hit]] [lm_lines 199007]
        assert_equal [mc_exchange $fd [l_blocks "lpos big 7 count=2 rank=-1" v199999]] [lm_lines 199999]
        expr {[mc_stat $fd list_index_steps] > $before}
    } 1
}

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    test {help lpos, lpushx, rpushx} {
        set r {}
        foreach v {lpos lpushx rpushx} {
            lappend r [string match "HELP $v *$v <*" [string trim [mc_exchange $fd "help $v\r\n"]]]
        }
        set r
    } {1 1 1}

    test {lpushx, rpushx: only to a list that exists; NOT_FOUND creates nothing} {
        mc_exchange $fd "lcreate px\r\n"
        list [l_push $fd lpushx nopx {a}] [mc_exchange $fd "llen nopx\r\n"] \
            [l_push $fd rpushx px {a b}] [l_push $fd lpushx px {c d}] [l_all $fd px]
    } [list "NOT_FOUND\r\n" "NOT_FOUND\r\n" "2\r\n" "4\r\n" {d c a b}]

    test {lpushx, rpushx: maxlen, another type, noreply} {
        mc_exchange $fd "lcreate pxm maxlen=2\r\n"
        mc_set $fd pxs v
        list [l_push $fd rpushx pxm {a b c}] [l_push $fd rpushx pxs {a}] \
            [l_push $fd rpushx pxm {a} " noreply"] [l_push $fd rpushx nopx {a} " noreply"] [l_all $fd pxm]
    } [list "NOT_STORED\r\n" "CLIENT_ERROR key holds another type of value\r\n" {} {} a]

    test {lpushx: a bad length closes the connection; 65 values are skipped} {
        mc_set $fd keep v
        list [mc_last_reply "lpushx px 1 zz\r\nflush_all\r\n"] \
            [mc_exchange $fd "rpushx px[string repeat { 1} 65]\r\n[string repeat "q\r\n" 65]llen px\r\n"] \
            [mc_get $fd keep]
    } [list "CLIENT_ERROR bad length\r\n" "ERROR\r\n4\r\n" v]

    test {rpushx wakes a waiting pop and a waiting move} {
        set w1 [mc_connect]
        set w2 [mc_connect]
        mc_exchange $fd "lcreate pw\r\n"
        mc_send $w1 "lpop pw wait=100\r\n"
        l_waiters $fd 1
        mc_send $w2 "lmove pw pwd left left wait=100\r\n"
        l_waiters $fd 2
        list [l_push $fd rpushx pw {1 2}] [mc_exchange $w1 ""] [mc_exchange $w2 ""]
    } [list "2\r\n" [l_vals pw 1] [l_vals pwd 2]]
}
