# http.tcl: a raw HTTP/1.1 client for the metrics listener's tests, so a
# test sees exactly what the server sends.

# http_request port request -> {status headers body}: sends the bytes of
# request on a new connection to 127.0.0.1:port, reads until the server
# closes. status is the numeric code ("" when nothing came back), headers
# a dict with lower-case names.
proc http_request {port request} {
    set s [socket 127.0.0.1 $port]
    fconfigure $s -translation binary -blocking 1
    puts -nonewline $s $request
    flush $s
    set r [mc_read_until_close $s]
    catch {close $s}
    set split [string first "\r\n\r\n" $r]
    if {$split < 0} { return [list {} {} $r] }
    set head [split [string map {"\r\n" "\n"} [string range $r 0 [expr {$split - 1}]]] "\n"]
    set status {}
    regexp {^HTTP/1\.1 (\d+) } [lindex $head 0] -> status
    set headers {}
    foreach line [lrange $head 1 end] {
        if {[regexp {^([^:]+):\s*(.*)$} $line -> k v]} { dict set headers [string tolower $k] $v }
    }
    return [list $status $headers [string range $r [expr {$split + 4}] end]]
}

# http_get port path ?extra header lines? -> {status headers body}
proc http_get {port path {extra {}}} {
    set req "GET $path HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nConnection: close\r\n"
    foreach h $extra { append req "$h\r\n" }
    http_request $port "$req\r\n"
}

# http_basic user password -> the Authorization header line.
proc http_basic {user password} {
    return "Authorization: Basic [binary encode base64 $user:$password]"
}

# metrics_scrape port ?extra? -> the body of GET /metrics (fails unless 200).
proc metrics_scrape {port {extra {}}} {
    lassign [http_get $port /metrics $extra] status headers body
    if {$status ne "200"} { fail "GET /metrics answered '$status': [visible $body]" }
    return $body
}

# metrics_value text metric ?labels? -> the sample's value, or "" when the
# exposition has no such sample. labels is the text between the braces.
proc metrics_value {text metric {labels {}}} {
    set want [expr {$labels eq {} ? $metric : "$metric\{$labels\}"}]
    foreach line [split $text "\n"] {
        set sp [string last " " $line]
        if {$sp > 0 && [string range $line 0 [expr {$sp - 1}]] eq $want} {
            return [string range $line [expr {$sp + 1}] end]
        }
    }
    return {}
}
