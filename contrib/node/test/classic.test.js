// classic.test.js: memcached's commands against the server under test:
// replies, results, errors, and hostile input.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { NO_SERVER, client, uniq } = require('./helpers');
const { ClientError, ServerError, UnknownCommandError, InvalidArgumentError } = require('..');

const c = NO_SERVER ? null : client();
test.after(() => c && c.close());
const t = (name, fn) => test(name, { skip: NO_SERVER }, fn);

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

t('set and get: binary values, \\r\\n inside, empty, UTF-8 strings, 500 KB', async () => {
  const k = uniq('cl');
  for (const v of [ALL_BYTES, Buffer.from('a\r\nEND\r\nset x 0 0 1\r\n'), Buffer.alloc(0), Buffer.alloc(500000, 7)]) {
    assert.strictEqual(await c.set(k, v), true);
    assert.deepStrictEqual(await c.get(k), v);
  }
  await c.set(k, 'héllo ✓');
  assert.strictEqual((await c.get(k)).toString('utf8'), 'héllo ✓');
  assert.strictEqual(await c.get('x'), null, 'a value is never read as a command');
  assert.strictEqual(await c.get(uniq('missing')), null);
});

t('flags and cas units come back; gets of a miss is null', async () => {
  const k = uniq('cl');
  await c.set(k, 'v', { flags: 4294967295 });
  const it = await c.gets(k);
  assert.strictEqual(it.flags, 4294967295);
  assert.strictEqual(typeof it.cas, 'bigint');
  assert.strictEqual(await c.gets(uniq('missing')), null);
});

t('add, replace, append, prepend: true when stored, false for NOT_STORED', async () => {
  const k = uniq('cl');
  assert.strictEqual(await c.replace(k, 'x'), false);
  assert.strictEqual(await c.append(k, 'x'), false);
  assert.strictEqual(await c.prepend(k, 'x'), false);
  assert.strictEqual(await c.add(k, 'b'), true);
  assert.strictEqual(await c.add(k, 'z'), false);
  assert.strictEqual(await c.append(k, 'c'), true);
  assert.strictEqual(await c.prepend(k, 'a'), true);
  assert.strictEqual((await c.get(k)).toString(), 'abc');
  assert.strictEqual(await c.replace(k, 'r'), true);
  assert.strictEqual((await c.get(k)).toString(), 'r');
});

t('cas: true stored, false EXISTS, null NOT_FOUND', async () => {
  const k = uniq('cl');
  await c.set(k, 'one');
  const { cas } = await c.gets(k);
  assert.strictEqual(await c.cas(k, 'two', cas), true);
  assert.strictEqual(await c.cas(k, 'three', cas), false);
  assert.strictEqual((await c.get(k)).toString(), 'two');
  assert.strictEqual(await c.cas(uniq('missing'), 'x', cas), null);
});

t('getMulti: hits only, each with flags and cas, repeated keys once', async () => {
  const ks = [uniq('m'), uniq('m'), uniq('m')];
  await c.set(ks[0], 'a', { flags: 1 });
  await c.set(ks[2], 'c', { flags: 3 });
  const m = await c.getMulti([ks[0], ks[1], ks[2], ks[0]]);
  assert.deepStrictEqual([...m.keys()].sort(), [ks[0], ks[2]].sort());
  assert.strictEqual(m.get(ks[2]).value.toString(), 'c');
  assert.strictEqual(m.get(ks[0]).flags, 1);
  assert.deepStrictEqual(await c.getMulti([]), new Map());
});

t('getMulti of 1,000 keys: every value comes back (a line over 2048 bytes)', async () => {
  const ks = Array.from({ length: 1000 }, () => uniq('many'));
  await Promise.all(ks.map((k, i) => c.set(k, String(i))));
  const m = await c.getMulti(ks);
  assert.strictEqual(m.size, 1000);
  ks.forEach((k, i) => assert.strictEqual(m.get(k).value.toString(), String(i)));
});

