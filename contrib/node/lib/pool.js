// pool.js: the connections to one server. A request goes to an idle
// connection, else to a new one while there are fewer than maxConnections,
// else it is pipelined behind the least busy (up to maxPipeline replies
// owed), else it waits its turn here. A blocking read (a pop with wait=)
// gets a connection of its own: nothing is pipelined behind it.
'use strict';

const { Connection } = require('./connection');
const { ConnectionError } = require('./errors');

class ServerPool {
  constructor(server, opts) {
    this.server = server;
    this.opts = opts;
    this.conns = [];
    this.waiting = [];
    this.closed = false;
  }

  // Sends req ({bytes, parse, waitMs, blocking}); resolves with its reply.
  send(req) {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new ConnectionError('client closed', this.server.name));
      req.resolve = resolve;
      req.reject = reject;
      this.waiting.push(req);
      this.drain();
    });
  }

  drain() {
    while (this.waiting.length) {
      const conn = this.pick(this.waiting[0].blocking);
      if (!conn) return;
      conn.send(this.waiting.shift());
    }
  }

  pick(blocking) {
    const usable = this.conns.filter((c) => !c.dead && !c.blocking);
    const idle = usable.find((c) => c.load === 0);
    if (idle) return idle;
    if (this.conns.length < this.opts.maxConnections) return this.open();
    if (blocking || !usable.length) return null;
    const least = usable.reduce((a, b) => (b.load < a.load ? b : a));
    return least.load < this.opts.maxPipeline ? least : null;
  }

  open() {
    const conn = new Connection(this.server, this.opts);
    conn.on('done', () => this.drain());
    conn.on('dead', (c, err) => this.forget(c, err));
    this.conns.push(conn);
    return conn;
  }

  // A connection that never connected fails the requests waiting here too
  // (the server is down: they would fail the same way one by one).
  forget(conn, err) {
    this.conns = this.conns.filter((c) => c !== conn);
    if (!conn.connected && !this.closed) {
      const waiting = this.waiting;
      this.waiting = [];
      for (const req of waiting) req.reject(err);
    }
    this.drain();
  }

  close() {
    this.closed = true;
    const err = new ConnectionError('client closed', this.server.name);
    for (const req of this.waiting.splice(0)) req.reject(err);
    for (const c of this.conns.slice()) c.close();
  }
}

module.exports = { ServerPool };
