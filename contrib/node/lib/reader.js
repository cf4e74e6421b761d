// reader.js: reading one reply out of the bytes received so far. A parser
// takes lines and data blocks from a Cursor; when the reply is not all
// there yet the Cursor throws NEED_MORE and the parser runs again, from
// the start of the reply, once more bytes have come.
'use strict';

const { ConnectionError, replyError } = require('./errors');

const NEED_MORE = Symbol('need more bytes');
const LINE_MAX = 65536;

class Cursor {
  constructor(buf, server) {
    this.buf = buf;
    this.pos = 0;
    this.server = server;
  }

  // The next line, without its \r\n.
  rawLine() {
    const end = this.buf.indexOf('\r\n', this.pos, 'latin1');
    if (end < 0) {
      if (this.buf.length - this.pos > LINE_MAX) throw this.outOfStep('a reply line over 64 KB');
      throw NEED_MORE;
    }
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 2;
    return s;
  }

  // The next line; an error line (ERROR, CLIENT_ERROR, SERVER_ERROR) is
  // thrown as its Error.
  line() {
    const s = this.rawLine();
    const err = replyError(s, this.server);
    if (err) throw err;
    return s;
  }

  // A data block of n bytes and its \r\n.
  block(n) {
    if (this.buf.length < this.pos + n + 2) throw NEED_MORE;
    if (this.buf[this.pos + n] !== 13 || this.buf[this.pos + n + 1] !== 10) {
      throw this.outOfStep('a data block not ending in \\r\\n');
    }
    const data = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n + 2;
    return data;
  }

  // The error for a reply the request did not expect: the connection is
  // out of step and is closed.
  outOfStep(what) {
    return new ConnectionError(`unexpected reply: ${what}`, this.server);
  }
}

module.exports = { Cursor, NEED_MORE };
