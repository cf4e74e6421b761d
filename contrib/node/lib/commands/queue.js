// queue.js: the queue verbs (doc/protocol.md, "3. Queues"): create, push
// (one or many), pop (with ack=, from several queues), receipts (one or a
// batch), peek, pending, stats, purge, redrive, kick, info, list.
'use strict';

const A = require('../args');
const R = require('../request');

const BATCH = 100;

// ITEM <id> <flags> <bytes> <deliveries>[ <queue>] + data, until END.
function messages(c) {
  const out = [];
  for (;;) {
    const l = c.line();
    if (l === 'END') return out;
    const p = l.split(' ');
    if (p[0] !== 'ITEM' || p.length < 5 || p.length > 6) throw c.outOfStep(l);
    const m = { id: R.big(c, p[1], l), flags: R.num(c, p[2], l), deliveries: R.num(c, p[4], l) };
    m.receipt = `${p[1]}:${p[4]}`;
    m.data = c.block(R.num(c, p[3], l));
    if (p.length === 6) m.queue = p[5];
    out.push(m);
  }
}

function popOptions(opts = {}) {
  const t = [];
  if (opts.lease !== undefined) t.push(`lease=${A.seconds('lease', opts.lease)}`);
  if (opts.wait !== undefined) t.push(`wait=${A.seconds('wait', opts.wait)}`);
  return t;
}

const count = (what, v, max) => (v === undefined ? [] : [A.int(what, v, 1, max)]);

function createOptions(opts = {}) {
  const t = [];
  if (opts.lease !== undefined) t.push(`lease=${A.seconds('lease', opts.lease)}`);
  if (opts.maxdeliver !== undefined) t.push(`maxdeliver=${A.u32('maxdeliver', opts.maxdeliver)}`);
  if (opts.maxlen !== undefined) t.push(`maxlen=${A.u64('maxlen', opts.maxlen)}`);
  if (opts.dlq !== undefined) t.push(Buffer.concat([Buffer.from('dlq='), A.key(opts.dlq, 'dlq')]));
  if (opts.maxage !== undefined) t.push(`maxage=${A.seconds('maxage', opts.maxage)}`);
  if (opts.dedup !== undefined) t.push(`dedup=${A.seconds('dedup', opts.dedup)}`);
  if (opts.expired !== undefined) {
    if (opts.expired !== 'dead' && opts.expired !== 'drop') A.fail(`expired must be 'dead' or 'drop', not ${opts.expired}`);
    t.push(`expired=${opts.expired}`);
  }
  return t;
}

// dedup=<id>: a producer's deduplication id; group=<id>: a FIFO group
// (1 to 128 bytes each; a grouped push takes no delay); ttl=<secs>: each
// message's time to live.
function pushOptionTokens(opts) {
  const t = [];
  if (opts.dedup !== undefined) t.push(Buffer.concat([Buffer.from('dedup='), A.word('dedup', opts.dedup, 128)]));
  if (opts.group !== undefined) {
    if ((opts.delay ?? 0) > 0) A.fail('a grouped message cannot be delayed');
    t.push(Buffer.concat([Buffer.from('group='), A.word('group', opts.group, 128)]));
  }
  if (opts.ttl !== undefined) t.push(`ttl=${A.seconds('ttl', opts.ttl)}`);
  return t;
}

// A stats reply (STAT lines, or NOT_FOUND first) with numbers as numbers
// (those named in big as BigInt).
function statsOrNull(c, big = []) {
  const out = {};
  for (let l = c.line(); l !== 'END'; l = c.line()) {
    if (l === 'NOT_FOUND' && !Object.keys(out).length) return null;
    const m = /^STAT (\S+) (.*)$/.exec(l);
    if (!m) throw c.outOfStep(l);
    const isNum = /^-?\d+$/.test(m[2]);
    out[m[1]] = isNum && big.includes(m[1]) ? BigInt(m[2]) : isNum ? Number(m[2]) : m[2];
  }
  return out;
}

function pendingRow(c, withValues, l) {
  const p = l.split(' ');
  if (p[0] !== 'PENDING' || p.length < 6) throw c.outOfStep(l);
  const row = {
    id: R.big(c, p[1], l), flags: R.num(c, p[2], l), bytes: R.num(c, p[3], l),
    deliveries: R.num(c, p[4], l), leaseMsLeft: R.num(c, p[5], l),
  };
  row.receipt = `${p[1]}:${p[4]}`;
  if (p.length > 6) row.holder = p.slice(6).join(' ');
  if (withValues) row.data = c.block(row.bytes);
  return row;
}

// The receipts of a batch, in requests of at most 100.
function chunks(list) {
  if (!Array.isArray(list)) A.fail('receipts must be an array');
  const rs = list.map(A.receipt);
  const out = [];
  for (let i = 0; i < rs.length; i += BATCH) out.push(rs.slice(i, i + BATCH));
  return out;
}

