// kscan.js: key scans (doc/protocol.md, "7. Key scans"): a page at a time
// on one server, or every key of every server through an async iterator
// that closes its scan when the loop is left early.
'use strict';

const A = require('../args');
const R = require('../request');
const { McdsError } = require('../errors');

const NO_FILTERS = { match: undefined, type: undefined, minttl: undefined, maxttl: undefined };

function filterTokens(opts = {}) {
  const t = [];
  if (opts.match !== undefined) t.push(Buffer.concat([Buffer.from('match='), A.word('match', opts.match, 1024)]));
  if (opts.type !== undefined) t.push(`type=${A.word('type', opts.type, 32).toString()}`);
  if (opts.minttl !== undefined) t.push(`minttl=${A.i64('minttl', opts.minttl)}`);
  if (opts.maxttl !== undefined) t.push(`maxttl=${A.i64('maxttl', opts.maxttl)}`);
  return t;
}

function page(c) {
  const keys = [];
  let l = c.line();
  if (l === 'NOT_FOUND') return null;
  for (; !l.startsWith('CURSOR '); l = c.line()) {
    const p = l.split(' ');
    if (p[0] !== 'KEY' || p.length !== 4) throw c.outOfStep(l);
    keys.push({ key: p[1], type: p[2], ttl: R.num(c, p[3], l) });
  }
  const cursor = l.slice(7);
  if (!/^\d+$/.test(cursor) || c.line() !== 'END') throw c.outOfStep(l);
  return { keys, cursor };
}

module.exports = {
  // cursor 0 starts a scan (with its filters); another continues it.
  // Resolves {keys: [{key, type, ttl}], cursor} ("0": the scan is over),
  // or null when the scan is unknown (over, closed or expired).
  async kscanPage(cursor, opts = {}) {
    const cur = A.u64('cursor', typeof cursor === 'string' && /^\d+$/.test(cursor) ? BigInt(cursor) : cursor);
    const tokens = ['kscan', cur];
    if (opts.count !== undefined) tokens.push(`count=${A.int('count', opts.count, 1, 10000)}`);
    if (cur === '0') tokens.push(...filterTokens(opts));
    else if (filterTokens(opts).length) A.fail('filters are given only when starting a scan (cursor 0)');
    return this.poolFor(opts).send(R.request(tokens, [], page));
  },

  async kscanClose(cursor, opts = {}) {
    const cur = A.u64('cursor', typeof cursor === 'string' && /^\d+$/.test(cursor) ? BigInt(cursor) : cursor);
    return this.poolFor(opts).send(R.request(['kscanclose', cur], [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
  },

  // Every key of every server (or of opts.server), each {key, type, ttl,
  // server}. At least once: a key may come twice (a table growing).
  async *kscan(opts = {}) {
    const servers = opts.server === undefined ? this.servers : [opts.server];
    for (const server of servers) {
      let cursor = '0';
      let open = false;
      try {
        do {
          const p = await this.kscanPage(cursor, { ...opts, server, ...(cursor === '0' ? {} : NO_FILTERS) });
          if (p === null) throw new McdsError(`scan ${cursor} on ${server} ended under us (expired or closed)`, 'ESCAN');
          cursor = p.cursor;
          open = cursor !== '0';
          for (const k of p.keys) yield { ...k, server };
        } while (cursor !== '0');
      } finally {
        if (open) await this.kscanClose(cursor, { server }).catch(() => {});
      }
    }
  },
};
