# Meta protocol: mg ms md ma mn me. Expected bytes were taken from
# memcached 1.6.18; tests of features only newer memcached has (E, md x,
# ms append with N) are tagged mcds-only.

set K251 [string repeat k 251]

# The CAS an item has now, read with mg.
proc meta_cas {fd key} {
    set line [mc_exchange $fd "mg $key c\r\n"]
    if {![regexp {^HD c(\d+)\r\n$} $line -> cas]} { fail "no cas in '$line'" }
    return $cas
}

start_server {tags {meta}} {
    set fd [mc_connect]

    test {ms then mg returns flags in request order} {
        set r [mc_exchange $fd "ms m1 2 T90 F7 c k O123\r\nhi\r\nmg m1 v f t c s k h l O9\r\n"]
        regsub -all {c\d+} $r cN
    } "HD cN km1 O123\r\nVA 2 f7 t90 cN s2 km1 h0 l0 O9\r\nhi\r\n"

    test {mg without v answers HD; h turns 1 once fetched} {
        mc_exchange $fd "mg m1\r\nmg m1 h\r\n"
    } "HD\r\nHD h1\r\n"

    test {mg miss is EN and echoes O and k} {
        mc_exchange $fd "mg nokey O123 k v\r\nmg nokey\r\n"
    } "EN O123 knokey\r\nEN\r\n"

    test {mg q hides a miss but not a hit; mn ends the pipeline} {
        mc_exchange $fd "mg nokey q v\r\nmg nokey q k O1\r\nmg m1 q v\r\nmg m1 q\r\nmn\r\n"
    } "VA 2\r\nhi\r\nHD\r\nMN\r\n"

    test {mg flag errors: unknown, duplicate, bad token, long opaque} {
        mc_exchange $fd "mg m1 zz\r\nmg m1 v v\r\nmg m1 T\r\nmg m1 Tabc\r\nmg m1 O123456789012345678901234567890123\r\n"
    } [string cat "CLIENT_ERROR invalid flag\r\nCLIENT_ERROR duplicate flag\r\n" \
           "CLIENT_ERROR bad token in command line format\r\n" \
           "CLIENT_ERROR bad token in command line format\r\nCLIENT_ERROR opaque token too long\r\n"]

    test {mg: only the first character of a no-token flag counts} {
        mc_exchange $fd "mg m1 vv\r\n"
    } "VA 2\r\nhi\r\n"

    test {mg without a key is ERROR; a 251-byte key is CLIENT_ERROR} {
        mc_exchange $fd "mg\r\nmg $K251 v\r\n"
    } "ERROR\r\nCLIENT_ERROR bad command line format\r\n"

    test {mg with more than 17 flags: options flags are too long} {
        mc_exchange $fd "mg m1 v c f t s k h l u q O1 T5 N5 R5 b C1 P L\r\nmg m1 v f s k h u O1 T500 N5 R5 C1 P L q t c l\r\n"
    } "CLIENT_ERROR options flags are too long\r\nVA 2 f7 s2 km1 h1 O1 t500 c* l*\r\nhi\r\n"

    test {mg C is parsed and ignored, a bad C is a bad token} {
        set r [mc_exchange $fd "mg m1 C999 v\r\nmg m1 C\r\n"]
    } "VA 2\r\nhi\r\nCLIENT_ERROR bad token in command line format\r\n"

    test {mg t before T reports the old TTL, after T the new one} {
        mc_exchange $fd "ms tt 1 T100\r\nx\r\nmg tt t T10\r\nmg tt t\r\nmg tt T20 t\r\n"
    } "HD\r\nHD t100\r\nHD t10\r\nHD t20\r\n"

    test {mg T touches; t is -1 for an item that never expires} {
        mc_exchange $fd "ms tn 1\r\nx\r\nmg tn t\r\nmg tn T30 t\r\n"
    } "HD\r\nHD t-1\r\nHD t30\r\n"

    test {ms q hides HD; NS is always sent} {
        mc_exchange $fd "ms m2 2 q\r\nhi\r\nms m2 2 ME q\r\nhi\r\nms m2 2 ME\r\nhi\r\nmn\r\n"
    } "NS\r\nNS\r\nMN\r\n"

    test {ms modes: add, append, prepend, replace, set} {
        mc_exchange $fd [string cat "ms bm 2 MA\r\nhi\r\nms bm 2 MR\r\nhi\r\nms bm 2 MS\r\nhi\r\n" \
                             "ms bm 2 MP\r\nXX\r\nms bm 2 MA\r\nYY\r\nmg bm v\r\nms bm 2 ME\r\nzz\r\n"]
    } "NS\r\nNS\r\nHD\r\nHD\r\nHD\r\nVA 6\r\nXXhiYY\r\nNS\r\n"

    test {ms bad mode and unknown flag swallow the data} {
        mc_exchange $fd "ms m2 2 MX\r\nhi\r\nms m2 2 Me\r\nhi\r\nms m2 2 Z\r\nhi\r\nms m2 2 noreply\r\nhi\r\nmn\r\n"
    } [string cat "CLIENT_ERROR invalid mode for ms M token\r\nCLIENT_ERROR invalid mode for ms M token\r\n" \
           "CLIENT_ERROR invalid flag\r\nCLIENT_ERROR invalid flag\r\nMN\r\n"]

    test {ms token errors swallow the data: duplicate, bad T, bad C, bad F, long opaque} {
        mc_exchange $fd [string cat "ms d1 2 T1 T2\r\nhi\r\nms d1 2 Tabc\r\nhi\r\nms d1 2 Cabc\r\nhi\r\n" \
                             "ms d1 2 Fabc\r\nhi\r\nms d1 2 F-1\r\nhi\r\n" \
                             "ms d1 2 O12345678901234567890123456789012345\r\nhi\r\nmn\r\n"]
    } [string cat "CLIENT_ERROR duplicate flag\r\nCLIENT_ERROR bad token in command line format\r\n" \
           "CLIENT_ERROR bad token in command line format\r\nCLIENT_ERROR bad command line format\r\n" \
           "CLIENT_ERROR bad command line format\r\nCLIENT_ERROR opaque token too long\r\nMN\r\n"]

    test {ms line errors do not swallow: no length, bad length, long key, too many flags} {
        mc_exchange $fd [string cat "ms m2\r\nms m2 abc\r\nxx\r\nms m2 -1\r\nx\r\nms $K251 2\r\nhi\r\n" \
                             "ms aaa 1 O1 c k s q T5 F1 C1 I MS N5 b P L E1 S1 x\r\nx\r\nmn\r\n"]
    } [string cat "CLIENT_ERROR bad command line format\r\n" \
           "CLIENT_ERROR bad command line format\r\nERROR\r\n" \
           "CLIENT_ERROR bad command line format\r\nERROR\r\n" \
           "CLIENT_ERROR bad command line format\r\nERROR\r\n" \
           "CLIENT_ERROR options flags too long\r\nERROR\r\nMN\r\n"]

    test {ms flags are 32-bit and truncated like set's} {
        mc_exchange $fd "ms bf 2 F4294967296\r\nhi\r\nmg bf f\r\nms bf 2 F4294967295\r\nhi\r\nmg bf f\r\n"
    } "HD\r\nHD f0\r\nHD\r\nHD f4294967295\r\n"

    test {ms with a bad data chunk, the leftover is read as a command} {
        mc_exchange $fd "ms bc 2\r\nhiXX\r\nmn\r\n"
    } "CLIENT_ERROR bad data chunk\r\nERROR\r\nMN\r\n"

    test {ms of an empty value, ms with T-1 is expired at once} {
        mc_exchange $fd "ms n1 0\r\n\r\nmg n1 v s\r\nms t1 2 T-1\r\nhi\r\nmg t1 v\r\n"
    } "HD\r\nVA 0 s0\r\n\r\nHD\r\nEN\r\n"

    test {ms C: a missing key is NF, a wrong CAS EX, the right one HD} {
        set r [mc_exchange $fd "ms mc 2 C999\r\nhi\r\nms mc 2\r\nhi\r\n"]
        set cas [meta_cas $fd mc]
        append r [mc_exchange $fd "ms mc 2 C[expr {$cas + 100}]\r\nno\r\nms mc 2 C$cas\r\nok\r\nmg mc v\r\n"]
    } "NF\r\nHD\r\nEX\r\nHD\r\nVA 2\r\nok\r\n"

    test {ms C with add and append modes} {
        mc_exchange $fd "ms mc2 1\r\nx\r\nms mc2 2 C1 ME\r\nhi\r\nms mc2 2 C1 MA\r\nhi\r\nms mc2 2 C1 MR\r\nhi\r\nmn\r\n"
    } "HD\r\nNS\r\nEX\r\nEX\r\nMN\r\n"

    test {ms answers c k and echoes O on failures too} {
        set r [mc_exchange $fd "ms nokey 1 MR k O5\r\nx\r\nms m1 2 c\r\nhi\r\n"]
        regsub -all {c\d+} $r cN
    } "NS knokey O5\r\nHD cN\r\n"

    test {ms too large is SERVER_ERROR with the data swallowed} {
        set big [string repeat x 2000000]
        mc_exchange $fd "ms tl 2000000\r\n$big\r\nmn\r\n"
    } "SERVER_ERROR object too large for cache\r\nMN\r\n"

    test {md: HD, then NF; q hides HD only} {
        mc_exchange $fd "ms dd 1\r\nx\r\nmd dd q\r\nmd dd\r\nmd dd q\r\nmn\r\nmg dd v\r\n"
    } "HD\r\nNF\r\nNF\r\nMN\r\nEN\r\n"

    test {md echoes k and O; md C mismatch is EX} {
        mc_exchange $fd "md nokey k O5\r\nms dc 1\r\nx\r\nmd dc C1\r\nmd dc C99999\r\n"
    } "NF knokey O5\r\nHD\r\nEX\r\nEX\r\n"

    test {md flag errors all read invalid or duplicate flag} {
        mc_exchange $fd "md d1 q q\r\nmd d1 Tabc\r\nmd d1 Cabc\r\nmd d1 zz\r\nmd d1 O12345678901234567890123456789012345\r\n"
    } [string cat [string repeat "CLIENT_ERROR invalid or duplicate flag\r\n" 4] \
           "CLIENT_ERROR opaque token too long\r\n"]

    test {md I marks stale: the first reader wins (X W), later ones see Z X} {
        set r [mc_exchange $fd "ms st 1\r\nx\r\nmd st I T30\r\nmg st v t\r\nmg st v t\r\n"]
    } "HD\r\nHD\r\nVA 1 t30 X W\r\nx\r\nVA 1 t30 Z X\r\nx\r\n"

    test {ms I with an older CAS stores a stale value, keeping TTL and token} {
        mc_exchange $fd "ms st 1 C1 I\r\ny\r\nmg st v t\r\nms st 1 C99999999 I\r\nz\r\n"
    } "HD\r\nVA 1 t30 Z X\r\ny\r\nEX\r\n"

    test {a plain ms replaces a stale item with a fresh one} {
        mc_exchange $fd "ms st 1\r\nw\r\nmg st v\r\n"
    } "HD\r\nVA 1\r\nw\r\n"

    test {mg N vivifies a miss: the first caller wins, the next see Z} {
        mc_exchange $fd "mg viv N30 v t\r\nmg viv N30 v t\r\nmg viv v\r\n"
    } "VA 0 t30 W\r\n\r\nVA 0 t30 Z\r\n\r\nVA 0 Z\r\n\r\n"

    test {mg R wins once when the TTL left is under the token} {
        mc_exchange $fd "ms rc 1 T10\r\nx\r\nmg rc R30 v t\r\nmg rc R30 v t\r\nmg rc R5 v\r\nms rc2 1 T100\r\nx\r\nmg rc2 R30 v\r\n"
    } "HD\r\nVA 1 t10 W\r\nx\r\nVA 1 t10 Z\r\nx\r\nVA 1 Z\r\nx\r\nHD\r\nVA 1\r\nx\r\n"

    test {ma: NF on a miss, N with J creates, D and modes} {
        mc_exchange $fd "ma cnt\r\nma cnt N0 J10 v\r\nma cnt v\r\nma cnt MD D3 v\r\nma cnt M- v\r\nma cnt M+ D2 v\r\nma cnt MI v\r\nma cnt q\r\nmn\r\n"
    } "NF\r\nVA 2\r\n10\r\nVA 2\r\n11\r\nVA 1\r\n8\r\nVA 1\r\n7\r\nVA 1\r\n9\r\nVA 2\r\n10\r\nMN\r\n"

    test {ma floors at 0, wraps at 2^64, answers t and c} {
        set r [mc_exchange $fd "ma cnt D100 MD v t c\r\nma w N0 J18446744073709551615 v\r\nma w v\r\n"]
        regsub -all {c\d+} $r cN
    } "VA 1 t-1 cN\r\n0\r\nVA 20\r\n18446744073709551615\r\nVA 1\r\n0\r\n"

    test {ma N without J starts at 0; T sets the TTL on success} {
        mc_exchange $fd "ma z0 N0\r\nmg z0 v\r\nma z0 T100 t\r\n"
    } "HD\r\nVA 1\r\n0\r\nHD t100\r\n"

    test {ma errors: flags, bad mode, non-numeric value} {
        mc_exchange $fd "ma cnt v v\r\nma cnt Dabc\r\nma cnt D-1\r\nma cnt Nabc\r\nma cnt MZ\r\nma cnt Md\r\nms nn 2\r\nab\r\nma nn v\r\n"
    } [string cat [string repeat "CLIENT_ERROR invalid or duplicate flag\r\n" 4] \
           "CLIENT_ERROR invalid mode for ma M token\r\nCLIENT_ERROR invalid mode for ma M token\r\n" \
           "HD\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n"]

    test {ma echoes k and O on a miss} {
        mc_exchange $fd "ma nokey k O5\r\nma nokey q\r\nmn\r\n"
    } "NF knokey O5\r\nNF\r\nMN\r\n"

    test {meta and classic commands share items, CAS and TTL} {
        set r [mc_exchange $fd "set shared 5 100 3\r\nabc\r\nmg shared v f t\r\nms shared 3 F9\r\nxyz\r\nget shared\r\nincr num 1\r\nma num N0 J41\r\nincr num 1\r\n"]
        lassign [mc_gets $fd shared] value cas
        assert_equal [meta_cas $fd shared] $cas
        set r
    } "STORED\r\nVA 3 f5 t100\r\nabc\r\nHD\r\nVALUE shared 9 3\r\nxyz\r\nEND\r\nNOT_FOUND\r\nHD\r\n42\r\n"

    test {b: base64 keys, k answers the encoded key and b} {
        mc_exchange $fd "mg Zm9vAGJhcg== b k v\r\nms Zm9vAGJhcg== 2 b\r\nhi\r\nmg Zm9vAGJhcg== b k v\r\nmg !!!! b v\r\nms m1 2 k b\r\nhi\r\n"
    } "EN kZm9vAGJhcg== b\r\nHD\r\nVA 2 kZm9vAGJhcg== b\r\nhi\r\nCLIENT_ERROR error decoding key\r\nCLIENT_ERROR error decoding key\r\n"

    test {b: a base64 key names the same item as the plain key} {
        mc_exchange $fd "ms Zm9v 1 b\r\nx\r\nmg foo v\r\nmg Zm9v k b\r\n"
    } "HD\r\nVA 1\r\nx\r\nHD kZm9v b\r\n"

    test {mn ignores extra tokens; upper case is ERROR} {
        mc_exchange $fd "mn extra\r\nMG m1 v\r\nmgx m1\r\n"
    } "MN\r\nERROR\r\nERROR\r\n"

    test {me: a debug line for a hit, EN for a miss, no key is an error} {
        set r [mc_exchange $fd "ms me1 2 T100\r\nhi\r\nme me1\r\nme nokey\r\nme\r\n"]
    } "HD\r\nME me1 exp=* la=* cas=* fetch=no cls=* size=*\r\nEN\r\nCLIENT_ERROR bad command line format\r\n"

    test {meta commands split byte by byte across writes} {
        set s [mc_connect]
        foreach ch [split "ms split 5 T0 F3\r\nhello\r\nmg split v f\r\n" {}] {
            mc_send $s $ch
            after 1
        }
        set r [list [mc_readline $s] [mc_readline $s] [mc_readline $s]]
        mc_close $s
        set r
    } {HD {VA 5 f3} hello}

    test {a pipeline of 300 quiet meta sets ends with one MN} {
        set req {}
        for {set i 0} {$i < 300} {incr i} { append req "ms pq$i 3 q\r\n[format %03d $i]\r\n" }
        set r [mc_exchange $fd "${req}mn\r\nmg pq299 v\r\nmg pq7 v\r\n"]
    } "MN\r\nVA 3\r\n299\r\nVA 3\r\n007\r\n"
}

