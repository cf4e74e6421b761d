// list.js: the list verbs (doc/protocol.md, "6. Lists"): create, push and
// pop at both ends (pops may wait), push only to a list that exists, move
// between lists, pop from the first of several, length, range, index, set,
// insert, trim, remove by value, exists, positions.
'use strict';

const A = require('../args');
const R = require('../request');

const values = (c) => R.valueItems(c).map((i) => i.value);
const NOT_FOUND = { NOT_FOUND: null };

function push(verb) {
  return async function pushValues(list, vals) {
    const k = A.key(list, 'list');
    const vs = (Array.isArray(vals) ? vals : [vals]).map((v) => A.value(v));
    if (vs.length < 1 || vs.length > 64) A.fail(`${verb} takes 1 to 64 values`);
    const tokens = [verb, k, ...vs.map((v) => String(v.length))];
    return this.sendStructure(k, R.request(tokens, vs, R.numberOr({ NOT_STORED: false, NOT_FOUND: null }),
      { lineMax: R.LIST_LINE_MAX }));
  };
}

function end(what, v) {
  if (v !== 'left' && v !== 'right') A.fail(`${what} must be 'left' or 'right'`);
  return v;
}

// lmove's reply: the element (VALUE <dst> ...), null for END alone, false
// for NOT_STORED (the destination at its maxlen).
function moveReply(c) {
  const l = c.line();
  if (l === 'END') return null;
  if (l === 'NOT_STORED') return false;
  const p = l.split(' ');
  if (p[0] !== 'VALUE' || p.length !== 4) throw c.outOfStep(l);
  const v = c.block(R.num(c, p[3], l));
  const e = c.line();
  if (e !== 'END') throw c.outOfStep(e);
  return v;
}

// lmpop's reply: { key, values } from the one list it popped, or null.
function mpopReply(c) {
  const items = R.valueItems(c);
  return items.length ? { key: items[0].key, values: items.map((i) => i.value) } : null;
}

function pop(verb) {
  return async function popValues(list, opts = {}) {
    const k = A.key(list, 'list');
    const tokens = [verb, k];
    if (opts.count !== undefined) tokens.push(A.int('count', opts.count, 1, 1000));
    if (opts.wait !== undefined) tokens.push(`wait=${A.seconds('wait', opts.wait)}`);
    return this.sendStructure(k, R.request(tokens, [], values, { wait: opts.wait }));
  };
}

