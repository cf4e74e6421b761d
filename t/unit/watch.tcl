# watch fetchers|mutations|evictions: memcached's log streaming, with
# bounded watchers and a bounded buffer per watcher.

# Reads lines from a watching connection until one matches pattern (a
# regexp); returns it, or fails after a bounded wait.
proc watch_until {fd pattern} {
    fconfigure $fd -blocking 0
    for {set i 0} {$i < 100 * [time_factor]} {incr i} {
        while {[gets $fd line] >= 0} {
            if {[regexp $pattern $line]} {
                fconfigure $fd -blocking 1
                return $line
            }
        }
        if {[eof $fd]} break
        after 50
    }
    fconfigure $fd -blocking 1
    fail "no line matching $pattern"
}

# Sends a watch line on a new connection; returns {connection reply}
# (a watching connection answers nothing more, so no fence is used).
proc watch_send {args} {
    set w [mc_connect]
    puts -nonewline $w "watch [join $args]\r\n"
    flush $w
    gets $w line
    return [list $w [string trimright $line "\r"]]
}

proc watch_start {args} {
    lassign [watch_send {*}$args] w r
    if {$r ne "OK"} { fail "watch answered '$r'" }
    return $w
}

start_server {tags {watch mcds-only} args {-m 2}} {
    set fd [mc_connect]

    test {watch fetchers: one line per get, memcached's format} {
        set w [watch_start fetchers]
        mc_exchange $fd "set w:1 0 0 3\r\nbar\r\nget w:1\r\nget nokey\r\n"
        set r [list [regexp {^ts=\d+\.\d{6} gid=\d+ type=item_get key=w%3A1 status=found clsid=1 cfd=\d+ size=3$} \
                         [watch_until $w {key=w%3A1}]] \
                   [regexp {status=not_found clsid=0 cfd=\d+ size=0$} [watch_until $w {key=nokey}]]]
        close $w
        set r
    } {1 1}

    test {watch mutations: one line per store, with its outcome} {
        set w [watch_start mutations]
        mc_exchange $fd "set m1 0 100 2\r\nhi\r\nadd m1 0 0 1\r\nx\r\n"
        set r [list [regexp {type=item_store key=m1 status=stored cmd=set ttl=100 clsid=1 cfd=\d+ size=2$} \
                         [watch_until $w {key=m1 status=stored}]] \
                   [regexp {status=not_stored cmd=add} [watch_until $w {cmd=add}]]]
        close $w
        set r
    } {1 1}

    test {watch evictions: a line per evicted item} {
        set w [watch_start evictions]
        set v [string repeat x 100000]
        for {set i 0} {$i < 40} {incr i} { mc_exchange $fd "set big$i 0 0 100000\r\n$v\r\n" }
        set line [watch_until $w {type=eviction key=big}]
        close $w
        regexp {type=eviction key=big\d+ fetch=no ttl=-1 la=\d+ clsid=1$} $line
    } 1

    test {watch with an unknown stream is ERROR; log_watchers counts watchers} {
        # The watchers closed above may not be forgotten yet.
        wait_for {[mc_stat $fd log_watchers] == 0}
        set w [watch_start fetchers]
        set r [list [lindex [watch_send foo] 1] [mc_stat $fd log_watchers]]
        close $w
        set r
    } {ERROR 1}

    test {at most 8 watchers: the next one is refused} {
        set ws {}
        set r {}
        while {[llength $ws] < 9} {
            lassign [watch_send mutations] w r
            lappend ws $w
            if {$r ne "OK"} break
        }
        foreach w $ws { close $w }
        set r
    } {WATCHER_TOO_MANY log watcher limit reached}

    test {watchers that hang up are forgotten} {
        wait_for {[mc_stat $fd log_watchers] == 0}
        set w [watch_start mutations]
        expr {[mc_stat $fd log_watchers] >= 1}
    } 1
}

start_server {tags {watch mcds-only} args {-o watcher_logbuf_size=1}} {
    test {a watcher that falls behind gets skipped=N} {
        set fd [mc_connect]
        set w [watch_start mutations]
        set batch {}
        for {set i 0} {$i < 200} {incr i} { append batch "set s$i 0 0 1 noreply\r\nx\r\n" }
        mc_send $fd $batch
        mc_exchange $fd "mn\r\n"
        regexp {^skipped=\d+$} [watch_until $w {^skipped=}]
    } 1
}

start_server {tags {watch mcds-only}} {
    test {a watcher whose buffer holds more than 64 KB when it is flushed gets all of it} {
        set fd [mc_connect]
        set w [watch_start mutations]
        set batch {}
        # about 150 KB of lines: over 64 KB, under the 256 KB buffer
        for {set i 0} {$i < 1000} {incr i} {
            append batch "set [string repeat k 60]$i 0 0 1 noreply\r\nx\r\n"
        }
        append batch "set last-key 0 0 1 noreply\r\nx\r\n"
        mc_send $fd $batch
        mc_exchange $fd "mn\r\n"
        regexp {key=last-key } [watch_until $w {key=last-key }]
    } 1
}
