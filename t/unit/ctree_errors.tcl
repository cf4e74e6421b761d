# The tree-counter verbs' CLIENT_ERROR lines say which argument is wrong
# (doc/protocol.md, tree counters, errors): long keys, options echoed,
# noreply out of place, and noreply silencing them.

start_server {tags {ctree mcds-only}} {
    set fd [mc_connect]
    set K251 [string repeat k 251]
    mc_exchange $fd "ctdef 1 103,104\r\nctobj o\r\n"

    test {a 251-byte key is key too long for every verb taking one} {
        mc_exchange $fd [string cat "ctobj $K251\r\nctlimits $K251 quantize=1\r\nctraise $K251 limits=1:103:1\r\n" \
                             "ctinfo $K251\r\nctchildren $K251\r\nctchildren $K251 count=1\r\n" \
                             "ctincr $K251 1 103 2021031514 1\r\nctget $K251 1 103 2021031514\r\n" \
                             "ctvalues $K251\r\nctvalues $K251 count=1\r\n"]
    } [string repeat "CLIENT_ERROR key too long\r\n" 10]

    # protocol.md: "ctraise without limits= or with quantize=: CLIENT_ERROR
    # ctraise takes limits= only" (both were ERROR, the token count's reply).
    test {ctraise without limits=, or with quantize= beside it, names the rule; too many tokens are ERROR} {
        mc_exchange $fd [string cat "ctraise o\r\nctraise o quantize=2 limits=1:104:1\r\n" \
                             "ctraise o limits=1:104:1 quantize=2\r\nctraise o a b c\r\nctinfo o\r\n"]
    } [string cat [string repeat "CLIENT_ERROR ctraise takes limits= only\r\n" 3] "ERROR\r\n" \
           "OBJECT o - 0 0 0\r\nEND\r\n"]

    test {parent= and after= over 250 bytes are bad values} {
        mc_exchange $fd "ctobj o2 parent=$K251\r\nctchildren o after=$K251\r\nctactive after=$K251\r\nctvalues o after=x\r\n"
    } [string cat "CLIENT_ERROR bad value for parent\r\nCLIENT_ERROR bad value for after\r\n" \
           "CLIENT_ERROR bad value for after\r\nCLIENT_ERROR bad value for after\r\n"]

    test {unknown options are echoed, name only, bounded, printable} {
        mc_exchange $fd [string cat "ctobj o3 parentt=o\r\nctlimits o parent=o\r\nctperiods [string repeat z 40]=1\r\n" \
                             "ctactive a\x02b\r\nctdef 2 103 aggregate\r\n"]
    } [string cat "CLIENT_ERROR unknown option parentt\r\nCLIENT_ERROR unknown option parent\r\n" \
           "CLIENT_ERROR unknown option [string repeat z 32]\r\nCLIENT_ERROR unknown option a?b\r\n" \
           "CLIENT_ERROR unknown option aggregate\r\n"]

    test {noreply before another token is named} {
        mc_exchange $fd "ctincr o 1 103 2021031514 1 noreply values\r\nctincr o 1 103 2021031514 1 values values\r\nctget o 1 103 2021031514\r\n"
    } [string cat "CLIENT_ERROR noreply must be the last token\r\nCLIENT_ERROR too many tokens\r\n" \
           "VALUE o 1 103 2021031514 0 0\r\nEND\r\n"]

    test {noreply silences the new errors} {
        mc_exchange $fd [string cat "ctincr o x 103 2021031514 1 noreply\r\nctincr o 1 1 2021031514 1 noreply\r\n" \
                             "ctincr o 1 103 2021031514 x noreply\r\nctincr $K251 1 103 2021031514 1 noreply\r\n" \
                             "ctincr o 1 103 2021031514 1 valuez noreply\r\nctundef x noreply\r\nctcounters\r\n"]
    } "COUNTER 1 103:0,104:0 aggregate=1 quantize=1 objects=0\r\nEND\r\n"
}