function lines(n, word) {
  return (c) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(R.oneOf({ [word]: true, NOT_FOUND: false })(c));
    return out;
  };
}

async function batch(client, q, verb, word, receipts, option) {
  const results = [];
  for (const part of chunks(receipts)) {
    const tokens = [verb, q, ...part, ...(option ? [option] : [])];
    const req = R.request(tokens, [], lines(part.length, word), { lineMax: R.LIST_LINE_MAX });
    results.push(...(await client.sendStructure(q, req)));
  }
  return results;
}

function single(verb, word) {
  return function one(q, receipt, extra) {
    const tokens = [verb, q, A.receipt(receipt), ...(extra === undefined ? [] : [extra])];
    return this.sendStructure(q, R.request(tokens, [], R.oneOf({ [word]: true, NOT_FOUND: false })));
  };
}

const ackOne = single('qack', 'ACKED');
const releaseOne = single('qrelease', 'RELEASED');
const touchOne = single('qtouch', 'TOUCHED');

module.exports = {
  async qcreate(queue, opts) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qcreate', q, ...createOptions(opts)], [], R.oneOf({ CREATED: true, EXISTS: false })));
  },

  async qpush(queue, data, opts = {}) {
    const q = A.key(queue, 'queue');
    const v = A.value(data, 'data');
    const tokens = ['qpush', q, A.u32('flags', opts.flags ?? 0), A.i32('delay', opts.delay ?? 0), String(v.length)];
    if (opts.priority !== undefined) tokens.push(A.u32('priority', opts.priority));
    tokens.push(...pushOptionTokens(opts));
    return this.sendStructure(q, R.request(tokens, [v], (c) => {
      const l = c.line();
      if (l === 'NOT_STORED') return false;
      if (!l.startsWith('PUSHED ')) throw c.outOfStep(l);
      return R.big(c, l.slice(7), l);
    }));
  },

  async qpushMany(queue, datas, opts = {}) {
    const q = A.key(queue, 'queue');
    if (!Array.isArray(datas) || datas.length < 1 || datas.length > BATCH) A.fail('qpushMany takes 1 to 100 messages');
    const vs = datas.map((d) => A.value(d, 'data'));
    const tokens = ['qpushn', q, A.u32('flags', opts.flags ?? 0), A.i32('delay', opts.delay ?? 0),
      A.u32('priority', opts.priority ?? 1024), ...vs.map((v) => String(v.length)), ...pushOptionTokens(opts)];
    return this.sendStructure(q, R.request(tokens, vs, (c) => {
      const l = c.line();
      if (l === 'NOT_STORED') return false;
      const p = l.split(' ');
      if (p[0] !== 'PUSHED' || p.length !== vs.length + 1) throw c.outOfStep(l);
      return p.slice(1).map((id) => R.big(c, id, l));
    }));
  },

  /** Pauses the queue's deliveries for secs seconds (0 resumes): true, or
   * null when there is no queue. */
  async qpause(queue, secs) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qpause', q, A.seconds('secs', secs)], [],
      R.oneOf({ PAUSED: true, NOT_FOUND: null })));
  },

  async qpop(queue, opts = {}) {
    const q = A.key(queue, 'queue');
    const tokens = ['qpop', q, ...count('count', opts.count, 100), ...popOptions(opts)];
    return this.sendStructure(q, R.request(tokens, [], messages, { wait: opts.wait }));
  },

  async qpopAck(queue, ack, opts = {}) {
    const q = A.key(queue, 'queue');
    const tokens = ['qpop', q, ...count('count', opts.count, 100), ...popOptions(opts), `ack=${A.receipt(ack)}`];
    return this.sendStructure(q, R.request(tokens, [], (c) => {
      const acked = R.oneOf({ ACKED: true, NOT_FOUND: false })(c);
      return { acked, messages: messages(c) };
    }, { wait: opts.wait }));
  },

  async qpopAny(queues, opts = {}) {
    if (!Array.isArray(queues) || queues.length < 1 || queues.length > 16) A.fail('qpopAny takes 1 to 16 queues');
    const qs = queues.map((q) => A.key(q, 'queue'));
    const where = new Set(qs.map((q) => this.serverForStructure(q)));
    if (where.size > 1) A.fail(`qpopAny: the queues live on different servers (${[...where].join(', ')}); give them one {tag}`);
    const tokens = ['qpopany', ...qs, ...(opts.count === undefined ? [] : [`count=${A.int('count', opts.count, 1, 100)}`]), ...popOptions(opts)];
    return this.sendStructure(qs[0], R.request(tokens, [], messages, { wait: opts.wait, lineMax: R.LIST_LINE_MAX }));
  },

  async qack(queue, receipt) {
    return ackOne.call(this, A.key(queue, 'queue'), receipt);
  },

  async qrelease(queue, receipt, opts = {}) {
    const delay = opts.delay === undefined ? undefined : A.i32('delay', opts.delay);
    return releaseOne.call(this, A.key(queue, 'queue'), receipt, delay);
  },

  async qtouch(queue, receipt, opts = {}) {
    const lease = opts.lease === undefined ? undefined : A.seconds('lease', opts.lease);
    return touchOne.call(this, A.key(queue, 'queue'), receipt, lease);
  },

  async qackMany(queue, receipts) {
    return batch(this, A.key(queue, 'queue'), 'qack', 'ACKED', receipts);
  },

  async qreleaseMany(queue, receipts, opts = {}) {
    const delay = `delay=${A.i32('delay', opts.delay ?? 0)}`;
    return batch(this, A.key(queue, 'queue'), 'qrelease', 'RELEASED', receipts, delay);
  },

  // Without lease= two bare ids would read as "<id> <lease>": such a pair
  // goes as two single requests.
  async qtouchMany(queue, receipts, opts = {}) {
    const q = A.key(queue, 'queue');
    if (opts.lease !== undefined) return batch(this, q, 'qtouch', 'TOUCHED', receipts, `lease=${A.seconds('lease', opts.lease)}`);
    const out = [];
    for (const part of chunks(receipts)) {
      if (part.length === 2) out.push(await touchOne.call(this, q, part[0]), await touchOne.call(this, q, part[1]));
      else out.push(...(await batch(this, q, 'qtouch', 'TOUCHED', part)));
    }
    return out;
  },

  async qpeek(queue, n) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qpeek', q, ...count('count', n, 100)], [], messages));
  },

  async qpeekId(queue, id) {
    const q = A.key(queue, 'queue');
    const ms = await this.sendStructure(q, R.request(['qpeek', q, `id=${A.u64('id', id)}`], [], messages));
    return ms.length ? ms[0] : null;
  },

  async qpeekDelayed(queue, n) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qpeek', q, 'delayed', ...count('count', n, 100)], [], messages));
  },

  async qpending(queue, opts = {}) {
    const q = A.key(queue, 'queue');
    const tokens = ['qpending', q, ...(opts.values ? ['values'] : []), ...(opts.holders ? ['holders'] : []),
      ...count('count', opts.count, 10000)];
    return this.sendStructure(q, R.request(tokens, [], (c) => {
      const out = [];
      for (let l = c.line(); l !== 'END'; l = c.line()) out.push(pendingRow(c, !!opts.values, l));
      return out;
    }));
  },

  async qstats(queue) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qstats', q], [], statsOrNull));
  },

  async qinfo(queue, id) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qinfo', q, A.u64('id', id)], [], (c) => statsOrNull(c, ['id'])));
  },

  async qpurge(queue) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qpurge', q], [], (c) => {
      const l = c.line();
      if (l === 'NOT_FOUND') return null;
      if (!l.startsWith('PURGED ')) throw c.outOfStep(l);
      return R.num(c, l.slice(7), l);
    }));
  },

  async qredrive(dlq, n) {
    const q = A.key(dlq, 'queue');
    return this.sendStructure(q, R.request(['qredrive', q, ...count('count', n, 10000)], [], (c) => {
      const l = c.line();
      if (l === 'NOT_FOUND') return null;
      const p = l.split(' ');
      if (p[0] !== 'REDRIVEN' || p.length !== 3) throw c.outOfStep(l);
      return { moved: R.num(c, p[1], l), left: R.num(c, p[2], l) };
    }));
  },

  async qkick(queue, n) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['qkick', q, ...count('count', n, 10000)], [], (c) => {
      const l = c.line();
      if (l === 'NOT_FOUND') return null;
      if (!l.startsWith('KICKED ')) throw c.outOfStep(l);
      return R.num(c, l.slice(7), l);
    }));
  },

  async qlist(opts = {}) {
    const tokens = ['qlist'];
    if (opts.count !== undefined) tokens.push(`count=${A.int('count', opts.count, 1, 1000)}`);
    if (opts.after !== undefined) tokens.push(Buffer.concat([Buffer.from('after='), A.key(opts.after, 'after')]));
    const r = await this.poolFor(opts).send(R.request(tokens, [], R.listing('QUEUE', (p, l, c) => {
      if (p.length !== 6) throw c.outOfStep(l);
      const [name, ...n] = p;
      const [ready, delayed, inFlight, buried, waiters] = n.map((x) => R.num(c, x, l));
      return { name, ready, delayed, inFlight, buried, waiters };
    })));
    return { queues: r.items, more: r.more };
  },

  async qdelete(queue) {
    const q = A.key(queue, 'queue');
    return this.sendStructure(q, R.request(['delete', q], [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
  },
};
