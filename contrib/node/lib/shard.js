// shard.js: one entry of the server list, and which of its members each
// request goes to. An entry without replicas sends everything to its one
// server, as always. An entry that names a replica set ("P=R=R2"):
//
// - Writes, and every verb not in READ_VERBS, go to the current primary:
//   the entry's first address (its service address) at first.
// - A request is sent again only when it surely was not applied: its
//   connection never opened (refused, unreachable, connect timeout), or
//   the server refused it as a replica ("SERVER_ERROR read-only replica[ of
//   H:P]") or as a stale one ("SERVER_ERROR stale replica: ..."). A refusal
//   naming its primary sends the request there next (no pause before the
//   first such redirect); otherwise the members are tried in list order,
//   the service address last, each further round 100 ms later from the
//   current primary. Past retryTimeout ms the current primary's last error
//   is thrown (what it would have been without replicas). A
//   member, or a named primary, that answers becomes the current primary.
// - Anything else (a connection lost after the request was written, no
//   reply in time, "not confirmed by enough replicas") rejects as always:
//   the change may have been made.
// - With readReplicas, READ_VERBS go to the members other than the current
//   primary in turn; one that cannot be connected to or refuses as stale
//   is skipped, and the primary answers when none can.
// - A member that cannot be connected to or refuses as stale is marked
//   down for reconnectDelay ms: the reads skip it meanwhile (a machine that
//   is down and silent costs one connectTimeout, not one per read). One
//   read after that tries it again (the others still skip it): an answer
//   clears the mark, a failure marks it again for twice as long, up to
//   DOWN_CAP_MS (or reconnectDelay when longer). Requests on the primary
//   ignore the marks (they still set and clear them); reconnectDelay 0
//   marks nothing.
'use strict';

const { performance } = require('perf_hooks');
const { ServerPool } = require('./pool');
const { ConnectionError, ServerError, ReplyError } = require('./errors');
const { named } = require('./servers');

// Verbs a replica may answer with readReplicas. Not here: gets (its cas is
// the primary's, and getMulti uses it), kscan and kscanclose (a cursor
// lives on the server that opened it), and every write.
const READ_VERBS = new Set(['get', 'qpeek', 'qpending', 'qstats', 'qinfo', 'qlist', 'llen', 'lrange',
  'lindex', 'lexists', 'lpos', 'ctcounter', 'ctcounters', 'ctinfo', 'ctchildren', 'ctget', 'ctvalues',
  'ctactive', 'ctperiods']);

const PAUSE_MS = 100;
// A member's mark down at most, unless reconnectDelay is longer.
const DOWN_CAP_MS = 30000;
// Addresses named by refusals that are not members, kept at most.
const MAX_OTHERS = 8;
const READ_ONLY = 'SERVER_ERROR read-only replica';
// a link not up, or behind longer than --replica-max-lag
const STALE = 'SERVER_ERROR stale replica:';

// The server a "read-only replica of HOST:PORT" refusal names, or null
// when HOST:PORT is not an address ("x", a bad port).
function namedPrimary(text) {
  if (text.length > 300) return null;
  const m = /^\[([^\][\s]+)\]:(\d{1,5})$/.exec(text) || /^([^\][\s]+):(\d{1,5})$/.exec(text);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535 || /[\x00-\x20\x7f]/.test(m[1])) return null;
  return named({ host: m[1], port: Number(m[2]), weight: 1 });
}

