# noreply on every verb that takes it. Each test pipelines the noreply
# command(s) with a normal command in one write: only the normal command's
# reply may come back (mc_exchange adds a version fence and returns every
# byte before it).

set K251 [string repeat k 251]

start_server {tags {noreply}} {
    set fd [mc_connect]

    foreach verb {set add replace append prepend} {
        test "$verb noreply: success is silent" {
            mc_exchange $fd "set base 0 0 1\r\nb\r\n$verb nr$verb 0 0 1 noreply\r\nx\r\nget base\r\n"
        } "STORED\r\nVALUE base 0 1\r\nb\r\nEND\r\n"
    }

    test {set noreply really stores} {
        mc_exchange $fd "set nrs 5 0 2 noreply\r\nhi\r\nget nrs\r\n"
    } "VALUE nrs 5 2\r\nhi\r\nEND\r\n"

    test {add noreply on an existing key: NOT_STORED is silent} {
        mc_exchange $fd "add nrs 0 0 1 noreply\r\nx\r\nget nrs\r\n"
    } "VALUE nrs 5 2\r\nhi\r\nEND\r\n"

    test {replace noreply on a missing key: NOT_STORED is silent} {
        mc_exchange $fd "replace nrmissing 0 0 1 noreply\r\nx\r\nget nrmissing\r\n"
    } "END\r\n"

    test {append and prepend noreply store silently} {
        mc_exchange $fd "append nrs 0 0 1 noreply\r\n!\r\nprepend nrs 0 0 1 noreply\r\n>\r\nget nrs\r\n"
    } "VALUE nrs 5 4\r\n>hi!\r\nEND\r\n"

    test {append and prepend noreply on a missing key are silent} {
        mc_exchange $fd "append nrmissing 0 0 1 noreply\r\nx\r\nprepend nrmissing 0 0 1 noreply\r\nx\r\nget nrmissing\r\n"
    } "END\r\n"

    test {cas noreply: STORED, EXISTS and NOT_FOUND are all silent} {
        set c [lindex [mc_gets $fd nrs] 1]
        assert_equal [mc_exchange $fd [string cat \
            "cas nrs 0 0 1 $c noreply\r\n1\r\n" \
            "cas nrs 0 0 1 $c noreply\r\n2\r\n" \
            "cas nrmissing 0 0 1 $c noreply\r\n3\r\n" \
            "get nrs\r\n"]] "VALUE nrs 0 1\r\n1\r\nEND\r\n"
    }

    test {delete noreply: hit and miss are silent} {
        mc_exchange $fd "set nrd 0 0 1\r\nx\r\ndelete nrd noreply\r\ndelete nrd noreply\r\nget nrd\r\n"
    } "STORED\r\nEND\r\n"

    test {delete k 0 noreply is silent} {
        mc_exchange $fd "set nrd 0 0 1\r\nx\r\ndelete nrd 0 noreply\r\nget nrd\r\n"
    } "STORED\r\nEND\r\n"

    test {incr and decr noreply: hits and misses are silent} {
        mc_exchange $fd "set nri 0 0 2\r\n10\r\nincr nri 5 noreply\r\ndecr nri 2 noreply\r\nincr nrmissing 1 noreply\r\ndecr nrmissing 1 noreply\r\nget nri\r\n"
    } "STORED\r\nVALUE nri 0 2\r\n13\r\nEND\r\n"

    test {incr noreply of a non-numeric value: the error is silent too} {
        mc_exchange $fd "set nrx 0 0 1\r\nx\r\nincr nrx 1 noreply\r\nget nrx\r\n"
    } "STORED\r\nVALUE nrx 0 1\r\nx\r\nEND\r\n"

    test {incr noreply with a bad delta: the error is silent too} {
        mc_exchange $fd "incr nri abc noreply\r\ndecr nri -1 noreply\r\nget nri\r\n"
    } "VALUE nri 0 2\r\n13\r\nEND\r\n"

    test {touch noreply: hit, miss and bad exptime are silent} {
        mc_exchange $fd "touch nri 100 noreply\r\ntouch nrmissing 100 noreply\r\ntouch nri abc noreply\r\nget nri\r\n"
    } "VALUE nri 0 2\r\n13\r\nEND\r\n"

    test {touch -1 noreply expires silently} {
        mc_exchange $fd "set nrt 0 0 1\r\nx\r\ntouch nrt -1 noreply\r\nget nrt\r\n"
    } "STORED\r\nEND\r\n"

    test {flush_all noreply and flush_all 0 noreply are silent} {
        mc_exchange $fd "set nrf 0 0 1\r\nx\r\nflush_all noreply\r\nget nrf\r\nset nrf 0 0 1\r\nx\r\nflush_all 0 noreply\r\nget nrf\r\n"
    } "STORED\r\nEND\r\nSTORED\r\nEND\r\n"

    test {verbosity noreply is silent} {
        mc_exchange $fd "verbosity 0 noreply\r\n"
    } ""

    test {a 251-byte key with noreply: the error is silent} {
        mc_exchange $fd "touch $K251 10 noreply\r\nincr $K251 1 noreply\r\ndelete $K251 noreply\r\n"
    } ""

    test {the wrong number of tokens is ERROR even with noreply} {
        mc_exchange $fd "incr a 1 2 noreply\r\ntouch a 1 2 noreply\r\n"
    } "ERROR\r\nERROR\r\n"

    test {NOREPLY in capitals is not noreply (an ignored extra token)} {
        mc_exchange $fd "set nrc 0 0 1 NOREPLY\r\nx\r\n"
    } "STORED\r\n"

    test {a token after noreply makes set ERROR (too many tokens)} {
        mc_exchange $fd "set nrl 0 0 1 noreply x\r\ny\r\n"
    } "ERROR\r\nERROR\r\n"

    test {noreply must be the last token: touch k 1 noreply x answers} {
        mc_exchange $fd "set nrl 0 0 1\r\nx\r\ntouch nrl 1 noreply x\r\n"
    } "STORED\r\nERROR\r\n"

    test {a bad data chunk with noreply: the error is silent, the rest is parsed} {
        # 1 byte announced, "xyz\r\n" sent: "xyz" is the bad block, the
        # leftover "\r\n" is an empty command line, which is ERROR.
        mc_exchange $fd "set nrb 0 0 1\r\nq\r\nset nrb 0 0 1 noreply\r\nxyz\r\nget nrb\r\n"
    } "STORED\r\nERROR\r\nVALUE nrb 0 1\r\nq\r\nEND\r\n"

    test {an oversize value with noreply: silent, data swallowed} {
        set big [string repeat x 2000000]
        mc_exchange $fd "set nrbig 0 0 2000000 noreply\r\n$big\r\nget nrbig\r\n"
    } "END\r\n"

    test {a malformed storage line with noreply: only the data line's ERROR (1.6.18)} {
        stock_memcached_only "it swallows the data block of a malformed storage line"
        mc_exchange $fd "set nrm abc 0 1 noreply\r\nx\r\ncas nrm 0 0 1 abc noreply\r\ny\r\nget nrm\r\n"
    } "ERROR\r\nERROR\r\nEND\r\n"

    test {a malformed storage line with noreply: silent, data swallowed} {
        mc_exchange $fd "set nrm abc 0 1 noreply\r\nx\r\ncas nrm 0 0 1 abc noreply\r\ny\r\nget nrm\r\n"
    } "END\r\n" {mcds-only}

    test {a 251-byte key in set with noreply: silent, data swallowed} {
        mc_exchange $fd "set $K251 0 0 1 noreply\r\nx\r\nget nrm\r\n"
    } "END\r\n" {mcds-only}

    test {a 251-byte key in set with noreply: only the data line's ERROR (1.6.18)} {
        stock_memcached_only "it swallows the data block of a malformed storage line"
        mc_exchange $fd "set $K251 0 0 1 noreply\r\nx\r\nget nrm\r\n"
    } "ERROR\r\nEND\r\n"

    test {noreply does not leak into the next command} {
        mc_exchange $fd "set nrn 0 0 1 noreply\r\nx\r\nset nrn 0 0 1\r\ny\r\ndelete nrn noreply\r\ndelete nrn\r\n"
    } "STORED\r\nNOT_FOUND\r\n"

    test {a long pipeline of noreply sets, then one get} {
        set cmds {}
        for {set i 0} {$i < 500} {incr i} { append cmds "set pl$i 0 0 [string length $i] noreply\r\n$i\r\n" }
        mc_exchange $fd "${cmds}get pl0 pl499\r\n"
    } "VALUE pl0 0 1\r\n0\r\nVALUE pl499 0 3\r\n499\r\nEND\r\n"
}