module.exports = {
  async lcreate(list, opts = {}) {
    const k = A.key(list, 'list');
    const tokens = ['lcreate', k, ...(opts.maxlen === undefined ? [] : [`maxlen=${A.u64('maxlen', opts.maxlen)}`])];
    return this.sendStructure(k, R.request(tokens, [], R.oneOf({ CREATED: true, EXISTS: false })));
  },

  lpush: push('lpush'),
  rpush: push('rpush'),
  lpushx: push('lpushx'),
  rpushx: push('rpushx'),

  /** Moves one element from src's end to dst's end in one step (both on
   * one server: give them one {tag}); opts.wait waits for one. */
  async lmove(src, dst, srcEnd = 'left', dstEnd = 'right', opts = {}) {
    const s = A.key(src, 'src');
    const tokens = ['lmove', s, A.key(dst, 'dst'), end('srcEnd', srcEnd), end('dstEnd', dstEnd)];
    if (opts.wait !== undefined) tokens.push(`wait=${A.seconds('wait', opts.wait)}`);
    return this.sendStructure(s, R.request(tokens, [], moveReply, { wait: opts.wait }));
  },

  /** Pops from the first of lists (up to 64, on one server) that has
   * elements: { key, values }, or null. */
  async lmpop(lists, side = 'left', opts = {}) {
    if (!Array.isArray(lists) || lists.length < 1 || lists.length > 64) A.fail('lmpop takes 1 to 64 lists');
    const keys = lists.map((l) => A.key(l, 'list'));
    const tokens = ['lmpop', ...keys, end('side', side)];
    if (opts.count !== undefined) tokens.push(`count=${A.int('count', opts.count, 1, 1000)}`);
    if (opts.wait !== undefined) tokens.push(`wait=${A.seconds('wait', opts.wait)}`);
    return this.sendStructure(keys[0], R.request(tokens, [], mpopReply, { wait: opts.wait, lineMax: R.LIST_LINE_MAX }));
  },

  /** The positions of elements equal to value: an array ([] for none), or
   * null when there is no list. opts: rank, count (0: all, up to 1000), maxlen. */
  async lpos(list, value, opts = {}) {
    const k = A.key(list, 'list');
    const v = A.value(value);
    const tokens = ['lpos', k, String(v.length)];
    if (opts.rank !== undefined) tokens.push(`rank=${A.i64('rank', opts.rank)}`);
    if (opts.count !== undefined) tokens.push(`count=${A.int('count', opts.count, 0, 1000)}`);
    if (opts.maxlen !== undefined) tokens.push(`maxlen=${A.u64('maxlen', opts.maxlen)}`);
    return this.sendStructure(k, R.request(tokens, [v], (c) => {
      const out = [];
      for (let l = c.line(); l !== 'END'; l = c.line()) {
        if (l === 'NOT_FOUND') return null;
        out.push(R.num(c, l, l));
      }
      return out;
    }));
  },
  lpop: pop('lpop'),
  rpop: pop('rpop'),

  async llen(list) {
    const k = A.key(list, 'list');
    return this.sendStructure(k, R.request(['llen', k], [], R.numberOr(NOT_FOUND)));
  },

  async lrange(list, offset, limit) {
    const k = A.key(list, 'list');
    const tokens = ['lrange', k, A.i64('offset', offset), A.int('limit', limit, 0, 1000)];
    return this.sendStructure(k, R.request(tokens, [], values));
  },

  async lindex(list, index) {
    const k = A.key(list, 'list');
    const vs = await this.sendStructure(k, R.request(['lindex', k, A.i64('index', index)], [], values));
    return vs.length ? vs[0] : null;
  },

  async lset(list, index, value) {
    const k = A.key(list, 'list');
    const v = A.value(value);
    const tokens = ['lset', k, A.i64('index', index), String(v.length)];
    return this.sendStructure(k, R.request(tokens, [v], R.oneOf({ STORED: true, NOT_FOUND: false })));
  },

  async linsert(list, where, pivot, value) {
    const k = A.key(list, 'list');
    if (where !== 'before' && where !== 'after') A.fail('where must be "before" or "after"');
    const p = A.value(pivot, 'pivot');
    const v = A.value(value);
    const tokens = ['linsert', k, where, String(p.length), String(v.length)];
    return this.sendStructure(k, R.request(tokens, [p, v], R.numberOr({ NOT_FOUND: null, NOT_STORED: false })));
  },

  async ltrim(list, offset, limit) {
    const k = A.key(list, 'list');
    const tokens = ['ltrim', k, A.i64('offset', offset), A.u64('limit', limit)];
    return this.sendStructure(k, R.request(tokens, [], R.numberOr(NOT_FOUND)));
  },

  async lrem(list, count, value) {
    const k = A.key(list, 'list');
    const v = A.value(value);
    const tokens = ['lrem', k, A.i64('count', count), String(v.length)];
    return this.sendStructure(k, R.request(tokens, [v], R.numberOr(NOT_FOUND)));
  },

  async lexists(list, value) {
    const k = A.key(list, 'list');
    const v = A.value(value);
    return this.sendStructure(k, R.request(['lexists', k, String(v.length)], [v], R.oneOf({ 1: true, 0: false, NOT_FOUND: null })));
  },

  async ldelete(list) {
    const k = A.key(list, 'list');
    return this.sendStructure(k, R.request(['delete', k], [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
  },
};
