# contrib/python/mcds.py, the queue verbs for Python on top of pymemcache:
# t/clients/mcds_module_check.py runs every call (qcreate, qpush, qpop with
# lease, wait and ack, receipts, qack, qrelease, qtouch, qpeek, qpending,
# qstats, qpurge) and its errors against the server under test, and exits
# non-zero at the first mismatch; what it leaves is then read back over the
# text protocol (the last message it leased is still in flight).

start_server {tags {clients pymemcache mcds-only} args {-I 1m}} {
    test {contrib/python/mcds.py: every queue call, its replies and its errors} {
        set py [pymemcache_python]
        set script [file join [srcdir] t clients mcds_module_check.py]
        lassign [run_cmd 60 $py $script [srcdir] 127.0.0.1 [srv port] [expr {1 * [time_factor]}]] status out
        if {$status ne "0"} { fail "mcds_module_check.py exited $status:\n$out" }
        if {![string match "*all checks passed*" $out]} { fail "mcds_module_check.py did not finish:\n$out" }
        verbose $out
        regexp -all -line {^ok - } $out
    } 25

    test {contrib/python/mcds.py: what it left, seen over the text protocol} {
        set fd [mc_connect]
        list [q_counts $fd py:q] [mc_get $fd py:string]
    } {{0 0 1} v}
}

set ::py_auth [file join [tmpdir pyauth] users]
set f [open $::py_auth w]; puts $f "alice:s3cret"; close $f

start_server [list tags {clients pymemcache mcds-only} args [list -Y $::py_auth]] {
    test {contrib/python/mcds.py: username/password authenticate every connection it opens} {
        set py [pymemcache_python]
        set code {
import sys
sys.path.insert(0, sys.argv[1] + "/contrib/python")
import mcds
from pymemcache.exceptions import MemcacheClientError
c = mcds.Client(("127.0.0.1", int(sys.argv[2])), username="alice", password="s3cret")
c.set("k", b"v")
print("get", c.get("k"), "push", c.qpush("q", b"x") > 0)
c.close()
print("again", c.get("k"))
try:
    mcds.Client(("127.0.0.1", int(sys.argv[2])), username="alice", password="nope").get("k")
except MemcacheClientError as e:
    print("refused", e)
}
        lassign [run_cmd 30 $py -c $code [srcdir] [srv port]] status out
        if {$status ne "0"} { fail "exited $status:\n$out" }
        string trim $out
    } "get b'v' push True\nagain b'v'\nrefused b'authentication failure'"
}
