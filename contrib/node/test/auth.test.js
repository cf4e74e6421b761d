// auth.test.js: a server started with -Y: every connection the client
// opens authenticates first; wrong credentials reject with
// AuthenticationError. Also a real flush_all: this server is this file's
// alone. Needs MCDS_AUTH_ADDR, MCDS_AUTH_USER, MCDS_AUTH_PASSWORD.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { Client, AuthenticationError, ClientError } = require('..');

const ADDR = process.env.MCDS_AUTH_ADDR;
const skip = ADDR ? false : 'MCDS_AUTH_ADDR is not set (a server started with -Y)';
const username = process.env.MCDS_AUTH_USER;
const password = process.env.MCDS_AUTH_PASSWORD;

test('right credentials: every call works, on every connection the pool opens', { skip }, async () => {
  const c = new Client(ADDR, { username, password, maxConnections: 3 });
  const ks = Array.from({ length: 30 }, (_, i) => `auth:${i}`);
  assert.ok((await Promise.all(ks.map((k) => c.set(k, k)))).every((x) => x));
  assert.deepStrictEqual((await Promise.all(ks.map((k) => c.get(k)))).map(String), ks);
  assert.strictEqual(typeof (await c.qpush('auth:q', 'x')), 'bigint');
  assert.strictEqual(c.pools[0].conns.length, 3);
  c.close();
});

test('wrong password, unknown user: AuthenticationError (a ClientError), nothing served', { skip }, async () => {
  for (const creds of [{ username, password: `${password}x` }, { username: 'nobody', password }]) {
    const c = new Client(ADDR, creds);
    await assert.rejects(c.get('auth:0'), (e) => e instanceof AuthenticationError && e instanceof ClientError && /authentication failure/.test(e.message));
    c.close();
  }
});

test('no credentials: CLIENT_ERROR unauthenticated', { skip }, async () => {
  const c = new Client(ADDR);
  await assert.rejects(c.get('auth:0'), (e) => e instanceof ClientError && /unauthenticated/.test(e.message));
  c.close();
});

test('flushAll: every value stored before it is gone', { skip }, async () => {
  const c = new Client(ADDR, { username, password });
  await c.set('auth:flushed', 'v');
  assert.strictEqual(await c.flushAll(), true);
  assert.strictEqual(await c.get('auth:flushed'), null);
  assert.strictEqual(await c.set('auth:after', 'v'), true);
  assert.strictEqual((await c.get('auth:after')).toString(), 'v');
  c.close();
});
