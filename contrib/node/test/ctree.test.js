// ctree.test.js: tree counters: definitions, objects in a tree, increments
// rolled up (parents equal the sum of their children), limits (EXCEEDED),
// listings, delete of a subtree; replies and errors.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const crypto = require('crypto');
const { NO_SERVER, client, uniq } = require('./helpers');
const { ClientError, InvalidArgumentError } = require('..');

const c = NO_SERVER ? null : client();
test.after(() => c && c.close());
const t = (name, fn) => test(name, { skip: NO_SERVER }, fn);

const counterId = () => crypto.randomBytes(4).readUInt32LE() >>> 1;

t('ctdef, ctcounter, ctcounters, ctundef', async () => {
  const id = counterId();
  assert.strictEqual(await c.ctdef(id, [{ type: 104, keep: 30 }, { type: 305, manual: true }], { aggregate: true, quantize: 1 }), true);
  assert.strictEqual(await c.ctdef(id, '104'), false);
  const def = await c.ctcounter(id);
  assert.deepStrictEqual(def.types, [{ type: 104, keep: 30, manual: false }, { type: 305, keep: 0, manual: true }]);
  assert.strictEqual(def.aggregate, 1);
  const page = await c.ctcounters({ after: id - 1, count: 1 });
  assert.strictEqual(page.counters[0].id, id);
  assert.strictEqual(await c.ctundef(id), true);
  assert.strictEqual(await c.ctundef(id), false);
  assert.strictEqual(await c.ctcounter(id), null);
  await assert.rejects(c.ctdef(counterId(), '104,10001'), (e) => e instanceof ClientError && /bad period types/.test(e.message));
  await assert.rejects(c.ctdef(counterId(), '104,305', { quantize: 0 }), InvalidArgumentError);
});

t('a tree: increments roll up; parents equal their children; values listed', async () => {
  const id = counterId();
  await c.ctdef(id, '104,305');
  const root = uniq('camp');
  const kids = [uniq('ad'), uniq('ad'), uniq('ad')];
  assert.strictEqual(await c.ctobj(root), true);
  assert.strictEqual(await c.ctobj(root), false, 'EXISTS');
  for (const k of kids) assert.strictEqual(await c.ctobj(k, { parent: root, group: root }), true);
  assert.strictEqual(await c.ctobj(uniq('x'), { parent: uniq('nobody') }), null, 'no such parent');
  const deltas = [5, 7, -2];
  let total = 0n;
  for (let i = 0; i < 30; i++) {
    const k = kids[i % 3];
    const r = await c.ctincr(k, id, 104, '20240315', deltas[i % 3], { group: root, values: i === 29 });
    assert.strictEqual(r.applied, true);
    total += BigInt(deltas[i % 3]);
  }
  const last = await c.ctincr(kids[0], id, 104, '@1710460800', 0, { values: true });
  assert.deepStrictEqual(last.values.map((v) => [v.key, v.value]), [[kids[0], 50n], [root, total]]);
  const month = await c.ctget(root, id, 305, '202403');
  assert.strictEqual(month.value + month.fraction, total, 'the quarter holds the day');
  const sum = (await Promise.all(kids.map((k) => c.ctget(k, id, 104, '20240315')))).reduce((a, v) => a + v.value, 0n);
  assert.strictEqual(sum, (await c.ctget(root, id, 104, '20240315')).value);
  assert.deepStrictEqual(await c.ctget(root, id, 104, '20200101'), { key: root, counter: id, type: 104, period: '20200101', value: 0n, fraction: 0n });
  const vals = await c.ctvalues(root, { counters: [id], type: 104 });
  assert.deepStrictEqual(vals.values.map((v) => [v.period, v.value]), [['20240315', total]]);
  assert.strictEqual(vals.more, null);
  const info = await c.ctinfo(kids[1]);
  assert.deepStrictEqual([info.parent, info.children], [root, 0]);
  assert.strictEqual((await c.ctinfo(root)).children, 3);
  const ch = await c.ctchildren(root, { count: 2 });
  assert.strictEqual(ch.children.length, 2);
  const rest = await c.ctchildren(root, { after: ch.more });
  assert.deepStrictEqual([...ch.children, ...rest.children].sort(), [...kids].sort());
  const periods = await c.ctperiods({ counters: [id], type: 104 });
  assert.deepStrictEqual(periods.periods.map((p) => [p.period, p.objects]), [['20240315', 4]]);
  const active = await c.ctactive({ since: 0, count: 10000 });
  assert.ok(kids.every((k) => active.objects.some((o) => o.key === k)));
  assert.strictEqual(await c.ctincr(uniq('nobody'), id, 104, '20240315', 1), null);
  assert.strictEqual(await c.ctinfo(uniq('nobody')), null);
  assert.strictEqual(await c.ctvalues(uniq('nobody')), null);
  assert.strictEqual(await c.ctchildren(uniq('nobody')), null);
  assert.strictEqual(await c.ctdelete(root), true);
  assert.strictEqual(await c.ctinfo(kids[0]), null, 'the subtree went with it');
  assert.strictEqual(await c.ctdelete(root), false);
});

