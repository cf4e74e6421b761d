# Black-box tests of doc/protocol.md, "2. Meta protocol" (mg ms md ma mn
# me, their flags, replies and the "### Errors" table), written from the
# doc alone. Tests without the mcds-only tag check behaviour the doc gives
# as memcached 1.6.18's and also run with ./runtest --memcached.

# dmeta_x fd bytes -> the replies to bytes, CAS numbers masked as '#'
# (c<cas> and cas=<cas>), since the two servers number items differently.
proc dmeta_x {fd bytes} {
    regsub -all {( c|cas=)[0-9]+} [mc_exchange $fd $bytes] {\1#} out
    return $out
}

# dmeta_cas fd key -> the key's CAS as mg reports it.
proc dmeta_cas {fd key} {
    regexp { c([0-9]+)} [mc_exchange $fd "mg $key c\r\n"] -> c
    return $c
}

start_server {tags {doc_meta} args {-t 1}} {
    set fd [mc_connect]

    # The doc's own examples ("ms m1 2 T90 F7 c k O123 -> HD c17 km1 O123"
    # and the mg lines after it), CAS numbers masked.
    test {meta: the doc's ms/mg examples answer as shown} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms m1 2 T90 F7 c k O123\r\nhi\r\nmg m1 v f t c s k h l O9\r\nmg nokey O123 k v\r\n"
    } "HD c# km1 O123\r\nVA 2 f7 t90 c# s2 km1 h0 l0 O9\r\nhi\r\nEN O123 knokey\r\n"

    test {meta: mg N vivifies and wins once (W), the next reader sees Z} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "mg viv N30 v c t\r\nmg viv N30 v c t\r\n"
    } "VA 0 c# t30 W\r\n\r\nVA 0 c# t30 Z\r\n\r\n"

    # "md st I T30 ; mg st v c t -> VA 1 c21 t30 X W, then Z X for the next reader"
    test {meta: md I marks stale; the next mg wins (X W), the one after sees Z X} {
        mc_exchange $fd "flush_all\r\nms st 1\r\nx\r\n"
        set c0 [dmeta_cas $fd st]
        set r [dmeta_x $fd "md st I T30\r\nmg st v c t\r\nmg st v c t\r\n"]
        list $r [expr {[dmeta_cas $fd st] != $c0}]
    } [list "HD\r\nVA 1 c# t30 X W\r\nx\r\nVA 1 c# t30 Z X\r\nx\r\n" 1]

    # "the requested flags in the order they were asked for"
    test {meta: flags are answered in the order asked} {
        mc_exchange $fd "flush_all\r\nms ord 3 F5 T0\r\nabc\r\n"
        list [dmeta_x $fd "mg ord s f k O1 t\r\n"] [dmeta_x $fd "mg ord t O1 k f s\r\n"]
    } [list "HD s3 f5 kord O1 t-1\r\n" "HD t-1 O1 kord f5 s3\r\n"]

    # "On a miss or a failure only O (opaque) and k (key) are echoed, and ms
    # answers a requested c as c0 (EX c0, NS c0, NF c0)."
    test {meta: on a miss or failure only O and k are echoed; ms answers c as c0} {
        mc_exchange $fd "flush_all\r\nms here 1\r\nx\r\n"
        mc_exchange $fd "ms k 1 c k O1 C1\r\nx\r\nms k 1 c MR\r\nx\r\nms here 1 c ME\r\nx\r\nms here 1 c C1\r\nx\r\nmg nope c k v O3 f t s\r\nma nope c O2 k t v\r\nmd nope k O4\r\n"
    } "NF c0 kk O1\r\nNS c0\r\nNS c0\r\nEX c0\r\nEN knope O3\r\nNF O2 knope\r\nNF knope O4\r\n"

    test {meta: flags without a token ignore extra characters (vv is v)} {
        mc_exchange $fd "flush_all\r\nms e 2\r\nhi\r\n"
        dmeta_x $fd "mg e vv sxyz\r\n"
    } "VA 2 s2\r\nhi\r\n"

    # "Every meta command accepts every flag ... and ignores those
    # meaningless to it: mg k J5 Mx is a plain mg k."
    test {meta: mg k J5 Mx is a plain mg k} {
        mc_exchange $fd "flush_all\r\nms k 1\r\nx\r\n"
        dmeta_x $fd "mg k J5 Mx\r\nmg nope J5 Mx\r\n"
    } "HD\r\nEN\r\n"

    # "ms Zm9v 1 b then mg foo k answers HD kZm9v b; set foo then mg Zm9v b k
    # answers HD kfoo"
    test {meta: base64 keys are echoed as the doc's examples show} {
        mc_exchange $fd "flush_all\r\n"
        set a [dmeta_x $fd "ms Zm9v 1 b\r\nx\r\nmg foo k\r\nmg Zm9v b k v\r\n"]
        set b [dmeta_x $fd "set bar 0 0 1\r\ny\r\nmg YmFy b k\r\nmg bar k\r\n"]
        list $a $b
    } [list "HD\r\nHD kZm9v b\r\nVA 1 kZm9v b\r\nx\r\n" "STORED\r\nHD kbar\r\nHD kbar\r\n"]

    test {meta: a key that does not decode answers CLIENT_ERROR error decoding key (md, ma: invalid or duplicate flag)} {
        dmeta_x $fd "mg Zm9 b\r\nmg !!!! b\r\nms Zm9 1 b\r\nx\r\nmd Zm9 b\r\nma Zm9 b\r\nmn\r\n"
    } "CLIENT_ERROR error decoding key\r\nCLIENT_ERROR error decoding key\r\nCLIENT_ERROR error decoding key\r\nCLIENT_ERROR invalid or duplicate flag\r\nCLIENT_ERROR invalid or duplicate flag\r\nMN\r\n"

    # mg table: "t TTL left, -1 for none (a t placed before T reports the
    # TTL before the touch)"
    test {meta: mg t before T reports the TTL before the touch, after T the new one} {
        mc_exchange $fd "flush_all\r\nms tt 1 T100\r\nx\r\n"
        dmeta_x $fd "mg tt t T50\r\nmg tt T40 t\r\nmg tt t\r\n"
    } "HD t100\r\nHD t40\r\nHD t40\r\n"

    test {meta: mg h is h0 then h1; u neither bumps nor marks fetched} {
        mc_exchange $fd "flush_all\r\nms hh 1\r\nx\r\n"
        dmeta_x $fd "mg hh u h\r\nmg hh h\r\nmg hh h l\r\n"
    } "HD h0\r\nHD h0\r\nHD h1 l0\r\n"

    # "R<ttl> recache: win if the item expires within <ttl>"
    test {meta: mg R wins once when the TTL left is below it} {
        mc_exchange $fd "flush_all\r\nms rr 1 T20\r\nx\r\nms rr2 1 T100\r\nx\r\n"
        dmeta_x $fd "mg rr R30 t\r\nmg rr R30 t\r\nmg rr2 R30 t\r\n"
    } "HD t20 W\r\nHD t20 Z\r\nHD t100\r\n"

    # "Time and expiry: touch/gat with a negative exptime expires the item
    # (the gat itself still returns it)"; mg T is meta's touch.
    test {meta: mg T-1 v returns the value once and expires it} {
        mc_exchange $fd "flush_all\r\nms neg 1\r\nx\r\n"
        dmeta_x $fd "mg neg T-1 v\r\nmg neg v\r\n"
    } "VA 1\r\nx\r\nEN\r\n"

    test {meta: mg q sends nothing on a miss, the value on a hit; mn ends the pipeline} {
        mc_exchange $fd "flush_all\r\nms qq 1\r\nx\r\n"
        dmeta_x $fd "mg n1 q v\r\nmg qq q v k\r\nmg n2 q v k O5\r\nmg qq q s\r\nmn\r\n"
    } "VA 1 kqq\r\nx\r\nHD s1\r\nMN\r\n"

    # ms "q (HD is not sent)", md "q (HD not sent)"; failures still answer.
    test {meta: ms q and md q hide HD only} {
        mc_exchange $fd "flush_all\r\nset k 0 0 1\r\n1\r\n"
        dmeta_x $fd "ms k 1 q\r\nx\r\nms k 1 q ME\r\nx\r\nms nope 1 q MR\r\nx\r\nms k 1 q C1\r\nx\r\nmd k q C1\r\nmd k q\r\nmd k q\r\nmn\r\n"
    } "NS\r\nNS\r\nEX\r\nEX\r\nNF\r\nMN\r\n"

    # "Errors are sent even with q."
    test {meta: errors are sent even with q} {
        dmeta_x $fd "mg k q Tx\r\nms k 1 q !\r\nx\r\nmd k q Tx\r\nma k q Dx\r\nmn\r\n"
    } "CLIENT_ERROR bad token in command line format\r\nCLIENT_ERROR invalid flag\r\nCLIENT_ERROR invalid or duplicate flag\r\nCLIENT_ERROR invalid or duplicate flag\r\nMN\r\n"

    # ma has q in its flag list and nothing saying it differs from
    # memcached's q; memcached 1.6.18 skips the whole reply of a successful
    # ma with q (VA included)...
    test {meta: ma q v on a hit sends nothing, as memcached 1.6.18} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n1\r\n"
        dmeta_x $fd "ma a q v\r\nmn\r\nmg a v\r\n"
    } "MN\r\nVA 1\r\n2\r\n"

    # ... and answers a create by N (autovivify) even with q.
    test {meta: ma q N on a miss answers HD for the item it creates, as memcached 1.6.18} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ma a q N0\r\nmn\r\nmg a v\r\n"
    } "HD\r\nMN\r\nVA 1\r\n0\r\n"

    test {meta: ms I with an older C stores the value as stale, keeping TTL; the next mg wins} {
        mc_exchange $fd "flush_all\r\nms si 1 T100\r\n1\r\n"
        set c [dmeta_cas $fd si]
        set r [dmeta_x $fd "ms si 1 I C[expr {$c - 1}]\r\n2\r\nmg si v t\r\nmg si v t\r\n"]
        list $r [dmeta_x $fd "ms si 1 I C[expr {$c + 100}]\r\n3\r\n"]
    } [list "HD\r\nVA 1 t100 X W\r\n2\r\nVA 1 t100 Z X\r\n2\r\n" "EX\r\n"]

    # ms modes: "MS set (default), ME add, MA append, MP prepend, MR replace"
    test {meta: ms modes E A P R S} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms m 1 MR\r\nr\r\nms m 1 MA\r\na\r\nms m 1 MP\r\np\r\nms m 1 ME\r\ne\r\nms m 1 ME\r\nE\r\nms m 1 MA\r\na\r\nms m 1 MP\r\np\r\nms m 1 MR\r\nr\r\nmg m v\r\nms m 1 MS\r\ns\r\nmg m v\r\n"
    } "NS\r\nNS\r\nNS\r\nHD\r\nNS\r\nHD\r\nHD\r\nHD\r\nVA 1\r\nr\r\nHD\r\nVA 1\r\ns\r\n"

    test {meta: ms MA/MP keep flags and TTL of the item} {
        mc_exchange $fd "flush_all\r\nms ap 1 F9 T100\r\nb\r\n"
        dmeta_x $fd "ms ap 1 MA F1 T0\r\nc\r\nms ap 1 MP F2 T5\r\na\r\nmg ap v f t\r\n"
    } "HD\r\nHD\r\nVA 3 f9 t100\r\nabc\r\n"

    # "F<flags> (client flags, 32-bit, truncated like set)"
    test {meta: ms F is truncated to 32 bits like set} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms f 1 F4294967296\r\nx\r\nmg f f\r\nms f 1 F4294967297\r\nx\r\nmg f f\r\nms f 1 F4294967295\r\nx\r\nmg f f\r\n"
    } "HD\r\nHD f0\r\nHD\r\nHD f1\r\nHD\r\nHD f4294967295\r\n"

    # "Increments wrap at 2^64, decrements stop at 0."
    test {meta: ma wraps at 2^64 and stops at 0; MD M- MI M+} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ma n N0 J18446744073709551615 v\r\nma n v\r\nma n v MD\r\nma n v M+ D5\r\nma n v M- D7\r\nma n v MI\r\n"
    } "VA 20\r\n18446744073709551615\r\nVA 1\r\n0\r\nVA 1\r\n0\r\nVA 1\r\n5\r\nVA 1\r\n0\r\nVA 1\r\n1\r\n"

    test {meta: ma N J creates with the initial value and TTL; t and c answered} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ma n N20 J7 t v c k O1\r\nma n N20 J7 t v\r\nma n T50 t\r\n"
    } "VA 1 t20 c# kn O1\r\n7\r\nVA 1 t20\r\n8\r\nHD t50\r\n"

    test {meta: ma on a value that is not a number} {
        mc_exchange $fd "flush_all\r\nset s 0 0 3\r\n 12\r\nset t 0 0 3\r\n9 5\r\nset w 0 0 0\r\n\r\nset x 0 0 2\r\n-1\r\n"
        dmeta_x $fd "ma s v\r\nma t v\r\nma w v\r\nma x v\r\n"
    } "VA 2\r\n13\r\nVA 2\r\n10\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n"

    test {meta: ma C compares the CAS} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n5\r\n"
        set c [dmeta_cas $fd a]
        dmeta_x $fd "ma a C[expr {$c + 1}] v\r\nma a C$c v\r\n"
    } "EX\r\nVA 1\r\n6\r\n"

    # "mn answers MN"; me answers ME ... or EN.
    test {meta: mn answers MN, me a miss EN, me without a key CLIENT_ERROR} {
        dmeta_x $fd "flush_all\r\nmn\r\nme nope\r\nme\r\n"
    } "OK\r\nMN\r\nEN\r\nCLIENT_ERROR bad command line format\r\n"

    # ### Errors
    test {meta errors: mg/ms/md/ma without a key are ERROR} {
        dmeta_x $fd "mg\r\nms\r\nmd\r\nma\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\n"

    test {meta errors: a key over 250 bytes and an ms without a valid length} {
        set k [string repeat k 251]
        dmeta_x $fd "mg $k v\r\nmd $k\r\nma $k\r\nme $k\r\nms k\r\nms k x\r\nms k -1\r\n"
    } [string repeat "CLIENT_ERROR bad command line format\r\n" 7]

    test {meta errors: a key of 250 bytes is accepted} {
        set k [string repeat k 250]
        dmeta_x $fd "ms $k 1\r\nx\r\nmg $k s\r\n"
    } "HD\r\nHD s1\r\n"

    # "a bad length or key does not [discard the data] (the data is then
    # read as a command, as in memcached 1.6.18)"
    test {meta errors: after a bad ms length or key the data is read as a command} {
        set k [string repeat k 251]
        dmeta_x $fd "ms k x\r\nmn\r\nms $k 1\r\nmn\r\n"
    } "CLIENT_ERROR bad command line format\r\nMN\r\nCLIENT_ERROR bad command line format\r\nMN\r\n"

    # "Up to 17 flags per command (16 for ms)"
    test {meta errors: 17 flags accepted on mg, 18 too many} {
        list [dmeta_x $fd "mg bm9wZQ== q k O1 s f t c h l u P L v C1 R1 T1 b\r\nmn\r\n"] \
             [dmeta_x $fd "mg nope a b c d e f g h i j k l m n o p q r\r\n"]
    } [list "MN\r\n" "CLIENT_ERROR options flags are too long\r\n"]

    test {meta errors: 16 flags accepted on ms, 17 too many} {
        mc_exchange $fd "flush_all\r\n"
        set a [dmeta_x $fd "ms f16 1 c k O1 s T1 F1 MS P L I h l t f u q\r\nx\r\nmn\r\n"]
        # only the error line: whether the data is discarded is checked below
        set c2 [mc_connect]
        mc_send $c2 "ms f17 1 c k O1 s T1 F1 MS P L I h l t f u q v\r\n"
        set b [mc_readline $c2]
        mc_close $c2
        list $a $b
    } [list "MN\r\n" "CLIENT_ERROR options flags too long"]

    test {meta errors: too many flags on md and ma} {
        dmeta_x $fd "md k a b c d e f g h i j k l m n o p q r\r\nma k a b c d e f g h i j k l m n o p q r\r\n"
    } "CLIENT_ERROR options flags too long\r\nCLIENT_ERROR options flags too long\r\n"

    test {meta errors: unknown flag, repeated flag, flag character above 126} {
        dmeta_x $fd "mg k !\r\nmg k v v\r\nmg k s s\r\nmg k T1 T2\r\nmg k \x7f\r\nmg k \x80\r\nmg k \xff\r\n"
    } "CLIENT_ERROR invalid flag\r\nCLIENT_ERROR duplicate flag\r\nCLIENT_ERROR duplicate flag\r\nCLIENT_ERROR duplicate flag\r\nCLIENT_ERROR duplicate flag\r\nCLIENT_ERROR duplicate flag\r\nCLIENT_ERROR duplicate flag\r\n"

    test {meta errors: bad T N R C tokens, bad F, J, D, M} {
        dmeta_x $fd "mg k Tx\r\nmg k Nx\r\nmg k Rx\r\nmg k Cx\r\nmg k Fx\r\nmg k F-1\r\nmg k Jx\r\nmg k J-1\r\nmg k Dx\r\nmg k D-1\r\nmg k Mxx\r\nmg k M\r\n"
    } [join {
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad command line format}
        {CLIENT_ERROR bad command line format}
        {CLIENT_ERROR invalid numeric initial value}
        {CLIENT_ERROR invalid numeric initial value}
        {CLIENT_ERROR invalid numeric delta value}
        {CLIENT_ERROR invalid numeric delta value}
        {CLIENT_ERROR incorrect length for M token}
        {CLIENT_ERROR incorrect length for M token}
        {}} "\r\n"]

    # "when several are bad, the last one's error is answered, and a bad F
    # answers only if no other token was bad. The mode and then the opaque
    # are checked once every token parsed well."
    test {meta errors: the last bad token wins; F only alone; mode, then opaque, after tokens} {
        set o32 [string repeat o 32]
        dmeta_x $fd "mg k Tx Jx\r\nmg k Jx Tx\r\nmg k Fx Tx\r\nmg k Tx Fx\r\nms k 1 Mx O$o32\r\nx\r\nms k 1 O$o32 Tx\r\nx\r\nms k 1 Fx Mx\r\nx\r\nmg k O$o32\r\n"
    } [join {
        {CLIENT_ERROR invalid numeric initial value}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR invalid mode for ms M token}
        {CLIENT_ERROR bad token in command line format}
        {CLIENT_ERROR bad command line format}
        {CLIENT_ERROR opaque token too long}
        {}} "\r\n"]

    test {meta errors: opaque of 31 bytes is echoed, 32 refused} {
        set o31 [string repeat o 31]
        dmeta_x $fd "mg nope O$o31\r\nmg nope O${o31}p\r\n"
    } "EN O[string repeat o 31]\r\nCLIENT_ERROR opaque token too long\r\n"

    test {meta errors: bad modes for ms and ma} {
        dmeta_x $fd "ms k 1 Mx\r\nx\r\nma k Mx\r\nma k Mi\r\nma k Md\r\nmn\r\n"
    } "CLIENT_ERROR invalid mode for ms M token\r\nCLIENT_ERROR invalid mode for ma M token\r\nCLIENT_ERROR invalid mode for ma M token\r\nCLIENT_ERROR invalid mode for ma M token\r\nMN\r\n"

    # "md and ma answer every error of this table except the mode and the
    # opaque as CLIENT_ERROR invalid or duplicate flag"
    test {meta errors: md and ma answer invalid or duplicate flag} {
        set o32 [string repeat o 32]
        dmeta_x $fd "md k Tx\r\nmd k Mxx\r\nmd k !\r\nmd k q q\r\nmd k Fx\r\nma k Tx\r\nma k Dx\r\nma k Jx\r\nma k !\r\nma k D1 D1\r\nmd k O$o32\r\nma k O$o32\r\n"
    } "[string repeat "CLIENT_ERROR invalid or duplicate flag\r\n" 10]CLIENT_ERROR opaque token too long\r\nCLIENT_ERROR opaque token too long\r\n"

    # "Errors in an ms line after its length was read discard the data block"
    test {meta errors: an ms error after the length discards the data (unknown flag, bad token, bad mode)} {
        dmeta_x $fd "ms k 1 !\r\nx\r\nms k 1 Tx\r\nx\r\nms k 1 Mz\r\nx\r\nms k 1 T1 T1\r\nx\r\n"
    } "CLIENT_ERROR invalid flag\r\nCLIENT_ERROR bad token in command line format\r\nCLIENT_ERROR invalid mode for ms M token\r\nCLIENT_ERROR duplicate flag\r\n"

    test {meta: ms data of the wrong length is a bad data chunk, the rest read as a command} {
        dmeta_x $fd "ms k 3\r\nabcdef\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\n"

    test {meta: ms of 0 bytes stores an empty value} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms z 0\r\n\r\nmg z s v\r\n"
    } "HD\r\nVA 0 s0\r\n\r\n"

    # "Numbers are parsed as memcached parses them" (Time and expiry): a
    # leading + is accepted; memcached's strtol/strtoull also accept
    # trailing whitespace other than a space (tab, \v, \f) in a token.
    test {meta: numeric tokens with a leading + are accepted} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms k +1 T+5 F+3\r\ny\r\nmg k f t v\r\nma n N0 J+5 v\r\nma n D+5 v\r\n"
    } "HD\r\nVA 1 f3 t5\r\ny\r\nVA 1\r\n5\r\nVA 2\r\n10\r\n"

    test {meta: numeric tokens ending in a tab are parsed as memcached parses them} {
        mc_exchange $fd "flush_all\r\n"
        dmeta_x $fd "ms x 1\t T5\r\n1\r\nmg x T1\t v\r\nmg x F1\t v\r\nma x D1\t v\r\nms x 1 F3\t\r\n2\r\nmg x f v\r\n"
    } "HD\r\nVA 1\r\n1\r\nVA 1\r\n1\r\nVA 1\r\n2\r\nHD\r\nVA 1 f3\r\n2\r\n"

    # "mg also counts cmd_get and get_hits/get_misses (with T: cmd_touch,
    # touch_hits/touch_misses)", as gat counts cmd_touch "instead", as
    # memcached does: an mg T that hits counts no cmd_get.
    test {meta stats: mg T on a hit counts cmd_touch and touch_hits, not cmd_get} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n1\r\n"
        mc_stats_delta $fd "mg a T10\r\n" {cmd_get get_hits cmd_touch touch_hits}
    } {cmd_get 0 get_hits 0 cmd_touch 1 touch_hits 1}

    test {meta stats: mg without T counts cmd_get and get_hits/get_misses} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n1\r\n"
        mc_stats_delta $fd "mg a v\r\nmg nope v\r\n" {cmd_get get_hits get_misses cmd_touch}
    } {cmd_get 2 get_hits 1 get_misses 1 cmd_touch 0}

    # memcached 1.6.18 counts no incr hit or miss for the item ma N creates
    # (the doc lists no difference).
    test {meta stats: ma N creating a missing key counts no incr_hits, as memcached 1.6.18} {
        mc_exchange $fd "flush_all\r\n"
        mc_stats_delta $fd "ma viv N0\r\n" {incr_hits incr_misses}
    } {incr_hits 0 incr_misses 0}

    test {meta stats: ma hits and misses count incr/decr hits and misses} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n5\r\n"
        mc_stats_delta $fd "ma a\r\nma a MD\r\nma nope\r\nma nope MD\r\n" {incr_hits decr_hits incr_misses decr_misses}
    } {incr_hits 1 decr_hits 1 incr_misses 1 decr_misses 1}
}

