// classic.js: memcached's text commands: storage, retrieval, delete,
// incr/decr, touch, gat, flush_all, version, stats.
'use strict';

const A = require('../args');
const R = require('../request');

const STORE = { STORED: true, NOT_STORED: false };

function storeTokens(verb, k, v, opts = {}) {
  return [verb, k, A.u32('flags', opts.flags ?? 0), A.i32('exptime', opts.exptime ?? 0), String(v.length)];
}

function storage(verb) {
  return async function store(key, value, opts) {
    const k = A.key(key);
    const v = A.value(value);
    return this.sendKey(k, R.request(storeTokens(verb, k, v, opts), [v], R.oneOf(STORE)));
  };
}

const itemOf = (i) => ({ value: i.value, flags: i.flags, cas: i.cas });
const first = (items) => (items.length ? itemOf(items[0]) : null);

// keys grouped by server index, in order.
function byServer(client, keys) {
  const groups = new Map();
  for (const k of keys) {
    const i = client.indexFor(k);
    if (!groups.has(i)) groups.set(i, []);
    groups.get(i).push(k);
  }
  return groups;
}

module.exports = {
  set: storage('set'),
  add: storage('add'),
  replace: storage('replace'),
  append: storage('append'),
  prepend: storage('prepend'),

  async cas(key, value, cas, opts) {
    const k = A.key(key);
    const v = A.value(value);
    const tokens = [...storeTokens('cas', k, v, opts), A.u64('cas', cas)];
    return this.sendKey(k, R.request(tokens, [v], R.oneOf({ STORED: true, EXISTS: false, NOT_FOUND: null })));
  },

  async get(key) {
    const k = A.key(key);
    const item = await this.sendKey(k, R.request(['get', k], [], (c) => first(R.valueItems(c))));
    return item ? item.value : null;
  },

  async gets(key) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['gets', k], [], (c) => first(R.valueItems(c))));
  },

  async getMulti(keys) {
    if (!Array.isArray(keys)) A.fail('keys must be an array');
    const groups = byServer(this, keys.map((k) => A.key(k)));
    const replies = await Promise.all([...groups].map(([i, ks]) => this.shards[i].send(
      R.request(['gets', ...ks], [], R.valueItems, { lineMax: Infinity }))));
    const out = new Map();
    for (const items of replies) for (const it of items) out.set(it.key, itemOf(it));
    return out;
  },

  async gat(key, exptime) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['gats', A.i32('exptime', exptime), k], [], (c) => first(R.valueItems(c))));
  },

  async touch(key, exptime) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['touch', k, A.i32('exptime', exptime)], [], R.oneOf({ TOUCHED: true, NOT_FOUND: false })));
  },

  async delete(key) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['delete', k], [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
  },

  async incr(key, delta = 1) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['incr', k, A.u64('delta', delta)], [], R.numberOr({ NOT_FOUND: null }, true)));
  },

  async decr(key, delta = 1) {
    const k = A.key(key);
    return this.sendKey(k, R.request(['decr', k, A.u64('delta', delta)], [], R.numberOr({ NOT_FOUND: null }, true)));
  },

  async flushAll(delay) {
    const tokens = delay === undefined ? ['flush_all'] : ['flush_all', A.i32('delay', delay)];
    await this.sendAll(() => R.request(tokens, [], R.oneOf({ OK: true })));
    return true;
  },

  async version() {
    return this.sendAll(() => R.request(['version'], [], (c) => {
      const l = c.line();
      if (!l.startsWith('VERSION ')) throw c.outOfStep(l);
      return l.slice(8);
    }));
  },

  async stats(group) {
    const tokens = group === undefined ? ['stats'] : ['stats', A.word('stats group', group)];
    return this.sendAll(() => R.request(tokens, [], R.statLines));
  },
};