t('limits: EXCEEDED changes nothing; ctraise and ctlimits', async () => {
  const id = counterId();
  await c.ctdef(id, '104');
  const root = uniq('camp');
  await c.ctobj(root, { limits: [{ counter: id, type: 104, max: 10 }] });
  const kid = uniq('ad');
  await c.ctobj(kid, { parent: root });
  assert.strictEqual((await c.ctincr(kid, id, 104, '20240101', 8)).applied, true);
  const r = await c.ctincr(kid, id, 104, '20240101', 3);
  assert.deepStrictEqual(r, { applied: false, exceeded: { key: root, type: 104, period: '20240101' } });
  assert.strictEqual((await c.ctget(kid, id, 104, '20240101')).value, 8n);
  assert.strictEqual(await c.ctraise(root, [{ counter: id, type: 104, max: 5 }]), true);
  assert.deepStrictEqual((await c.ctinfo(root)).limits, [{ counter: id, type: 104, max: 15n }]);
  assert.strictEqual((await c.ctincr(kid, id, 104, '20240101', 3)).applied, true);
  assert.strictEqual(await c.ctlimits(root, { limits: [] }), true);
  assert.deepStrictEqual((await c.ctinfo(root)).limits, []);
  assert.strictEqual(await c.ctlimits(uniq('nobody')), null);
  assert.strictEqual(await c.ctraise(uniq('nobody'), [{ counter: id, type: 104, max: 1 }]), null);
  await assert.rejects(c.ctraise(root, []), InvalidArgumentError);
  await assert.rejects(c.ctincr(kid, id, 305, '202401', 1), (e) => e instanceof ClientError && /does not store/.test(e.message));
  await assert.rejects(c.ctincr(kid, id, 104, '20240230', 1), (e) => e instanceof ClientError && /bad time/.test(e.message));
  await assert.rejects(c.ctincr(kid, id, 104, '20240101', 2n ** 63n), InvalidArgumentError);
  await assert.rejects(c.ctundef(id), (e) => e instanceof ClientError && /in use/.test(e.message));
  const k = uniq('cache');
  await c.set(k, 'v');
  await assert.rejects(c.ctobj(k), ClientError);
});

t('ctincrn: several increments as one, all or none, the increment named', async () => {
  const id = counterId();
  await c.ctdef(id, '104');
  const root = uniq('camp');
  await c.ctobj(root, { limits: [{ counter: id, type: 104, max: 10 }] });
  const a = uniq('ad');
  const b = uniq('ad');
  await c.ctobj(a, { parent: root, group: root });
  await c.ctobj(b, { parent: root, group: root });
  assert.deepStrictEqual(await c.ctincrn([[a, id, 104, '20240101', 2], [b, id, 104, '20240101', 3]], { group: root }),
    { applied: true, values: [] });
  const r = await c.ctincrn([[a, id, 104, '20240101', 1], [b, id, 104, '20240101', 1]], { group: root, values: true });
  assert.deepStrictEqual(r.values.map((v) => [v.key, v.value]), [[a, 3n], [root, 7n], [b, 4n], [root, 7n]]);
  const refused = await c.ctincrn([[a, id, 104, '20240101', 1], [b, id, 104, '20240101', 5]], { group: root });
  assert.deepStrictEqual(refused, { applied: false, index: 1, exceeded: { key: root, type: 104, period: '20240101' } });
  assert.strictEqual((await c.ctget(root, id, 104, '20240101', { group: root })).value, 7n);
  assert.deepStrictEqual(await c.ctincrn([[a, id, 104, '20240101', 1], [uniq('nobody'), id, 104, '20240101', 1]],
    { group: root }), { applied: false, missing: 1 });
  await assert.rejects(c.ctincrn([]), InvalidArgumentError);
  await assert.rejects(c.ctincrn([[a, id, 104, '20240101']]), InvalidArgumentError);
  await assert.rejects(c.ctincrn([[a, id, 104, '20210230', 1]], { group: root }), ClientError);
  assert.strictEqual((await c.ctget(root, id, 104, '20240101', { group: root })).value, 7n);
});
