// tls.test.js: a server started with -Z (MCDS_TLS_ADDR; its CA in
// MCDS_TLS_CA): the client speaks TLS, the server's certificate checked
// against that CA; a CA that did not sign it is a ConnectionError.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const { Client, ConnectionError } = require('..');

const ADDR = process.env.MCDS_TLS_ADDR;
const CA = process.env.MCDS_TLS_CA;
const skip = ADDR && CA ? false : 'MCDS_TLS_ADDR and MCDS_TLS_CA are not set (a server started with -Z)';

test('over TLS: memcached commands, a queue and a list', { skip }, async () => {
  const c = new Client(ADDR, { tls: { ca: fs.readFileSync(CA) }, maxConnections: 2 });
  const big = Buffer.alloc(300000, 9);
  assert.strictEqual(await c.set('tls:k', big), true);
  assert.deepStrictEqual(await c.get('tls:k'), big);
  const id = await c.qpush('tls:q', 'over tls');
  const [m] = await c.qpop('tls:q');
  assert.strictEqual(m.id, id);
  assert.strictEqual(await c.qack('tls:q', m), true);
  assert.strictEqual(await c.rpush('tls:l', ['a', 'b']), 2);
  c.close();
});

test('a certificate the given CA did not sign: ConnectionError', { skip }, async () => {
  const c = new Client(ADDR, { tls: true });
  await assert.rejects(c.get('tls:k'), ConnectionError);
  c.close();
});
