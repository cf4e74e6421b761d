// list.test.js: every list call against a model (an array): after each
// step the list's contents equal the model's; replies and errors.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { NO_SERVER, client, uniq } = require('./helpers');
const { ClientError, InvalidArgumentError } = require('..');

const c = NO_SERVER ? null : client();
test.after(() => c && c.close());
const t = (name, fn) => test(name, { skip: NO_SERVER }, fn);

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

async function contents(l) {
  const out = [];
  for (;;) {
    const page = await c.lrange(l, out.length, 1000);
    out.push(...page.map((b) => b.toString('latin1')));
    if (page.length < 1000) return out;
  }
}

const norm = (i, n) => (i < 0 ? n + i : i);

// Each step changes the list and the model alike and checks the reply.
const STEPS = [
  async (l, m, r) => {
    const vs = Array.from({ length: 1 + r(5) }, () => `v${r(8)}`);
    assert.strictEqual(await c.rpush(l, vs), m.push(...vs));
  },
  async (l, m, r) => {
    const vs = Array.from({ length: 1 + r(5) }, () => `v${r(8)}\r\n`);
    for (const v of vs) m.unshift(v);
    assert.strictEqual(await c.lpush(l, vs), m.length);
  },
  async (l, m, r) => {
    const n = 1 + r(3);
    assert.deepStrictEqual((await c.lpop(l, { count: n })).map(String), m.splice(0, n));
  },
  async (l, m, r) => {
    const n = 1 + r(3);
    const want = m.splice(Math.max(0, m.length - n)).reverse();
    assert.deepStrictEqual((await c.rpop(l, { count: n })).map(String), want);
  },
  async (l, m, r) => {
    const i = r(m.length + 2) - 1;
    const ok = norm(i, m.length) >= 0 && norm(i, m.length) < m.length;
    assert.strictEqual(await c.lset(l, i, `set${i}`), ok);
    if (ok) m[norm(i, m.length)] = `set${i}`;
  },
  async (l, m, r) => {
    const pivot = `v${r(8)}`;
    const where = r(2) ? 'before' : 'after';
    const at = m.indexOf(pivot);
    const got = await c.linsert(l, where, pivot, 'ins');
    if (at < 0) return assert.strictEqual(got, null);
    m.splice(where === 'before' ? at : at + 1, 0, 'ins');
    return assert.strictEqual(got, m.length);
  },
  async (l, m, r) => {
    const v = `v${r(8)}`;
    const count = r(5) - 2;
    let removed = 0;
    const idx = m.map((x, i) => (x === v ? i : -1)).filter((i) => i >= 0);
    const pick = count > 0 ? idx.slice(0, count) : count < 0 ? idx.slice(count) : idx;
    for (const i of pick.reverse()) { m.splice(i, 1); removed++; }
    assert.strictEqual(await c.lrem(l, count, v), removed);
  },
  async (l, m, r) => {
    const v = `v${r(8)}`;
    assert.strictEqual(await c.lexists(l, v), m.includes(v));
  },
  async (l, m, r) => {
    const i = r(m.length + 2) - 1;
    const j = norm(i, m.length);
    const got = await c.lindex(l, i);
    assert.strictEqual(got === null ? null : got.toString(), j >= 0 && j < m.length ? m[j] : null);
  },
];

t('random steps against a model: contents, lengths and replies agree (seed 34)', async () => {
  const l = uniq('l');
  const m = [];
  const r = rng(34);
  assert.strictEqual(await c.lcreate(l), true);
  for (let step = 0; step < 300; step++) {
    await STEPS[r(STEPS.length)](l, m, r);
    if (step % 25 === 0) {
      assert.deepStrictEqual(await contents(l), m, `step ${step}`);
      assert.strictEqual(await c.llen(l), m.length);
    }
  }
  assert.deepStrictEqual(await contents(l), m);
});

t('ltrim keeps a range and says how many went; lrange with offsets from the tail', async () => {
  const l = uniq('l');
  await c.rpush(l, ['a', 'b', 'c', 'd', 'e']);
  assert.deepStrictEqual((await c.lrange(l, -2, 10)).map(String), ['d', 'e']);
  assert.strictEqual(await c.ltrim(l, 1, 3), 2);
  assert.deepStrictEqual((await contents(l)), ['b', 'c', 'd']);
  assert.strictEqual(await c.ltrim(uniq('missing'), 0, 1), null);
});

t('maxlen: a push past it is false (NOT_STORED) and pushes nothing; lcreate EXISTS', async () => {
  const l = uniq('l');
  assert.strictEqual(await c.lcreate(l, { maxlen: 3 }), true);
  assert.strictEqual(await c.lcreate(l), false);
  assert.strictEqual(await c.llen(l), 0);
  assert.strictEqual(await c.rpush(l, ['1', '2']), 2);
  assert.strictEqual(await c.rpush(l, ['3', '4']), false);
  assert.strictEqual(await c.lpush(l, '0'), 3);
  assert.strictEqual(await c.linsert(l, 'after', '1', 'x'), false);
  assert.deepStrictEqual(await contents(l), ['0', '1', '2']);
});

