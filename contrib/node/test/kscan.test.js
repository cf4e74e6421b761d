// kscan.test.js: key scans: every key of a prefix is found (at least
// once) with its type and TTL; pages, cursors, close; errors.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { NO_SERVER, client, uniq } = require('./helpers');
const { ClientError, InvalidArgumentError } = require('..');

const c = NO_SERVER ? null : client();
test.after(() => c && c.close());
const t = (name, fn) => test(name, { skip: NO_SERVER }, fn);

t('every key of a prefix, with its type and TTL', async () => {
  const p = uniq('scan');
  const want = new Map();
  for (let i = 0; i < 120; i++) {
    await c.set(`${p}:s${i}`, 'v', { exptime: i % 2 ? 0 : 1000 });
    want.set(`${p}:s${i}`, 'string');
  }
  await c.qpush(`${p}:q`, 'x');
  await c.rpush(`${p}:l`, 'x');
  want.set(`${p}:q`, 'queue').set(`${p}:l`, 'list');
  const seen = new Map();
  for await (const k of c.kscan({ match: `${p}:*`, count: 50 })) {
    seen.set(k.key, k.type);
    if (k.key.endsWith(':s1')) assert.strictEqual(k.ttl, -1);
    if (k.key.endsWith(':s0')) assert.ok(k.ttl > 0 && k.ttl <= 1000);
  }
  assert.deepStrictEqual(seen, want);
  const lists = [];
  for await (const k of c.kscan({ match: `${p}:*`, type: 'list' })) lists.push(k.key);
  assert.deepStrictEqual(lists, [`${p}:l`]);
});

t('pages and cursors; kscanClose; an unknown cursor is null', async () => {
  const p = uniq('scan');
  for (let i = 0; i < 5; i++) await c.set(`${p}:${i}`, 'v');
  const first = await c.kscanPage(0, { match: `${p}:*`, count: 1 });
  assert.match(first.cursor, /^\d+$/);
  if (first.cursor !== '0') {
    assert.strictEqual(await c.kscanClose(first.cursor), true);
    assert.strictEqual(await c.kscanClose(first.cursor), false);
    assert.strictEqual(await c.kscanPage(first.cursor), null);
  }
  assert.strictEqual(await c.kscanPage('18446744073709551615'), null);
  await assert.rejects(c.kscanPage(5, { match: 'x*' }), InvalidArgumentError);
  await assert.rejects(c.kscanPage(0, { type: 'nosuchtype' }), ClientError);
  await assert.rejects(c.kscanPage(-1), InvalidArgumentError);
});

t('leaving the loop early closes the scan', async () => {
  const p = uniq('scan');
  for (let i = 0; i < 3; i++) await c.set(`${p}:${i}`, 'v');
  const closed = [];
  const close = c.kscanClose;
  c.kscanClose = async (cursor, opts) => {
    const r = await close.call(c, cursor, opts);
    closed.push([cursor, r]);
    return r;
  };
  try {
    for await (const k of c.kscan({ match: `${p}:*`, count: 1 })) { assert.ok(k.key.startsWith(p)); break; }
  } finally {
    delete c.kscanClose;
  }
  for (const [cursor, r] of closed) {
    assert.strictEqual(r, true);
    assert.strictEqual(await c.kscanPage(cursor), null, 'the scan is gone');
  }
});
