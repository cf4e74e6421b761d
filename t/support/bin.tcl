# memcached's binary protocol for tests: a packet builder and parser, and
# exchanges fenced by a NOOP. Shared by every unit that speaks binary.

set ::bin_ops {
    GET 0x00 SET 0x01 ADD 0x02 REPLACE 0x03 DELETE 0x04 INCREMENT 0x05
    DECREMENT 0x06 QUIT 0x07 FLUSH 0x08 GETQ 0x09 NOOP 0x0a VERSION 0x0b
    GETK 0x0c GETKQ 0x0d APPEND 0x0e PREPEND 0x0f STAT 0x10 SETQ 0x11
    ADDQ 0x12 REPLACEQ 0x13 DELETEQ 0x14 INCREMENTQ 0x15 DECREMENTQ 0x16
    QUITQ 0x17 FLUSHQ 0x18 APPENDQ 0x19 PREPENDQ 0x1a VERBOSITY 0x1b
    TOUCH 0x1c GAT 0x1d GATQ 0x1e SASL_LIST_MECHS 0x20 SASL_AUTH 0x21
    SASL_STEP 0x22 GATK 0x23 GATKQ 0x24
}
set ::bin_statuses {
    0 OK 1 KEY_ENOENT 2 KEY_EEXISTS 3 E2BIG 4 EINVAL 5 NOT_STORED
    6 DELTA_BADVAL 32 AUTH_ERROR 129 UNKNOWN_COMMAND 130 ENOMEM
}
set ::bin_fence 0xfeedf00d

set ::MAX64 18446744073709551615

# bin_pkt op ?-key k? ?-ext e? ?-value v? ?-opaque n? ?-cas n? ?-magic n?
#   ?-keylen n? ?-extlen n? ?-bodylen n? -> request bytes. The length
# options override the true lengths, to build broken headers.
proc bin_pkt {op args} {
    set o [dict merge {-key {} -ext {} -value {} -opaque 0 -cas 0 -magic 0x80} $args]
    set opcode [expr {[dict exists $::bin_ops $op] ? [dict get $::bin_ops $op] : $op}]
    set key [dict get $o -key]
    set ext [dict get $o -ext]
    set value [dict get $o -value]
    set kl [string length $key]
    set el [string length $ext]
    set bl [expr {$kl + $el + [string length $value]}]
    if {[dict exists $o -keylen]} { set kl [dict get $o -keylen] }
    if {[dict exists $o -extlen]} { set el [dict get $o -extlen] }
    if {[dict exists $o -bodylen]} { set bl [dict get $o -bodylen] }
    return [string cat [binary format ccSccSIIW [dict get $o -magic] $opcode $kl $el 0 0 \
        $bl [dict get $o -opaque] [dict get $o -cas]] $ext $key $value]
}

# Extras: flags+expiration (storage), delta+initial+expiration (incr/decr),
# one 32-bit expiration (touch, gat, flush).
proc bin_store_ext {{flags 0} {exptime 0}} { binary format II $flags $exptime }
proc bin_arith_ext {delta {initial 0} {exptime 0}} { binary format WWI $delta $initial $exptime }
proc bin_u32 {v} { binary format I $v }

# bin_read fd -> dict of one response: op status keylen extlen bodylen
# opaque cas ext key value. Fails on a bad magic or datatype.
proc bin_read {fd} {
    set h [mc_read_bytes $fd 24]
    binary scan $h cucuSucucuSuIuIuWu magic op keylen extlen dtype status bodylen opaque cas
    if {$magic != 0x81} { fail "response magic [format 0x%02x $magic], expected 0x81" }
    if {$dtype != 0} { fail "response datatype $dtype, expected 0" }
    set body [mc_read_bytes $fd $bodylen]
    set ext [string range $body 0 [expr {$extlen - 1}]]
    set key [string range $body $extlen [expr {$extlen + $keylen - 1}]]
    set value [string range $body [expr {$extlen + $keylen}] end]
    dict create op $op status $status keylen $keylen extlen $extlen bodylen $bodylen \
        opaque $opaque cas $cas ext $ext key $key value $value
}

proc bin_opname {op} {
    dict for {name code} $::bin_ops {
        if {$code == $op} { return $name }
    }
    return [format 0x%02x $op]
}

# bin_show response -> a short list: opcode name, status name, then
# flags=N (4-byte extras), key=K, and the body (incr/decr: num=N).
proc bin_show {r} {
    set status [dict get $r status]
    set out [list [bin_opname [dict get $r op]] \
        [expr {[dict exists $::bin_statuses $status] ? [dict get $::bin_statuses $status] : $status}]]
    if {[dict get $r extlen] == 4} {
        binary scan [dict get $r ext] Iu flags
        lappend out flags=$flags
    } elseif {[dict get $r extlen] > 0} {
        binary scan [dict get $r ext] H* hex
        lappend out ext=$hex
    }
    if {[dict get $r keylen] > 0} { lappend out key=[dict get $r key] }
    set value [dict get $r value]
    if {$status == 0 && [dict get $r op] in {5 6 21 22}} {
        binary scan $value Wu n
        lappend out num=$n
    } elseif {$value ne {}} {
        lappend out $value
    }
    return $out
}

# bin_exchange fd bytes ?cas? -> list of bin_show of every response to
# bytes (with cas, each followed by cas=0 or cas=#: whether it carries
# one). A NOOP is sent after them as a fence and its response is not
# returned.
proc bin_exchange {fd bytes {cas 0}} {
    mc_send $fd [string cat $bytes [bin_pkt NOOP -opaque $::bin_fence]]
    set out {}
    while 1 {
        set r [bin_read $fd]
        if {[dict get $r op] == 0x0a && [dict get $r opaque] == $::bin_fence} break
        set s [bin_show $r]
        if {$cas} { lappend s [expr {[dict get $r cas] == 0 ? "cas=0" : "cas=#"}] }
        lappend out $s
    }
    return $out
}

# bin_cmd fd bytes -> the response dict of one non-quiet request.
proc bin_cmd {fd bytes} {
    mc_send $fd $bytes
    return [bin_read $fd]
}

proc bin_set {fd key value {flags 0} {exptime 0}} {
    bin_cmd $fd [bin_pkt SET -key $key -ext [bin_store_ext $flags $exptime] -value $value]
}

# bin_stats fd ?group? -> dict of the stat packets up to the empty one.
proc bin_stats {fd {group {}}} {
    mc_send $fd [bin_pkt STAT -key $group -opaque 77]
    set d [dict create]
    while 1 {
        set r [bin_read $fd]
        if {[dict get $r status] != 0} { return [bin_show $r] }
        if {[dict get $r op] != 0x10 || [dict get $r opaque] != 77} {
            fail "stat packet with opcode [dict get $r op] opaque [dict get $r opaque]"
        }
        if {[dict get $r keylen] == 0} break
        dict set d [dict get $r key] [dict get $r value]
    }
    return $d
}

# stat_deltas before after names -> how much each general stat grew.
proc stat_deltas {before after names} {
    set out {}
    foreach n $names {
        lappend out [expr {[dict get $after $n] - [dict get $before $n]}]
    }
    return $out
}

# Writes bytes one at a time with a pause, so the server reads them in
# pieces.
proc bin_send_slowly {fd bytes {pause 2}} {
    foreach ch [split $bytes {}] {
        mc_send $fd $ch
        after $pause
    }
}
