// replicas.test.js: replica sets in the server list ("P=R"), without an
// mcds server: lists good and bad, placement unchanged by adding replicas,
// and against fake servers what is retried (a connect failure, a replica's
// refusal, a stale replica skipped by a read) and what never is (a request
// the server read and then closed on, no reply in time, "not confirmed by
// enough replicas"), hostile refusals (a garbage address, a redirect
// loop) that end within retryTimeout with the primary's error, and a
// replica refusing as stale left alone by reads for reconnectDelay (the
// silent replica is client_replicas.tcl's: node cannot make one). The live
// checks (a primary and its replica, a promotion) are
// t/clients/node_replicas_check.js, run by t/unit/client_replicas.tcl.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { fakeServer } = require('./helpers');
const { Client, InvalidArgumentError, ServerError, ConnectionError } = require('..');

// A fake that counts request lines and answers each with answer(): a
// string (a line), null (never answers) or 'close'.
async function fake(answer) {
  let counted = 0;
  const f = await fakeServer((sock, all) => {
    const n = all.toString('latin1').split('\r\n').length - 1;
    while (counted < n) {
      counted++;
      f.requests = counted;
      const a = typeof f.answer === 'function' ? f.answer() : f.answer;
      if (a === 'close') sock.destroy();
      else if (a !== null) sock.write(`${a}\r\n`);
    }
  });
  f.answer = answer;
  f.requests = 0;
  f.addr = `127.0.0.1:${f.port}`;
  f.connections = () => f.sockets.size;
  return f;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// host:port where nothing listens (a low port, as the suite's other tests
// of a dead server use: a port listened on and closed again could be
// handed to the next fake).
function deadAddress(port = 1) {
  return `127.0.0.1:${port}`;
}

test('lists: replica sets parse; bad members refuse the whole list', () => {
  const c = new Client('10.0.0.9:11211:2=10.0.0.2:11211=[::1]:7=/tmp/s,10.0.1.9:11211', { readReplicas: true });
  assert.deepStrictEqual(c.servers, ['10.0.0.9:11211', '10.0.1.9:11211']);
  assert.deepStrictEqual(c.shards[0].members.map((m) => m.name), ['10.0.0.9:11211', '10.0.0.2:11211', '[::1]:7', '/tmp/s']);
  assert.strictEqual(c.shards[0].members[0].weight, 2);
  assert.strictEqual(c.primaryOf('10.0.0.9:11211'), '10.0.0.9:11211');
  assert.throws(() => c.primaryOf('10.0.0.2:11211'), InvalidArgumentError);
  c.close();
  const eight = Array.from({ length: 8 }, (_, i) => `h:${i + 1}`);
  new Client(eight.join('=')).close();
  for (const bad of ['a:1=', '=a:1', 'a:1==b:2', 'a:1=b:2:3', 'a:1=b', 'a:1=b:0', 'a:1=b:70000', 'a:1=b:x',
    'a:1=[::1', 'a:1=b :2', [...eight, 'h:9'].join('='), 'a:1,c:2=d:3:1']) {
    assert.throws(() => new Client(bad), InvalidArgumentError, bad);
  }
  for (const opts of [{ readReplicas: 1 }, { retryTimeout: -1 }, { retryTimeout: 3600001 }, { retryTimeout: 1.5 },
    { reconnectDelay: -1 }, { reconnectDelay: 86400001 }, { reconnectDelay: 1.5 }, { reconnectDelay: '2000' }]) {
    assert.throws(() => new Client('a:1=b:2', opts), InvalidArgumentError, JSON.stringify(opts));
  }
});

test('placement: 1,000 keys go to the same entry with replicas as without', () => {
  const plain = new Client(['10.0.0.1:11211', '10.0.0.2:11212:2', '10.0.0.3:11213', '/tmp/m.sock']);
  const sets = new Client(['10.0.0.1:11211=10.0.1.1:11211', '10.0.0.2:11212:2=10.0.1.2:1=10.0.1.3:2',
    '10.0.0.3:11213', '/tmp/m.sock=/tmp/r.sock']);
  const keys = Array.from({ length: 1000 }, (_, i) => `key:${i}`);
  assert.deepStrictEqual(keys.filter((k) => plain.serverFor(k) !== sets.serverFor(k)
    || plain.serverForStructure(k) !== sets.serverForStructure(k)), []);
  assert.strictEqual(new Set(keys.map((k) => sets.serverFor(k))).size, 4);
  plain.close();
  sets.close();
});

test('never retried: a request read then closed on, no reply in time, not confirmed by enough replicas', async () => {
  const cases = [['close', 5000, ConnectionError], [null, 300, ConnectionError],
    ['SERVER_ERROR changed on the primary, not confirmed by enough replicas', 5000, ServerError]];
  for (const [answer, timeout, type] of cases) {
    const primary = await fake(answer);
    const replica = await fake('7');
    const c = new Client(`${primary.addr}=${replica.addr}`, { timeout, retryTimeout: 2000 });
    await assert.rejects(c.incr('k', 1), type);
    assert.deepStrictEqual([primary.requests, replica.connections()], [1, 0], String(answer));
    c.close();
    await primary.close();
    await replica.close();
  }
});

test('retried: a connect failure moves the primary; a refusal naming an address outside the list; reads skip stale replicas', async () => {
  const member = await fake('7');
  let c = new Client(`${deadAddress()}=${member.addr}`);
  assert.strictEqual(await c.incr('k', 1), 7n);
  assert.strictEqual(c.primaryOf(c.servers[0]), member.addr);
  assert.strictEqual(await c.incr('k', 1), 7n);
  assert.deepStrictEqual([member.requests, member.connections()], [2, 1]);
  c.close();
  const outside = await fake('8');
  const refusing = await fake(`SERVER_ERROR read-only replica of ${outside.addr}`);
  c = new Client(`${refusing.addr}=${deadAddress()}`);
  assert.deepStrictEqual([await c.incr('k', 1), await c.incr('k', 1)], [8n, 8n]);
  assert.deepStrictEqual([refusing.requests, outside.requests, c.primaryOf(refusing.addr)], [1, 2, outside.addr]);
  c.close();
  const stale = await fake('SERVER_ERROR stale replica: its link to its primary is not up');
  const primary = await fake('VALUE k 0 1\r\nx\r\nEND');
  c = new Client(`${primary.addr}=${stale.addr}`, { readReplicas: true });
  assert.strictEqual((await c.get('k')).toString(), 'x');
  assert.deepStrictEqual([stale.requests, primary.requests], [1, 1]);
  c.close();
  const behind = await fake('SERVER_ERROR stale replica: behind its primary longer than --replica-max-lag');
  c = new Client(`${primary.addr}=${behind.addr}`, { readReplicas: true });
  assert.strictEqual((await c.get('k')).toString(), 'x');
  assert.deepStrictEqual([behind.requests, primary.requests], [1, 2]);
  c.close();
  const ro = await fake(`SERVER_ERROR read-only replica of ${primary.addr}`);
  c = new Client(`${primary.addr}=${ro.addr}`, { readReplicas: true });
  assert.strictEqual((await c.get('k')).toString(), 'x');
  assert.deepStrictEqual([ro.requests, primary.requests], [1, 3]);
  c.close();
  c = new Client(`${primary.addr}=${deadAddress()}`, { readReplicas: true });
  assert.strictEqual((await c.get('k')).toString(), 'x');
  assert.strictEqual(primary.requests, 4);
  c.close();
  for (const f of [member, outside, refusing, stale, behind, primary, ro]) await f.close();
});

test('hostile refusals end within retryTimeout with the primary\'s error', async () => {
  const texts = ['read-only replica of x', 'read-only replica of :1', 'read-only replica of h:99999',
    'read-only replica of [::1', 'read-only replica of h:1 junk', `read-only replica of ${'a'.repeat(5000)}:1`,
    'read-only replica of h:0', 'read-only replica of \x01:1', 'read-only replica'];
  for (const text of texts) {
    const server = await fake(`SERVER_ERROR ${text}`);
    const c = new Client(`${server.addr}=${deadAddress()}`, { retryTimeout: 1000 });
    await assert.rejects(c.incr('k', 1), (err) => err instanceof ServerError && err.reply === `SERVER_ERROR ${text}`);
    assert.ok(server.requests >= 1 && server.requests <= 12, `${text.slice(0, 30)}: ${server.requests}`);
    c.close();
    await server.close();
  }
  const a = await fake(null);
  const b = await fake(null);
  a.answer = `SERVER_ERROR read-only replica of ${b.addr}`;
  b.answer = `SERVER_ERROR read-only replica of ${a.addr}`;
  let c = new Client(`${a.addr}=${b.addr}`, { retryTimeout: 1000 });
  await assert.rejects(c.incr('k', 1), (err) => err.reply === a.answer);
  assert.ok(a.requests >= 1 && a.requests <= 12 && b.requests >= 1, `${a.requests} ${b.requests}`);
  c.close();
  const before = [a.requests, b.requests];
  c = new Client(`${a.addr}=${b.addr}`, { retryTimeout: 0 });
  await assert.rejects(c.incr('k', 1), (err) => err.reply === a.answer);
  assert.deepStrictEqual([a.requests - before[0], b.requests - before[1]], [1, 0]);
  c.close();
  let port = 100;
  const moving = await fake(() => `SERVER_ERROR read-only replica of 127.0.0.1:${++port}`);
  c = new Client(`${moving.addr}=${deadAddress()}`, { retryTimeout: 2000 });
  await assert.rejects(c.incr('k', 1), ServerError);
  assert.ok(c.shards[0].pools.size <= 10, `${port} ${c.shards[0].pools.size}`);
  assert.ok(c.shards[0].down.size <= 10, `${port} marks ${c.shards[0].down.size}`);
  const shard = c.shards[0];
  shard.primary = { host: '127.0.0.1', port: 99, name: '127.0.0.1:99' };
  shard.pool(shard.primary);
  for (let p = 200; p < 230; p++) shard.pool({ host: '127.0.0.1', port: p, name: `127.0.0.1:${p}` });
  assert.deepStrictEqual([...shard.pools.keys()].sort(), [moving.addr, deadAddress(), '127.0.0.1:99',
    ...Array.from({ length: 7 }, (_, i) => `127.0.0.1:${223 + i}`)].sort());
  c.close();
  await moving.close();
  c = new Client(`${deadAddress(1)}=${deadAddress(2)}`, { retryTimeout: 300 });
  await assert.rejects(c.incr('k', 1), (err) => err instanceof ConnectionError && err.connectFailed === true);
  c.close();
  await a.close();
  await b.close();
});

test('a replica refusing as stale is left alone by reads for reconnectDelay, twice as long after a second refusal; one read tries it after', async () => {
  const STALE = 'SERVER_ERROR stale replica: its link to its primary is not up';
  const primary = await fake('VALUE k 0 1\r\nx\r\nEND');
  const stale = await fake(STALE);
  let c = new Client(`${primary.addr}=${stale.addr}`, { readReplicas: true, reconnectDelay: 1000 });
  const got = [];
  for (let i = 0; i < 3; i++) got.push((await c.get('k')).toString());
  assert.deepStrictEqual([got, stale.requests], [['x', 'x', 'x'], 1], 'asked once, then left alone');
  await sleep(1500);
  const many = await Promise.all(Array.from({ length: 5 }, () => c.get('k')));
  assert.deepStrictEqual([many.map(String), stale.requests], [Array(5).fill('x'), 2],
    'after reconnectDelay one of five reads at once tries it; refused, it is left alone again');
  await sleep(1300);
  assert.deepStrictEqual([(await c.get('k')).toString(), stale.requests], ['x', 2], 'for twice as long');
  stale.answer = 'VALUE k 0 1\r\nz\r\nEND';
  await sleep(1000);
  assert.deepStrictEqual([(await c.get('k')).toString(), (await c.get('k')).toString(), stale.requests],
    ['z', 'z', 4], 'then tried again: its answer clears the mark');
  c.close();
  stale.answer = STALE;
  c = new Client(`${primary.addr}=${stale.addr}`, { readReplicas: true, reconnectDelay: 0 });
  let before = stale.requests;
  for (let i = 0; i < 3; i++) await c.get('k');
  assert.strictEqual(stale.requests - before, 3, 'reconnectDelay 0: every read asks it');
  c.close();
  c = new Client(`${stale.addr}=${deadAddress()}`, { reconnectDelay: 1000, retryTimeout: 0 });
  before = stale.requests;
  for (let i = 0; i < 2; i++) await assert.rejects(c.incr('k', 1), ServerError);
  assert.strictEqual(stale.requests - before, 2, 'writes ignore the marks');
  c.close();
  await primary.close();
  await stale.close();
});