# The flags memcached 1.6.18 lacks (E, x, ms s, ms MA N), and mcds's own
# counting: mcds only.
start_server {tags {doc_meta mcds-only} args {-t 1}} {
    set fd [mc_connect]

    test {meta (mcds): E gives the CAS to ms, ma N, mg N, md I} {
        mc_exchange $fd "flush_all\r\n"
        mc_exchange $fd "ms a 1 E999999999999 c\r\nx\r\nma m N0 E5 c\r\nmg v N30 E77 c\r\nmd a I E1234\r\nmg a c\r\n"
    } "HD c999999999999\r\nHD c5\r\nHD c77 W\r\nHD\r\nHD c1234 X W\r\n"

    # "x (keep the item but empty its value; flags and TTL stay)"
    test {meta (mcds): md x empties the value and keeps flags and TTL} {
        mc_exchange $fd "flush_all\r\nms d 3 F7 T100\r\nabc\r\n"
        mc_exchange $fd "md d x\r\nmg d v f t s\r\n"
    } "HD\r\nVA 0 f7 t100 s0\r\n\r\n"

    # "N<ttl> with append/prepend creates a missing item from the data"
    test {meta (mcds): ms MA/MP N creates a missing item} {
        mc_exchange $fd "flush_all\r\n"
        mc_exchange $fd "ms ap 1 MA N30\r\nx\r\nmg ap v t\r\nms pp 1 MP N30\r\ny\r\nmg pp v t\r\n"
    } "HD\r\nVA 1 t30\r\nx\r\nHD\r\nVA 1 t30\r\ny\r\n"

    test {meta (mcds): ms s answers the stored size} {
        mc_exchange $fd "flush_all\r\n"
        mc_exchange $fd "ms s 3 s\r\nabc\r\nms s 1 s MA\r\nd\r\n"
    } "HD s3\r\nHD s4\r\n"

    # "Every meta command counts in cmd_meta"
    test {meta (mcds): every meta command counts in cmd_meta} {
        mc_exchange $fd "flush_all\r\nset a 0 0 1\r\n1\r\n"
        mc_stats_delta $fd "mg a\r\nms a 1\r\n2\r\nmd a\r\nma a\r\nmn\r\nme a\r\n" {cmd_meta}
    } {cmd_meta 6}

    # "a hit with T counts cmd_touch and touch_hits instead (a miss with T
    # is a get's miss), as memcached counts them"
    test {meta (mcds): mg T on a miss counts cmd_get and get_misses, not cmd_touch/touch_misses} {
        mc_exchange $fd "flush_all\r\n"
        mc_stats_delta $fd "mg nope T10\r\n" {cmd_get get_misses cmd_touch touch_misses}
    } {cmd_get 1 get_misses 1 cmd_touch 0 touch_misses 0}

    # "a bad length or key does not, nor too many flags (refused before
    # the length is read): the data is then read as a command, as in
    # memcached 1.6.18"
    test {meta errors (mcds): an ms with too many flags keeps its data, read as a command} {
        mc_exchange $fd "ms k 1 a b c d e f g h i j k l m n o p q\r\nx\r\n"
    } "CLIENT_ERROR options flags too long\r\nERROR\r\n"

    test {meta (mcds): me reports exp, la, cas, fetch, cls=1, size} {
        mc_exchange $fd "flush_all\r\nms me 5 T100 E42\r\nhello\r\n"
        mc_exchange $fd "me me\r\n"
    } {ME me exp=100 la=0 cas=42 fetch=no cls=1 size=*}
}
