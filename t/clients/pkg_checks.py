"""The assertions the Python package's check scripts share
(mcds_pkg_check.py, mcds_tables_check.py): each passing check prints
"ok - <what>" and is counted; the first mismatch exits 1 with a message.
"""
import sys

CHECKS = 0


def check(what, got, want):
    global CHECKS
    if got != want:
        sys.exit("FAIL %s: got %r, want %r" % (what, got, want))
    CHECKS += 1
    print("ok - %s" % what)


def raises(what, exc, fn, *args, **kw):
    global CHECKS
    try:
        fn(*args, **kw)
    except exc as e:
        CHECKS += 1
        print("ok - %s (%s: %s)" % (what, type(e).__name__, e))
        return e
    except Exception as e:      # the wrong exception is a failure too
        sys.exit("FAIL %s: %s %s, want %s" % (what, type(e).__name__, e, exc.__name__))
    sys.exit("FAIL %s: no %s" % (what, exc.__name__))


def passed():
    """The last line a check script prints: the count, then "all checks
    passed" (what the suite looks for)."""
    print("%d checks; all checks passed" % CHECKS)
