# Meta flags checked as memcached 1.6.18 checks them: every meta command
# accepts every flag and ignores those meaningless to it; numeric, mode
# and key tokens are validated one by one and the last error is answered;
# opaque length; c on a failed ms; k with a base64 key. Every expected
# reply here was taken from memcached 1.6.18 (this file passes against it).

start_server {tags {meta}} {
    set fd [mc_connect]
    mc_exchange $fd "set foo 0 0 3\r\nbar\r\n"

    test {bget answers like get} {
        mc_exchange $fd "bget foo nokey\r\nbget nokey\r\n"
    } "VALUE foo 0 3\r\nbar\r\nEND\r\nEND\r\n"

    test {mg accepts flags of other commands and ignores them} {
        mc_exchange $fd "mg foo J5 D5 Mx F3 C9 I v\r\n"
    } "VA 3\r\nbar\r\n"

    test {md and ma accept get-only flags and ignore them} {
        mc_exchange $fd "ms ign 1\r\n7\r\nma ign v f s h l u\r\nmd ign v f s t h l\r\nmg ign\r\n"
    } "HD\r\nVA 1\r\n8\r\nHD\r\nEN\r\n"

    test {J without a number: invalid numeric initial value, on mg and ms} {
        mc_exchange $fd "mg foo J\r\nmg foo Jx\r\nms foo 1 J\r\nx\r\n"
    } [string repeat "CLIENT_ERROR invalid numeric initial value\r\n" 3]

    test {D without a number: invalid numeric delta value} {
        mc_exchange $fd "mg foo Dx\r\nms foo 1 D-\r\nx\r\n"
    } [string repeat "CLIENT_ERROR invalid numeric delta value\r\n" 2]

    test {M with other than one character: incorrect length for M token} {
        mc_exchange $fd "ms m 1 Mzz\r\nx\r\nmg foo Mzz\r\nmg foo M\r\nms foo 1 M\r\nx\r\n"
    } [string repeat "CLIENT_ERROR incorrect length for M token\r\n" 4]

    test {mg ignores the mode; ms and ma check it} {
        mc_exchange $fd "mg foo Mx\r\nms foo 1 Mx\r\nx\r\nma foo Mx\r\n"
    } [string cat "HD\r\nCLIENT_ERROR invalid mode for ms M token\r\n" \
           "CLIENT_ERROR invalid mode for ma M token\r\n"]

    test {several bad tokens: the last one is answered} {
        mc_exchange $fd "mg foo J Dx\r\nmg foo Dx J\r\nmg foo Mzz T\r\nmg foo J Fx\r\nms foo 1 Fx J\r\nx\r\n"
    } [string cat "CLIENT_ERROR invalid numeric delta value\r\n" \
           "CLIENT_ERROR invalid numeric initial value\r\n" \
           "CLIENT_ERROR bad token in command line format\r\n" \
           "CLIENT_ERROR invalid numeric initial value\r\n" \
           "CLIENT_ERROR invalid numeric initial value\r\n"]

    test {a bad F alone is a bad command line format, on mg and ms} {
        mc_exchange $fd "mg foo F\r\nms foo 1 Fx\r\nx\r\n"
    } [string repeat "CLIENT_ERROR bad command line format\r\n" 2]

    test {an unknown or repeated flag is answered at once} {
        mc_exchange $fd "mg foo J Z\r\nmg foo Z J\r\nmg foo v v J\r\nms foo 1 x y z\r\nx\r\n"
    } [string cat "CLIENT_ERROR invalid flag\r\nCLIENT_ERROR invalid flag\r\n" \
           "CLIENT_ERROR duplicate flag\r\nCLIENT_ERROR invalid flag\r\n"]

    test {md and ma answer every flag error alike} {
        mc_exchange $fd "md foo J\r\nma foo D\r\nma foo Dx\r\nma foo M\r\nmd foo Z\r\nma foo q q\r\n"
    } [string repeat "CLIENT_ERROR invalid or duplicate flag\r\n" 6]

    test {an opaque of 32 characters is refused, of 31 accepted} {
        set o31 [string repeat a 31]
        set o32 [string repeat a 32]
        mc_exchange $fd "mg foo O$o32 v\r\nmg foo O$o31 v\r\nmg nokey O$o32\r\nmd nokey O$o32\r\nma nokey O$o32\r\nms foo 1 O$o32\r\nx\r\n"
    } [string cat "CLIENT_ERROR opaque token too long\r\nVA 3 O[string repeat a 31]\r\nbar\r\n" \
           [string repeat "CLIENT_ERROR opaque token too long\r\n" 4]]

    test {a flag error comes before a long opaque} {
        mc_exchange $fd "mg foo O[string repeat a 40] J\r\nms foo 1 O[string repeat a 40] Mx\r\nx\r\n"
    } "CLIENT_ERROR invalid numeric initial value\r\nCLIENT_ERROR invalid mode for ms M token\r\n"

    test {a failed ms keeps c as c0: EX, NS, NF} {
        mc_exchange $fd "ms foo 2 c C999\r\nzz\r\nms nokey 2 c ME k\r\nzz\r\nms nokey 2 c ME k\r\nzz\r\nms none 2 c C5 MR q\r\nzz\r\n"
    } [string cat "EX c0\r\n" "HD c* knokey\r\n" "NS c0 knokey\r\n" "NF c0\r\n"]

    test {mg b k: the key in base64 only if it was stored with b} {
        mc_exchange $fd "mg Zm9v b v k\r\nms Zm9vMQ== 3 b k\r\nbaz\r\nmg Zm9vMQ== b v k\r\nmg foo1 k\r\n"
    } "VA 3 kfoo\r\nbar\r\nHD kZm9vMQ== b\r\nVA 3 kZm9vMQ== b\r\nbaz\r\nHD kZm9vMQ== b\r\n"

    test {md, ma and a miss echo the key as sent with b} {
        mc_exchange $fd "mg Zm9vMg== b k\r\nmd Zm9vMg== b k\r\nma Zm9vMg== b k N0 v\r\n"
    } "EN kZm9vMg== b\r\nNF kZm9vMg== b\r\nVA 1 kZm9vMg== b\r\n0\r\n"

    test {a key that does not decode: error decoding key, last error wins} {
        mc_exchange $fd "mg foo b\r\nmg foo b J\r\nmd foo b\r\n"
    } [string cat "CLIENT_ERROR error decoding key\r\n" \
           "CLIENT_ERROR invalid numeric initial value\r\n" \
           "CLIENT_ERROR invalid or duplicate flag\r\n"]
}
