# Expiration times: 0 = never, negative = already expired, up to 30 days
# (2592000 s) relative, beyond that an absolute Unix time. Tests that move
# the clock use the debug-only `debugtime <seconds>` verb (tag debugtime).

start_server {tags {expiry}} {
    set fd [mc_connect]

    test {exptime 0 never expires} {
        mc_exchange $fd "set e0 0 0 1\r\nx\r\nget e0\r\n"
    } "STORED\r\nVALUE e0 0 1\r\nx\r\nEND\r\n"

    test {a negative exptime stores, but the item is a miss at once} {
        mc_exchange $fd "set eneg 0 -1 1\r\nx\r\nget eneg\r\nset eneg2 0 -1000 1\r\nx\r\nget eneg2\r\n"
    } "STORED\r\nEND\r\nSTORED\r\nEND\r\n"

    test {a negative exptime on an existing key removes the old value} {
        mc_exchange $fd "set eold 0 0 1\r\nx\r\nset eold 0 -1 1\r\ny\r\nget eold\r\n"
    } "STORED\r\nSTORED\r\nEND\r\n"

    test {exptime 2592000 (30 days) is relative: the item is there} {
        mc_exchange $fd "set e30 0 2592000 1\r\nx\r\nget e30\r\n"
    } "STORED\r\nVALUE e30 0 1\r\nx\r\nEND\r\n"

    test {exptime 2592001 is an absolute time in 1970: a miss at once} {
        mc_exchange $fd "set e31 0 2592001 1\r\nx\r\nget e31\r\n"
    } "STORED\r\nEND\r\n"

    test {an absolute exptime one hour ahead keeps the item} {
        set t [expr {[clock seconds] + 3600}]
        mc_exchange $fd "set eabs 0 $t 1\r\nx\r\nget eabs\r\n"
    } "STORED\r\nVALUE eabs 0 1\r\nx\r\nEND\r\n"

    test {an absolute exptime one hour ago is a miss} {
        set t [expr {[clock seconds] - 3600}]
        mc_exchange $fd "set epast 0 $t 1\r\nx\r\nget epast\r\n"
    } "STORED\r\nEND\r\n"

    test {expired items are invisible to every verb} {
        mc_exchange $fd [string cat \
            "set ex 0 -1 1\r\n1\r\n" \
            "get ex\r\ngets ex\r\ngat 100 ex\r\ntouch ex 100\r\nincr ex 1\r\n" \
            "decr ex 1\r\nappend ex 0 0 1\r\nz\r\nprepend ex 0 0 1\r\nz\r\n" \
            "replace ex 0 0 1\r\nz\r\ncas ex 0 0 1 1\r\nz\r\ndelete ex\r\n"]
    } "STORED\r\nEND\r\nEND\r\nEND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_FOUND\r\nNOT_STORED\r\nNOT_STORED\r\nNOT_STORED\r\nNOT_FOUND\r\nNOT_FOUND\r\n"

    test {add on an expired key stores} {
        mc_exchange $fd "set exa 0 -1 1\r\nx\r\nadd exa 0 0 1\r\ny\r\nget exa\r\n"
    } "STORED\r\nSTORED\r\nVALUE exa 0 1\r\ny\r\nEND\r\n"

    test {a negative touch expires the item} {
        mc_exchange $fd "set nt 0 0 1\r\nx\r\ntouch nt -1\r\nget nt\r\n"
    } "STORED\r\nTOUCHED\r\nEND\r\n"

    test {a negative gat returns the item once, then it is gone} {
        mc_exchange $fd "set ng 0 0 1\r\nx\r\ngat -1 ng\r\ngat -1 ng\r\n"
    } "STORED\r\nVALUE ng 0 1\r\nx\r\nEND\r\nEND\r\n"

    # ---- with the debug clock -----------------------------------------

    test {debugtime answers OK} {
        mc_cmd $fd "debugtime 0"
    } OK {debugtime}

    test {a relative TTL expires after its time} {
        mc_exchange $fd "set r1 0 100 1\r\nx\r\ndebugtime 90\r\nget r1\r\ndebugtime 20\r\nget r1\r\n"
    } "STORED\r\nOK\r\nVALUE r1 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {exptime 0 survives 100 days} {
        mc_exchange $fd "set never 0 0 1\r\nx\r\ndebugtime 8640000\r\nget never\r\n"
    } "STORED\r\nOK\r\nVALUE never 0 1\r\nx\r\nEND\r\n" {debugtime}

    test {exptime 2592000 is 30 days from now} {
        mc_exchange $fd "set m30 0 2592000 1\r\nx\r\ndebugtime 2591000\r\nget m30\r\ndebugtime 2000\r\nget m30\r\n"
    } "STORED\r\nOK\r\nVALUE m30 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {an absolute exptime follows the moved clock} {
        # The server clock has moved since start, so ask it what time it is.
        set now [mc_stat $fd time]
        set t [expr {$now + 100}]
        mc_exchange $fd "set ab 0 $t 1\r\nx\r\ndebugtime 50\r\nget ab\r\ndebugtime 100\r\nget ab\r\n"
    } "STORED\r\nOK\r\nVALUE ab 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {stats time moves with debugtime} {
        set t0 [mc_stat $fd time]
        assert_equal [mc_cmd $fd "debugtime 1000"] OK
        assert_range [expr {[mc_stat $fd time] - $t0}] 1000 1003
    } {} {debugtime}

    test {gat sets a new TTL} {
        mc_exchange $fd "set g1 0 0 1\r\nx\r\ngat 100 g1\r\ndebugtime 90\r\nget g1\r\ndebugtime 20\r\nget g1\r\n"
    } "STORED\r\nVALUE g1 0 1\r\nx\r\nEND\r\nOK\r\nVALUE g1 0 1\r\nx\r\nEND\r\nOK\r\nEND\r\n" {debugtime}

    test {replace and set give a new TTL, append keeps the old one} {
        mc_exchange $fd [string cat \
            "set r 0 100 1\r\nx\r\nreplace r 0 1000 1\r\ny\r\n" \
            "set a 0 100 1\r\nx\r\nappend a 0 1000 1\r\ny\r\n" \
            "debugtime 500\r\nget r a\r\n"]
    } "STORED\r\nSTORED\r\nSTORED\r\nSTORED\r\nOK\r\nVALUE r 0 1\r\ny\r\nEND\r\n" {debugtime}

    test {an expired item counts in get_expired} {
        set before [mc_stat $fd get_expired]
        mc_exchange $fd "set ge 0 10 1\r\nx\r\ndebugtime 20\r\nget ge\r\n"
        expr {[mc_stat $fd get_expired] - $before}
    } 1 {debugtime}
}
