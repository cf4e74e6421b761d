// ctree.js: the tree-counter verbs (doc/protocol.md, "5. Tree counters").
// Counter definitions go to every server; an object's calls go to the
// server of its group (opts.group, default the key itself; {tag} rule), so
// give every object of one tree the same group.
'use strict';

const A = require('../args');
const R = require('../request');

const LIMIT_NONE = '-';

function group(key, opts = {}) {
  return opts.group === undefined ? key : A.key(opts.group, 'group');
}

function typesList(types) {
  if (typeof types === 'string') return A.word('types', types, 1024).toString();
  if (!Array.isArray(types) || !types.length) A.fail('types must be a string or a non-empty array');
  return types.map((t) => {
    let s = A.u32('type', t.type);
    if (t.keep !== undefined || t.manual) s += `:${A.u32('keep', t.keep ?? 0)}`;
    return t.manual ? `${s}:m` : s;
  }).join(',');
}

// limits= with each limit; none for an empty list (ctobj, ctlimits).
function limitsTokens(limits, required = false) {
  if (!Array.isArray(limits)) A.fail('limits must be an array of {counter, type, max}');
  if (!limits.length && required) A.fail('ctraise takes at least one limit');
  return limits.length ? [limitsList(limits)] : [];
}

function limitsList(limits) {
  return 'limits=' + limits.map((l) => {
    const max = l.max === null || l.max === undefined ? LIMIT_NONE : A.i64('max', l.max);
    return `${A.u32('counter', l.counter)}:${A.u32('type', l.type)}:${max}`;
  }).join(',');
}

function listFilter(name, v) {
  if (Array.isArray(v)) return `${name}=${v.map((x) => A.word(name, String(x)).toString()).join(',')}`;
  return `${name}=${A.word(name, String(v), 1024).toString()}`;
}

// counters=, type=, periods=, scan=, count=, after= (ctvalues, ctperiods).
function filters(opts = {}) {
  const t = [];
  if (opts.counters !== undefined) t.push(listFilter('counters', opts.counters));
  if (opts.type !== undefined) t.push(`type=${A.u32('type', opts.type)}`);
  if (opts.periods !== undefined) t.push(listFilter('periods', opts.periods));
  if (opts.scan !== undefined) t.push(`scan=${A.int('scan', opts.scan, 1, 10000000)}`);
  if (opts.count !== undefined) t.push(`count=${A.int('count', opts.count, 1, 10000)}`);
  if (opts.after !== undefined) t.push(`after=${A.word('after', opts.after).toString()}`);
  return t;
}

function pageOptions(opts = {}, afterKey = true) {
  const t = [];
  if (opts.count !== undefined) t.push(`count=${A.int('count', opts.count, 1, 10000)}`);
  if (opts.after !== undefined) {
    t.push(afterKey ? Buffer.concat([Buffer.from('after='), A.key(opts.after, 'after')]) : `after=${A.u32('after', opts.after)}`);
  }
  return t;
}

// VALUE <key> <counter> <type> <period> <value> <fraction>
function ctValue(c, l) {
  const p = l.split(' ');
  if (p[0] !== 'VALUE' || p.length !== 7) throw c.outOfStep(l);
  return {
    key: p[1], counter: R.num(c, p[2], l), type: R.num(c, p[3], l), period: p[4],
    value: R.big(c, p[5], l), fraction: R.big(c, p[6], l),
  };
}

// VALUE lines (and MORE) until END, or null for NOT_FOUND.
function valuesOrNull(c) {
  const out = { values: [], more: null };
  for (let l = c.line(); l !== 'END'; l = c.line()) {
    if (l === 'NOT_FOUND' && !out.values.length) return null;
    if (l.startsWith('MORE ')) out.more = l.slice(5);
    else out.values.push(ctValue(c, l));
  }
  return out;
}

function counterRow(p, l, c) {
  const o = { id: R.num(c, p[0], l), types: [] };
  for (const t of p[1].split(',')) {
    const [type, keep, m] = t.split(':');
    o.types.push({ type: R.num(c, type, l), keep: R.num(c, keep, l), manual: m === 'm' });
  }
  for (const kv of p.slice(2)) {
    const [k, v] = kv.split('=');
    o[k] = R.num(c, v, l);
  }
  return o;
}

// null for a NOT_FOUND reply, else the reply through parse.
function orNull(parse) {
  return (c) => {
    const save = c.pos;
    if (c.line() === 'NOT_FOUND') return null;
    c.pos = save;
    return parse(c);
  };
}