t('touch, gat, delete', async () => {
  const k = uniq('cl');
  assert.strictEqual(await c.touch(k, 100), false);
  assert.strictEqual(await c.gat(k, 100), null);
  await c.set(k, 'v');
  assert.strictEqual(await c.touch(k, 100), true);
  const it = await c.gat(k, 0);
  assert.strictEqual(it.value.toString(), 'v');
  assert.strictEqual(typeof it.cas, 'bigint');
  assert.strictEqual(await c.delete(k), true);
  assert.strictEqual(await c.delete(k), false);
  await c.set(k, 'v');
  await c.touch(k, -1);
  assert.strictEqual(await c.get(k), null, 'a negative exptime expires it');
});

t('incr and decr: 64-bit, wrap at 2^64, stop at 0, null for NOT_FOUND', async () => {
  const k = uniq('n');
  assert.strictEqual(await c.incr(k, 1), null);
  await c.set(k, '18446744073709551614');
  assert.strictEqual(await c.incr(k), 18446744073709551615n);
  assert.strictEqual(await c.incr(k, 2n), 1n);
  assert.strictEqual(await c.decr(k, 5), 0n);
  assert.strictEqual(await c.incr(k, 10), 10n);
  assert.strictEqual(await c.decr(k, 1), 9n);
  await c.set(k, 'abc');
  await assert.rejects(c.incr(k, 1), ClientError);
  await assert.rejects(c.incr(k, -1), InvalidArgumentError);
  await assert.rejects(c.incr(k, 2n ** 64n), InvalidArgumentError);
});

t('version, stats, stats settings; an unknown stats group is ERROR', async () => {
  const [v] = Object.values(await c.version());
  assert.match(v, /^\d+\.\d+/);
  const [s] = Object.values(await c.stats());
  assert.match(s.pid, /^\d+$/);
  assert.ok(Number(s.curr_connections) >= 1);
  const [settings] = Object.values(await c.stats('settings'));
  assert.ok('maxbytes' in settings);
  await assert.rejects(c.stats('nosuchgroup'), UnknownCommandError);
});

t('flushAll with a time before the server started: OK, nothing flushed', async () => {
  const k = uniq('cl');
  await c.set(k, 'kept');
  assert.strictEqual(await c.flushAll(1000000000), true);
  assert.strictEqual((await c.get(k)).toString(), 'kept');
});

t('a value over -I is SERVER_ERROR, and the connection goes on', async () => {
  const k = uniq('big');
  await assert.rejects(c.set(k, Buffer.alloc(2 * 1024 * 1024)), (e) => e instanceof ServerError && /too large/.test(e.message));
  assert.strictEqual(await c.set(k, 'small'), true);
});

t('a store on a queue key is refused with ClientError (another type)', async () => {
  const q = uniq('q');
  await c.qcreate(q);
  await assert.rejects(c.append(q, 'x'), ClientError);
});

t('bad keys and values are refused before anything is sent', async () => {
  for (const k of ['', 'a b', 'a\r\nb', 'tab\there', 'nul\0', 'del\x7f', 'x'.repeat(251), Buffer.from([0x41, 0x0a]), null, 42, {}]) {
    await assert.rejects(c.get(k), InvalidArgumentError, JSON.stringify(String(k)));
    await assert.rejects(c.set(k, 'v'), InvalidArgumentError);
  }
  for (const v of [null, undefined, 42, { a: 1 }]) await assert.rejects(c.set(uniq('k'), v), InvalidArgumentError);
  await assert.rejects(c.set(uniq('k'), 'v', { flags: -1 }), InvalidArgumentError);
  await assert.rejects(c.set(uniq('k'), 'v', { flags: 2 ** 32 }), InvalidArgumentError);
  await assert.rejects(c.set(uniq('k'), 'v', { exptime: 1.5 }), InvalidArgumentError);
  await assert.rejects(c.getMulti('notalist'), InvalidArgumentError);
  const long = 'k'.repeat(250);
  assert.strictEqual(await c.set(long, 'v'), true);
  assert.strictEqual((await c.get(long)).toString(), 'v');
  assert.strictEqual(await c.set('ключ:é', 'v'), true);
  assert.strictEqual((await c.get('ключ:é')).toString(), 'v');
});
