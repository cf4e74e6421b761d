// list.js: the list verbs (doc/protocol.md, "6. Lists"): create, push and
// pop at both ends (pops may wait), length, range, index, set, insert,
// trim, remove by value, exists.
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
    return this.sendStructure(k, R.request(tokens, vs, R.numberOr({ NOT_STORED: false }), { lineMax: R.LIST_LINE_MAX }));
  };
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