start_server {tags {meta mcds-only}} {
    set fd [mc_connect]

    test {E sets an explicit CAS on ms, mg N, md I and ma} {
        set r [mc_exchange $fd "ms e1 2 E999\r\nhi\r\nmg e1 c\r\nmg e2 N30 E555 c\r\nmd e1 I E777\r\nmg e1 c\r\nma e3 N0 E444 c\r\n"]
    } "HD\r\nHD c999\r\nHD c555 W\r\nHD\r\nHD c777 X W\r\nHD c444\r\n"

    test {md x empties the value but keeps the item and its flags} {
        mc_exchange $fd "ms x1 3 F5 T100\r\nabc\r\nmd x1 x\r\nmg x1 v f t\r\n"
    } "HD\r\nHD\r\nVA 0 f5 t100\r\n\r\n"

    test {ms append with N vivifies a missing item} {
        mc_exchange $fd "ms av 2 MA\r\nxx\r\nms av 2 MA N30\r\nxx\r\nmg av v t\r\nms av 2 MA N30\r\nyy\r\nmg av v\r\n"
    } "NS\r\nHD\r\nVA 2 t30\r\nxx\r\nHD\r\nVA 4\r\nxxyy\r\n"

    test {ms s answers the stored size} {
        mc_exchange $fd "ms s1 2 s\r\nhi\r\n"
    } "HD s2\r\n"

    test {meta stats: cmd_meta counts meta commands} {
        set before [mc_stat $fd cmd_meta]
        mc_exchange $fd "mn\r\nmg nokey\r\nmn\r\n"
        expr {[mc_stat $fd cmd_meta] - $before}
    } 3
}
