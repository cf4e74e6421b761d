// connection.js: one socket to one server. Requests are written as they
// come (pipelined); replies are read in order, each by its request's
// parser. A timeout, a reset or a reply out of step closes the connection
// and fails every request still waiting on it.
'use strict';

const net = require('net');
const tls = require('tls');
const { EventEmitter } = require('events');
const { ConnectionError, AuthenticationError, ReplyError } = require('./errors');
const { Cursor, NEED_MORE } = require('./reader');
const { request } = require('./request');

class Connection extends EventEmitter {
  // server: {host, port, path, name}; opts: timeout, connectTimeout, tls,
  // username, password.
  constructor(server, opts) {
    super();
    this.server = server;
    this.opts = opts;
    this.pending = [];
    this.buf = Buffer.alloc(0);
    this.timer = null;
    this.dead = false;
    this.blocking = false;
    this.socket = this.connect();
    if (opts.username !== undefined) this.send(authRequest(opts.username, opts.password), true);
  }

  connect() {
    const { host, port, path } = this.server;
    const where = path ? { path } : { host, port };
    const s = this.opts.tls
      ? tls.connect({ ...where, ...(net.isIP(host) ? {} : { servername: host }), ...(this.opts.tls === true ? {} : this.opts.tls) })
      : net.connect(where);
    s.setNoDelay(true);
    s.on('data', (chunk) => this.onData(chunk));
    s.on('error', (err) => this.fail(new ConnectionError(err.message, this.server.name, err)));
    s.on('close', () => this.fail(new ConnectionError('connection closed by the server', this.server.name)));
    s.once(this.opts.tls ? 'secureConnect' : 'connect', () => {
      this.connected = true;
      this.armTimer(this.pending.length ? this.timeoutOf(this.pending[0]) : 0);
    });
    this.armTimer(this.opts.connectTimeout);
    return s;
  }

  get load() { return this.pending.length; }

  // Writes req and resolves/rejects it with its reply (req.resolve/reject).
  send(req, isAuth = false) {
    if (this.dead) return req.reject(new ConnectionError('connection closed', this.server.name));
    req.isAuth = isAuth;
    if (req.blocking) this.blocking = true;
    this.pending.push(req);
    if (this.pending.length === 1 && this.connected) this.armTimer(this.timeoutOf(req));
    this.socket.write(req.bytes);
  }

  timeoutOf(req) {
    return this.opts.timeout + req.waitMs;
  }

  armTimer(ms) {
    clearTimeout(this.timer);
    this.timer = null;
    if (!ms) return;
    this.timer = setTimeout(() => this.fail(new ConnectionError(`no reply within ${ms} ms`, this.server.name)), ms);
  }

  onData(chunk) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.pending.length && !this.dead) {
      if (!this.readOne(this.pending[0])) break;
    }
    if (!this.pending.length && this.buf.length && !this.dead) {
      this.fail(new ConnectionError('bytes nobody asked for', this.server.name));
    }
    this.armTimer(this.pending.length ? this.timeoutOf(this.pending[0]) : 0);
  }

  // Parses the head request's reply; false when more bytes are needed.
  readOne(req) {
    const c = new Cursor(this.buf, this.server.name);
    let result;
    let error = null;
    try {
      result = req.parse(c);
    } catch (err) {
      if (err === NEED_MORE) return false;
      if (!(err instanceof ReplyError)) {
        this.fail(err);
        return false;
      }
      error = err;
    }
    this.buf = this.buf.subarray(c.pos);
    this.pending.shift();
    if (req.blocking) this.blocking = false;
    if (error) this.settleError(req, error);
    else req.resolve(result);
    this.emit('done', this);
    return true;
  }

  settleError(req, error) {
    if (!req.isAuth) return req.reject(error);
    const e = new AuthenticationError(error.reply, this.server.name);
    req.reject(e);
    this.fail(e);
  }

  // Closes the connection; every request waiting on it fails with err.
  fail(err) {
    if (this.dead) return;
    this.dead = true;
    if (!this.connected && err instanceof ConnectionError) err.connectFailed = true;
    clearTimeout(this.timer);
    this.socket.destroy();
    const waiting = this.pending;
    this.pending = [];
    for (const req of waiting) req.reject(err);
    this.emit('dead', this, err);
  }

  close() {
    this.fail(new ConnectionError('client closed', this.server.name));
  }
}

// memcached's text-protocol authentication: a set whose data is
// "<user> <password>" (doc/protocol.md, "Authentication").
function authRequest(username, password) {
  const token = Buffer.from(`${username} ${password}`, 'utf8');
  const req = request(['set', 'auth', '0', '0', String(token.length)], [token], (c) => {
    const l = c.line();
    if (l !== 'STORED') throw c.outOfStep(l);
    return true;
  });
  req.resolve = () => {};
  req.reject = () => {};
  return req;
}

module.exports = { Connection };