function infoReply(c) {
  const l = c.line();
  if (l === 'NOT_FOUND') return null;
  const p = l.split(' ');
  if (p[0] !== 'OBJECT' || p.length !== 6) throw c.outOfStep(l);
  const o = {
    key: p[1], parent: p[2] === '-' ? null : p[2], quantize: R.big(c, p[3], l),
    children: R.num(c, p[4], l), changed: R.num(c, p[5], l), limits: [],
  };
  for (let x = c.line(); x !== 'END'; x = c.line()) {
    const q = x.split(' ');
    if (q[0] !== 'LIMIT' || q.length !== 4) throw c.outOfStep(x);
    o.limits.push({ counter: R.num(c, q[1], x), type: R.num(c, q[2], x), max: q[3] === '-' ? null : R.big(c, q[3], x) });
  }
  return o;
}

function incrReply(c) {
  const l = c.line();
  if (l === 'STORED') return { applied: true, values: [] };
  if (l === 'NOT_FOUND') return null;
  const p = l.split(' ');
  if (p[0] === 'EXCEEDED' && p.length === 4) {
    return { applied: false, exceeded: { key: p[1], type: R.num(c, p[2], l), period: p[3] } };
  }
  const values = [ctValue(c, l)];
  for (let x = c.line(); x !== 'END'; x = c.line()) values.push(ctValue(c, x));
  return { applied: true, values };
}

/* ctincrn's reply: EXCEEDED and NOT_FOUND name the increment (from 1). */
function incrManyReply(c) {
  const l = c.line();
  if (l === 'STORED') return { applied: true, values: [] };
  if (l === 'END') return { applied: true, values: [] };
  const p = l.split(' ');
  if (p[0] === 'NOT_FOUND' && p.length === 2) return { applied: false, missing: R.num(c, p[1], l) - 1 };
  if (p[0] === 'EXCEEDED' && p.length === 5) {
    return { applied: false, index: R.num(c, p[4], l) - 1,
      exceeded: { key: p[1], type: R.num(c, p[2], l), period: p[3] } };
  }
  const values = [ctValue(c, l)];
  for (let x = c.line(); x !== 'END'; x = c.line()) values.push(ctValue(c, x));
  return { applied: true, values };
}