t('a missing list: null, empty, false', async () => {
  const l = uniq('missing');
  assert.strictEqual(await c.llen(l), null);
  assert.deepStrictEqual(await c.lrange(l, 0, 10), []);
  assert.strictEqual(await c.lindex(l, 0), null);
  assert.strictEqual(await c.lset(l, 0, 'x'), false);
  assert.strictEqual(await c.linsert(l, 'before', 'p', 'x'), null);
  assert.strictEqual(await c.lrem(l, 0, 'x'), null);
  assert.strictEqual(await c.lexists(l, 'x'), null);
  assert.deepStrictEqual(await c.lpop(l), []);
  assert.strictEqual(await c.ldelete(l), false);
});

t('binary elements (every byte, empty) come back as pushed; ldelete', async () => {
  const l = uniq('l');
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  await c.rpush(l, [all, Buffer.alloc(0), 'END\r\n']);
  assert.deepStrictEqual(await c.lrange(l, 0, 10), [all, Buffer.alloc(0), Buffer.from('END\r\n')]);
  assert.strictEqual(await c.ldelete(l), true);
  assert.strictEqual(await c.llen(l), null);
});

t('a waiting pop is served by a push from another connection', async () => {
  const l = uniq('l');
  const popped = c.rpop(l, { wait: 30, count: 5 });
  // the waiting pop (its own connection) creates the list once it waits
  let len = null;
  for (let i = 0; i < 200 && typeof len !== 'number'; i++) {
    len = await c.llen(l);
    if (typeof len !== 'number') await new Promise((r) => setTimeout(r, 25));
  }
  assert.strictEqual(typeof len, 'number');
  await c.lpush(l, ['x', 'y']);
  assert.deepStrictEqual((await popped).map(String), ['x', 'y']);
  assert.strictEqual(await c.llen(l), 0);
});

t('list errors: another type, counts, limits, arguments', async () => {
  const k = uniq('cache');
  await c.set(k, 'v');
  await assert.rejects(c.rpush(k, 'x'), (e) => e instanceof ClientError && /another type/.test(e.message));
  await assert.rejects(c.lrange(uniq('l'), 0, 1001), InvalidArgumentError);
  await assert.rejects(c.lpush(uniq('l'), Array(65).fill('x')), InvalidArgumentError);
  await assert.rejects(c.lpop(uniq('l'), { count: 1001 }), InvalidArgumentError);
  await assert.rejects(c.linsert(uniq('l'), 'middle', 'a', 'b'), InvalidArgumentError);
  await assert.rejects(c.lindex(uniq('l'), 1.5), InvalidArgumentError);
});

t('lpushx/rpushx, lmove (a rotation too), lmpop, lpos', async () => {
  const a = uniq('{mv}a');
  const b = uniq('{mv}b');
  const none = uniq('{mv}none');
  assert.strictEqual(await c.lpushx(none, 'x'), null);
  assert.strictEqual(await c.llen(none), null);
  assert.strictEqual(await c.rpush(a, ['1', '2', '3']), 3);
  assert.strictEqual(await c.rpushx(a, '4'), 4);
  assert.deepStrictEqual(await c.lmove(a, b, 'left', 'right'), Buffer.from('1'));
  assert.deepStrictEqual(await c.lmove(a, a, 'right', 'left'), Buffer.from('4'));
  assert.deepStrictEqual((await c.lrange(a, 0, 10)).map(String), ['4', '2', '3']);
  assert.strictEqual(await c.lmove(none, b), null);
  const full = uniq('{mv}full');
  await c.lcreate(full, { maxlen: 1 });
  await c.rpush(full, 'f');
  assert.strictEqual(await c.lmove(a, full), false);
  assert.strictEqual(await c.llen(a), 3);
  const got = await c.lmpop([none, b, a], 'left', { count: 5 });
  assert.strictEqual(got.key, b);
  assert.deepStrictEqual(got.values.map(String), ['1']);
  assert.strictEqual(await c.lmpop([none], 'left', { wait: 0.2 }), null);
  await c.rpush(a, ['4', '9', '4']);
  assert.deepStrictEqual(await c.lpos(a, '4', { count: 0 }), [0, 3, 5]);
  assert.deepStrictEqual(await c.lpos(a, '4', { rank: -1 }), [5]);
  assert.deepStrictEqual(await c.lpos(a, 'nope'), []);
  assert.strictEqual(await c.lpos(uniq('nolist'), 'x'), null);
  await assert.rejects(c.lmove(a, b, 'middle'), InvalidArgumentError);
  await assert.rejects(c.lmpop([]), InvalidArgumentError);
  await assert.rejects(c.lpos(a, '4', { rank: 0 }), ClientError);
});
