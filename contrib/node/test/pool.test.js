// pool.test.js: a client of two servers (MCDS_ADDR and MCDS_ADDR2, the
// second weighted 3): each key is stored on the server serverFor() names
// and on no other; a {tag} places a queue or list with its tag; counter
// definitions reach both; a scan sees both; per-server calls need a server.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { ADDR, uniq } = require('./helpers');
const { Client, InvalidArgumentError } = require('..');

const ADDR2 = process.env.MCDS_ADDR2;
const skip = ADDR && ADDR2 ? false : 'MCDS_ADDR and MCDS_ADDR2 are not both set (two servers)';
const opts = { timeout: 10000 };

let pool;
let one;
if (!skip) {
  pool = new Client([ADDR, `${ADDR2}:3`], opts);
  one = { [ADDR]: new Client(ADDR, opts), [ADDR2]: new Client(ADDR2, opts) };
}
test.after(() => { if (pool) { pool.close(); Object.values(one).forEach((c) => c.close()); } });

test('each key lives on the server serverFor names, and only there', { skip }, async () => {
  const ks = Array.from({ length: 200 }, () => uniq('pk'));
  await Promise.all(ks.map((k) => pool.set(k, k)));
  const where = { [ADDR]: 0, [ADDR2]: 0 };
  for (const k of ks) {
    const home = pool.serverFor(k);
    where[home]++;
    const other = home === ADDR ? ADDR2 : ADDR;
    assert.strictEqual((await one[home].get(k)).toString(), k);
    assert.strictEqual(await one[other].get(k), null);
  }
  assert.ok(where[ADDR] > 0 && where[ADDR2] > where[ADDR], JSON.stringify(where));
  const m = await pool.getMulti(ks);
  assert.strictEqual(m.size, 200);
});

test('a queue and its dead letters go where their {tag} goes; qpopAny needs one server', { skip }, async () => {
  const tag = uniq('tag');
  const home = pool.serverFor(tag);
  await pool.qpush(`{${tag}}`, 'x');
  await pool.rpush(`{${tag}}:list`, 'y');
  assert.strictEqual((await one[home].qstats(`{${tag}}`)).ready, 1);
  assert.strictEqual(await one[home].llen(`{${tag}}:list`), 1);
  let a = uniq('qa');
  let b = uniq('qb');
  while (pool.serverForStructure(a) === pool.serverForStructure(b)) b = uniq('qb');
  await assert.rejects(pool.qpopAny([a, b]), InvalidArgumentError);
  a = `{${tag}}a`;
  b = `{${tag}}b`;
  assert.deepStrictEqual(await pool.qpopAny([a, b]), []);
});

test('counter definitions reach every server; a tree follows its group', { skip }, async () => {
  const id = (Math.random() * 2 ** 31) >>> 0;
  assert.strictEqual(await pool.ctdef(id, '104'), true);
  for (const c of Object.values(one)) assert.strictEqual((await c.ctcounter(id)).id, id);
  const g = uniq('grp');
  await pool.ctobj(g);
  const kids = Array.from({ length: 10 }, () => uniq('kid'));
  for (const k of kids) assert.strictEqual(await pool.ctobj(k, { parent: g, group: g }), true);
  for (const k of kids) assert.strictEqual((await pool.ctincr(k, id, 104, '20240101', 1, { group: g })).applied, true);
  assert.strictEqual((await one[pool.serverFor(g)].ctget(g, id, 104, '20240101')).value, 10n);
  assert.ok((await pool.ctcounter(id, { server: ADDR2 })).id === id);
});

test('kscan walks both servers; per-server calls need server: or route:', { skip }, async () => {
  const p = uniq('ps');
  const ks = Array.from({ length: 40 }, (_, i) => `${p}:${i}`);
  await Promise.all(ks.map((k) => pool.set(k, 'v')));
  const seen = new Map();
  for await (const k of pool.kscan({ match: `${p}:*` })) seen.set(k.key, k.server);
  assert.deepStrictEqual([...seen.keys()].sort(), [...ks].sort());
  for (const [k, s] of seen) assert.strictEqual(s, pool.serverFor(k));
  await assert.rejects(pool.qlist(), InvalidArgumentError);
  await assert.rejects(pool.kscanPage(0), InvalidArgumentError);
  await assert.rejects(pool.qlist({ server: 'nosuch:1' }), InvalidArgumentError);
  assert.ok(Array.isArray((await pool.qlist({ server: ADDR2 })).queues));
  assert.deepStrictEqual(Object.keys(await pool.version()).sort(), [ADDR, ADDR2].sort());
});