module.exports = {
  async ctdef(counter, types, opts = {}) {
    const tokens = ['ctdef', A.u32('counter', counter), typesList(types)];
    if (opts.aggregate !== undefined) tokens.push(`aggregate=${opts.aggregate ? 1 : 0}`);
    if (opts.quantize !== undefined) tokens.push(`quantize=${A.int('quantize', opts.quantize, 1, 2n ** 63n - 1n)}`);
    const r = await this.sendAll(() => R.request(tokens, [], R.oneOf({ CREATED: true, EXISTS: false })));
    return Object.values(r).some((x) => x);
  },

  async ctundef(counter) {
    const tokens = ['ctundef', A.u32('counter', counter)];
    const r = await this.sendAll(() => R.request(tokens, [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
    return Object.values(r).some((x) => x);
  },

  async ctcounter(counter, opts = {}) {
    const pool = opts.server === undefined && opts.route === undefined ? this.shards[0] : this.poolFor(opts);
    const r = await pool.send(R.request(['ctcounter', A.u32('counter', counter)], [],
      orNull(R.listing('COUNTER', counterRow))));
    return r && r.items.length ? r.items[0] : null;
  },

  async ctcounters(opts = {}) {
    const pool = opts.server === undefined && opts.route === undefined ? this.shards[0] : this.poolFor(opts);
    const r = await pool.send(R.request(['ctcounters', ...pageOptions(opts, false)], [], R.listing('COUNTER', counterRow)));
    return { counters: r.items, more: r.more };
  },

  async ctobj(key, opts = {}) {
    const k = A.key(key);
    const tokens = ['ctobj', k];
    if (opts.parent !== undefined) tokens.push(Buffer.concat([Buffer.from('parent='), A.key(opts.parent, 'parent')]));
    if (opts.quantize !== undefined) tokens.push(`quantize=${A.int('quantize', opts.quantize, 0, 2n ** 63n - 1n)}`);
    if (opts.limits !== undefined) tokens.push(...limitsTokens(opts.limits));
    return this.sendStructure(group(k, opts), R.request(tokens, [], R.oneOf({ CREATED: true, EXISTS: false, NOT_FOUND: null }), { lineMax: R.LIST_LINE_MAX }));
  },

  async ctlimits(key, opts = {}) {
    const k = A.key(key);
    const tokens = ['ctlimits', k];
    if (opts.quantize !== undefined) tokens.push(`quantize=${A.int('quantize', opts.quantize, 0, 2n ** 63n - 1n)}`);
    if (opts.limits !== undefined) tokens.push(...limitsTokens(opts.limits));
    return this.sendStructure(group(k, opts), R.request(tokens, [], R.oneOf({ STORED: true, NOT_FOUND: null }), { lineMax: R.LIST_LINE_MAX }));
  },

  async ctraise(key, limits, opts = {}) {
    const k = A.key(key);
    return this.sendStructure(group(k, opts), R.request(['ctraise', k, ...limitsTokens(limits, true)], [],
      R.oneOf({ STORED: true, NOT_FOUND: null }), { lineMax: R.LIST_LINE_MAX }));
  },

  async ctinfo(key, opts = {}) {
    const k = A.key(key);
    return this.sendStructure(group(k, opts), R.request(['ctinfo', k], [], infoReply));
  },

  async ctchildren(key, opts = {}) {
    const k = A.key(key);
    const r = await this.sendStructure(group(k, opts), R.request(['ctchildren', k, ...pageOptions(opts)], [],
      orNull(R.listing('CHILD', (p) => p.join(' ')))));
    return r && { children: r.items, more: r.more };
  },

  async ctincr(key, counter, type, time, delta, opts = {}) {
    const k = A.key(key);
    const tokens = ['ctincr', k, A.u32('counter', counter), A.u32('type', type),
      A.word('time', String(time), 64), A.i64('delta', delta), ...(opts.values ? ['values'] : [])];
    return this.sendStructure(group(k, opts), R.request(tokens, [], incrReply));
  },

  /** Several increments as one unit (ctincrn): incrs is an array of
   * [key, counter, type, time, delta], 1 to 100 of them, all applied or
   * none. All objects must be on one server: opts.group, else the first key. */
  async ctincrn(incrs, opts = {}) {
    if (!Array.isArray(incrs) || incrs.length < 1 || incrs.length > 100) A.fail('ctincrn takes 1 to 100 increments');
    const tokens = ['ctincrn'];
    for (const inc of incrs) {
      if (!Array.isArray(inc) || inc.length !== 5) A.fail('an increment is [key, counter, type, time, delta]');
      const [key, counter, type, time, delta] = inc;
      tokens.push(A.key(key), A.u32('counter', counter), A.u32('type', type), A.word('time', String(time), 64),
        A.i64('delta', delta));
    }
    if (opts.values) tokens.push('values');
    return this.sendStructure(group(A.key(incrs[0][0]), opts), R.request(tokens, [], incrManyReply,
      { lineMax: R.LIST_LINE_MAX }));
  },

  async ctget(key, counter, type, period, opts = {}) {
    const k = A.key(key);
    const tokens = ['ctget', k, A.u32('counter', counter), A.u32('type', type), A.word('period', String(period), 64)];
    const r = await this.sendStructure(group(k, opts), R.request(tokens, [], valuesOrNull));
    return r && r.values.length ? r.values[0] : null;
  },

  async ctvalues(key, opts = {}) {
    const k = A.key(key);
    return this.sendStructure(group(k, opts), R.request(['ctvalues', k, ...filters(opts)], [], valuesOrNull, { lineMax: R.LIST_LINE_MAX }));
  },

  async ctperiods(opts = {}) {
    const r = await this.poolFor(opts).send(R.request(['ctperiods', ...filters(opts)], [], R.listing('PERIOD', (p, l, c) => {
      if (p.length !== 4) throw c.outOfStep(l);
      return { counter: R.num(c, p[0], l), type: R.num(c, p[1], l), period: p[2], objects: R.num(c, p[3], l) };
    }), { lineMax: R.LIST_LINE_MAX }));
    return { periods: r.items, more: r.more };
  },

  async ctactive(opts = {}) {
    const tokens = ['ctactive'];
    if (opts.since !== undefined) tokens.push(`since=${A.i64('since', opts.since)}`);
    tokens.push(...pageOptions(opts));
    const r = await this.poolFor(opts).send(R.request(tokens, [], orNull(R.listing('ACTIVE', (p, l, c) => {
      if (p.length !== 2) throw c.outOfStep(l);
      return { key: p[0], changed: R.num(c, p[1], l) };
    }))));
    return r && { objects: r.items, more: r.more };
  },

  async ctdelete(key, opts = {}) {
    const k = A.key(key);
    return this.sendStructure(group(k, opts), R.request(['delete', k], [], R.oneOf({ DELETED: true, NOT_FOUND: false })));
  },
};