// What a failed try means: null (the error is the caller's), or
// {named, readOnly} for a try that surely changed nothing.
function retryable(err) {
  if (err instanceof ConnectionError && err.connectFailed) return { named: null, readOnly: false };
  if (!(err instanceof ServerError)) return null;
  if (err.reply === READ_ONLY) return { named: null, readOnly: true };
  if (err.reply.startsWith(`${READ_ONLY} of `)) {
    return { named: namedPrimary(err.reply.slice(READ_ONLY.length + 4)), readOnly: true };
  }
  if (err.reply.startsWith(STALE)) return { named: null, readOnly: false };
  return null;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

class Shard {
  // entry: a parsed server with .members; opts: the client's options.
  constructor(entry, opts) {
    this.members = entry.members;
    this.primary = entry.members[0];
    this.opts = opts;
    this.pools = new Map();
    this.others = [];
    this.nextRead = 0;
    this.down = new Map();    // member name: {until, ms, probing}
    this.closed = false;
  }

  // Whether reads leave a member (its name) alone now: its mark is not
  // over, or another read is trying it.
  isDown(name) {
    const mark = this.down.get(name);
    return mark !== undefined && (mark.probing || performance.now() < mark.until);
  }

  // server could not be reached, or refused as stale: marked down for
  // reconnectDelay, or twice its last mark when that one is over (the try
  // after it failed), up to the cap. A try made while it is marked (a
  // request on the primary) leaves the mark as it is.
  failed(server) {
    const base = this.opts.reconnectDelay;
    const mark = this.down.get(server.name);
    const now = performance.now();
    if (!base) return;
    if (mark) mark.probing = false;
    if (mark && now < mark.until) return;
    const ms = mark ? Math.min(mark.ms * 2, Math.max(DOWN_CAP_MS, base)) : base;
    this.down.set(server.name, { until: now + ms, ms, probing: false });
  }

  // After a try that neither answered nor failed to reach server (a
  // refusal as read-only, no reply in time): its probe, if it was one, ends.
  tried(server) {
    const mark = this.down.get(server.name);
    if (mark) mark.probing = false;
  }

  // The connections to a server (made at its first use).
  pool(server) {
    let p = this.pools.get(server.name);
    if (p) return p;
    if (!this.members.some((m) => m.name === server.name)) this.keepOther(server.name);
    p = new ServerPool(server, this.opts);
    if (this.closed) p.close();
    this.pools.set(server.name, p);
    return p;
  }

  // A refusal may name any address: only the last MAX_OTHERS are kept.
  keepOther(name) {
    this.others.push(name);
    while (this.others.length > MAX_OTHERS) {
      const old = this.others.find((n) => n !== this.primary.name);
      this.others = this.others.filter((n) => n !== old);
      this.pools.get(old)?.close();
      this.pools.delete(old);
      this.down.delete(old);
    }
  }

  // Sends req ({bytes, parse, verb, ...}); resolves with its reply.
  send(req) {
    if (this.members.length === 1) return this.pool(this.primary).send(req);
    if (this.opts.readReplicas && READ_VERBS.has(req.verb)) return this.sendRead(req);
    return this.sendPrimary(req);
  }

  // {ok: true, value} or {ok: false, err, named, readOnly}; other errors throw.
  // Marks server down, or clears its mark when it answers.
  async attempt(server, req) {
    try {
      const value = await this.pool(server).send(req);
      this.down.delete(server.name);
      return { ok: true, value };
    } catch (err) {
      const r = retryable(err);
      if (r && !r.readOnly) this.failed(server);
      else if (!r && err instanceof ReplyError) this.down.delete(server.name);
      else this.tried(server);
      if (!r || this.closed) throw err;
      return { ok: false, err, ...r };
    }
  }

  // The current primary, the other members in list order, the service
  // address last.
  round() {
    const service = this.members[0];
    const out = [this.primary, ...this.members.slice(1).filter((m) => m.name !== this.primary.name)];
    if (service.name !== this.primary.name) out.push(service);
    return out;
  }

  async sendPrimary(req) {
    const deadline = performance.now() + this.opts.retryTimeout;
    let pending = this.round();
    let redirected = false;
    let error = null;       // the current primary's last: what the call rejects with
    for (;;) {
      const target = pending.shift();
      const r = await this.attempt(target, req);
      if (r.ok) {
        this.primary = target;
        return r.value;
      }
      if (target.name === this.primary.name || !error) error = r.err;
      let pause = 0;
      if (r.named && r.named.name !== target.name) {
        pause = redirected ? PAUSE_MS : 0;
        redirected = true;
        pending.unshift(r.named);
      } else if (!pending.length) {
        pause = PAUSE_MS;
        pending = this.round();
      }
      if (performance.now() + pause >= deadline) throw error;
      if (pause) await sleep(pause);
    }
  }

  async sendRead(req) {
    const replicas = this.members.filter((m) => m.name !== this.primary.name);
    const start = this.nextRead % replicas.length;
    this.nextRead = start + 1;
    for (let i = 0; i < replicas.length; i++) {
      const target = replicas[(start + i) % replicas.length];
      if (this.isDown(target.name)) continue;
      const mark = this.down.get(target.name);
      if (mark) mark.probing = true;    // its mark is over: this read tries it
      const r = await this.attempt(target, req);
      if (r.ok) return r.value;
      if (r.readOnly) break;      // a read only a primary serves (a Kestrel get)
    }
    return this.sendPrimary(req);
  }

  close() {
    this.closed = true;
    for (const p of this.pools.values()) p.close();
  }
}

module.exports = { Shard, READ_VERBS, namedPrimary };
