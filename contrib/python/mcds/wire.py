"""How arguments are written on the wire and checked before they are sent.

Every name, option value and number goes through one of these functions,
so nothing a caller passes can add a token or a line to a request: keys and
option values are refused when they are empty, too long or hold a space or
a control byte; data always travels as a length and a data block, never in
the command line.
"""

from pymemcache.exceptions import MemcacheIllegalInputError

KEY_MAX = 250


def _bytes(value, what):
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise MemcacheIllegalInputError("%s must be str or bytes: %r" % (what, value))


def token(value, what="value", limit=KEY_MAX):
    """One token of a command line: 1..limit bytes, none a space or a
    control byte."""
    value = _bytes(value, what)
    if not value or len(value) > limit or any(b <= 32 or b == 127 for b in value):
        raise MemcacheIllegalInputError("bad %s %r" % (what, value))
    return value


def key(value, what="key"):
    """A key or a structure's name: 1..250 bytes, no space or control byte."""
    return token(value, what, KEY_MAX)


def data(value):
    """A message or element: bytes as given, str as UTF-8."""
    return _bytes(value, "data")


def integer(value, what="number"):
    """A whole number (a bool is refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MemcacheIllegalInputError("%s must be an int: %r" % (what, value))
    return str(value).encode()


def number(value, what="number"):
    """A number as the protocol writes it: an int, or seconds with a
    fraction (milliseconds at most)."""
    if isinstance(value, float):
        return ("%.3f" % value).rstrip("0").rstrip(".").encode()
    return integer(value, what)


def receipt(value):
    """A receipt ("41:2", or a Message) or a bare id (41)."""
    value = getattr(value, "receipt", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode()
    if isinstance(value, str) and value.replace(":", "", 1).isdigit():
        return value.encode()
    raise MemcacheIllegalInputError("not a receipt or id: %r" % (value,))


def options(**opts):
    """" name=value" for each option given (None: left out). Numbers are
    written as numbers, anything else as a token."""
    out = b""
    for name, value in opts.items():
        if value is None:
            continue
        if isinstance(value, (int, float)):
            out += b" %s=%s" % (name.encode(), number(value, name))
        else:
            out += b" %s=%s" % (name.encode(), token(value, name))
    return out


def maybe_int(value):
    """A reply field as an int when it is one (a sign allowed), else str."""
    text = value.decode(errors="replace")
    return int(text) if text.lstrip("-").isdigit() else text
