// connection.test.js: connections and pools: refused, silent and
// babbling servers, nothing sent for refused arguments, the timeout a
// blocking pop extends, pipelining and the limit on connections.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { NO_SERVER, client, uniq, fakeServer } = require('./helpers');
const { Client, ConnectionError, InvalidArgumentError } = require('..');

test('a refused connection rejects with ConnectionError', async () => {
  const srv = await fakeServer();
  const port = srv.port;
  await srv.close();
  const c = new Client(`127.0.0.1:${port}`);
  await assert.rejects(c.get('k'), ConnectionError);
  await assert.rejects(Promise.all([c.get('a'), c.get('b'), c.get('c')]), ConnectionError);
  c.close();
});

test('a server that never answers: ConnectionError, then later calls open a new connection', async () => {
  const srv = await fakeServer((sock, all) => {
    if (all.toString().includes('get second')) sock.write('END\r\n');
  });
  const c = new Client(`127.0.0.1:${srv.port}`, { timeout: 200 });
  await assert.rejects(c.get('first'), (e) => e instanceof ConnectionError && /no reply/.test(e.message));
  assert.strictEqual(await c.get('second'), null);
  c.close();
  await srv.close();
});

test('a reply out of step closes the connection with ConnectionError', async () => {
  const srv = await fakeServer((sock) => sock.write('GARBAGE\r\n'));
  const c = new Client(`127.0.0.1:${srv.port}`);
  await assert.rejects(c.delete('k'), (e) => e instanceof ConnectionError && /unexpected reply/.test(e.message));
  await assert.rejects(c.qpush('q', 'x'), ConnectionError);
  c.close();
  await srv.close();
});

test('a data block without its \\r\\n is out of step', async () => {
  const srv = await fakeServer((sock) => sock.write('VALUE k 0 2\r\nabcEND\r\n'));
  const c = new Client(`127.0.0.1:${srv.port}`);
  await assert.rejects(c.get('k'), ConnectionError);
  c.close();
  await srv.close();
});

test('refused arguments send nothing; a value with \\r\\n goes as data with its length', async () => {
  const srv = await fakeServer((sock, all) => { if (all.toString().endsWith('\r\n')) sock.write('STORED\r\n'); });
  const c = new Client(`127.0.0.1:${srv.port}`);
  await assert.rejects(c.set('bad key', 'v'), InvalidArgumentError);
  await assert.rejects(c.qpush('q\r\nflush_all', 'v'), InvalidArgumentError);
  await assert.rejects(c.lpush('l', []), InvalidArgumentError);
  await assert.rejects(c.ctincr('o', 1, 104, '2024 01', 1), InvalidArgumentError);
  await assert.rejects(c.kscanPage(0, { match: 'a b' }), InvalidArgumentError);
  await assert.rejects(c.qack('q', '1:2 3'), InvalidArgumentError);
  assert.strictEqual(srv.received.length, 0);
  assert.strictEqual(await c.set('k', 'a\r\nflush_all\r\n'), true);
  assert.strictEqual(srv.received.toString(), 'set k 0 0 14\r\na\r\nflush_all\r\n\r\n');
  c.close();
  await srv.close();
});

test('a client refuses bad options', () => {
  assert.throws(() => new Client('a:1', { maxConnections: 0 }), InvalidArgumentError);
  assert.throws(() => new Client('a:1', { timeout: -5 }), InvalidArgumentError);
  assert.throws(() => new Client('a:1', { username: 'a b', password: 'p' }), InvalidArgumentError);
  assert.throws(() => new Client('a:1', { username: 'u' }), InvalidArgumentError);
});

test('a blocking pop waits past the client timeout (its wait extends it)', { skip: NO_SERVER }, async () => {
  const c = client({ timeout: 300 });
  assert.deepStrictEqual(await c.qpop(uniq('q'), { wait: 1 }), []);
  assert.deepStrictEqual(await c.lpop(uniq('l'), { wait: 1 }), []);
  c.close();
});

test('pool: 400 calls on 2 connections at most, every answer right', { skip: NO_SERVER }, async () => {
  const c = client({ maxConnections: 2, maxPipeline: 8 });
  const ks = Array.from({ length: 200 }, () => uniq('p'));
  assert.ok((await Promise.all(ks.map((k, i) => c.set(k, `v${i}`)))).every((x) => x === true));
  const got = await Promise.all(ks.map((k) => c.get(k)));
  got.forEach((v, i) => assert.strictEqual(v.toString(), `v${i}`));
  assert.ok(c.pools[0].conns.length <= 2);
  c.close();
});

test('pool: a waiting pop holds its own connection; other calls go on, and the push wakes it', { skip: NO_SERVER }, async () => {
  const c = client({ maxConnections: 2 });
  const q = uniq('q');
  const popped = c.qpop(q, { wait: 30 });
  const k = uniq('k');
  for (let i = 0; i < 20; i++) assert.strictEqual(await c.set(k, String(i)), true);
  const id = await c.qpush(q, 'wake');
  const [m] = await popped;
  assert.strictEqual(m.id, id);
  assert.strictEqual(m.data.toString(), 'wake');
  assert.strictEqual(await c.qack(q, m), true);
  c.close();
});

test('close: calls after it reject with ConnectionError', { skip: NO_SERVER }, async () => {
  const c = client();
  await c.set(uniq('k'), 'v');
  c.close();
  await assert.rejects(c.get('k'), ConnectionError);
});
