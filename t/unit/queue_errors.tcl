# The queue verbs' CLIENT_ERROR lines say which argument is wrong
# (doc/protocol.md, "Errors common to the queue verbs"): an unknown
# option is echoed, bounded and printable; noreply out of place is named;
# noreply still silences every error.

start_server {tags {queue mcds-only}} {
    set fd [mc_connect]

    test {unknown option: the name is echoed, without its value} {
        mc_exchange $fd "qcreate e1 bogus=12\r\nqcreate e1 bogus\r\nqpop e1 lease=1 nope=2\r\nqstats e1\r\n"
    } "CLIENT_ERROR unknown option bogus\r\nCLIENT_ERROR unknown option bogus\r\nCLIENT_ERROR unknown option nope\r\nNOT_FOUND\r\n"

    test {unknown option: a long name is cut at 32 bytes} {
        mc_exchange $fd "qcreate e2 [string repeat a 200]=1\r\nqpop e2 1 [string repeat b 40]\r\n"
    } "CLIENT_ERROR unknown option [string repeat a 32]\r\nCLIENT_ERROR unknown option [string repeat b 32]\r\n"

    test {unknown option: non-printable bytes are echoed as ?} {
        mc_exchange $fd "qcreate e3 a\x01b\x7f\xffc=1\r\n"
    } "CLIENT_ERROR unknown option a?b??c\r\n"

    test {noreply out of place: named, and a qpush's data is still swallowed} {
        set a [q_push $fd e4 x]
        mc_exchange $fd "qpop e4\r\n"
        mc_exchange $fd [string cat "qpush e4 0 0 1 noreply 5\r\ny\r\nqrelease e4 $a noreply 5\r\n" \
                             "qtouch e4 $a noreply 5\r\nqpush e4 0 0 1 5 6\r\nz\r\nqpeek e4\r\n"]
    } [string cat [string repeat "CLIENT_ERROR noreply must be the last token\r\n" 3] \
           "CLIENT_ERROR too many tokens\r\nEND\r\n"]

    test {qpurge, qpending: extra words are too many tokens} {
        mc_exchange $fd "qpurge e7 now\r\nqpending e7 5 values\r\nqpending e7 values 5\r\n"
    } "CLIENT_ERROR too many tokens\r\nCLIENT_ERROR too many tokens\r\nEND\r\n"

    test {noreply silences the new errors too} {
        set a [q_push $fd e5 x]
        mc_exchange $fd "qpop e5\r\n"
        mc_exchange $fd [string cat "qpush e5 abc 0 1 noreply\r\nx\r\nqpush e5 0 abc 1 noreply\r\nx\r\n" \
                             "qpush e5 0 0 1 9x noreply\r\nx\r\nqpush [string repeat k 251] 0 0 1 noreply\r\nx\r\n" \
                             "qack e5 abc noreply\r\nqrelease e5 $a abc noreply\r\nqtouch e5 $a 0 noreply\r\n" \
                             "qpurge [string repeat k 251] noreply\r\nqack e5 $a\r\n"]
    } "ACKED\r\n"

    test {qpush: a bad length with noreply still answers (the connection's last reply) and closes} {
        list [mc_last_reply "qpush e6 0 0 abc noreply\r\nqpeek e6\r\n"] [mc_exchange $fd "qpeek e6\r\n"]
    } [list "CLIENT_ERROR bad length\r\n" "END\r\n"]
}
