// queue.test.js: every queue call, its replies and errors, and counts:
// what is pushed is popped and acked exactly once.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { NO_SERVER, client, uniq } = require('./helpers');
const { ClientError, InvalidArgumentError } = require('..');

const c = NO_SERVER ? null : client();
test.after(() => c && c.close());
const t = (name, fn) => test(name, { skip: NO_SERVER }, fn);

t('qcreate: true, then false (EXISTS); options; errors', async () => {
  const q = uniq('q');
  assert.strictEqual(await c.qcreate(q, { lease: 1.5, maxdeliver: 3, maxlen: 10, maxage: 3600, dlq: `${q}:dlq` }), true);
  assert.strictEqual(await c.qcreate(q), false);
  const s = await c.qstats(q);
  assert.strictEqual(s.lease_ms, 1500);
  assert.strictEqual(s.max_deliveries, 3);
  assert.strictEqual(s.max_length, 10);
  assert.strictEqual(s.dlq, `${q}:dlq`);
  const k = uniq('cache');
  await c.set(k, 'v');
  await assert.rejects(c.qcreate(k), ClientError);
  await assert.rejects(c.qcreate(uniq('q'), { maxdeliver: 1, dlq: k }), ClientError);
  await assert.rejects(c.qcreate(q, { lease: -1 }), InvalidArgumentError);
  await assert.rejects(c.qcreate(q, { dlq: 'a b' }), InvalidArgumentError);
});

t('qpush and qpop: data, flags, ids and receipts; priority order; empty pop', async () => {
  const q = uniq('q');
  const data = Buffer.from('x\r\nqpush evil 0 0 1\r\ny');
  const a = await c.qpush(q, data, { flags: 7, priority: 2000 });
  const b = await c.qpush(q, 'first', { priority: 1 });
  assert.strictEqual(typeof a, 'bigint');
  const ms = await c.qpop(q, { count: 5, lease: 30 });
  assert.deepStrictEqual(ms.map((m) => m.id), [b, a]);
  assert.deepStrictEqual(ms[1].data, data);
  assert.strictEqual(ms[1].flags, 7);
  assert.strictEqual(ms[1].deliveries, 1);
  assert.strictEqual(ms[1].receipt, `${a}:1`);
  assert.deepStrictEqual(await c.qpop(q), []);
  assert.deepStrictEqual(await c.qpop(uniq('missing')), []);
  assert.strictEqual(await c.qstats('evil'), null, 'the data was never a command');
});

t('receipts: ack, release, touch; an old receipt is NOT_FOUND (false)', async () => {
  const q = uniq('q');
  await c.qpush(q, 'm');
  const [m1] = await c.qpop(q);
  assert.strictEqual(await c.qtouch(q, m1, { lease: 60 }), true);
  assert.strictEqual(await c.qtouch(q, m1.receipt), true);
  assert.strictEqual(await c.qrelease(q, m1), true);
  const [m2] = await c.qpop(q);
  assert.strictEqual(m2.deliveries, 2);
  assert.strictEqual(await c.qack(q, m1), false, 'the first delivery is over');
  assert.strictEqual(await c.qrelease(q, m1.receipt, { delay: 0 }), false);
  assert.strictEqual(await c.qack(q, m2.id), true, 'a bare id');
  assert.strictEqual(await c.qack(q, m2), false);
  assert.strictEqual(await c.qack(uniq('missing'), '1:1'), false);
  await assert.rejects(c.qack(q, 'abc'), InvalidArgumentError);
  await assert.rejects(c.qack(q, -1), InvalidArgumentError);
  await assert.rejects(c.qtouch(q, m2, { lease: 0 }), ClientError, 'a zero lease is the server\'s to refuse');
});

t('qrelease with a delay: the message is delayed (qpeekDelayed), then qpeekId finds it', async () => {
  const q = uniq('q');
  const id = await c.qpush(q, 'later');
  const [m] = await c.qpop(q);
  assert.strictEqual(await c.qrelease(q, m, { delay: 1000 }), true);
  const d = await c.qpeekDelayed(q, 10);
  assert.deepStrictEqual(d.map((x) => x.id), [id]);
  assert.strictEqual((await c.qpeekId(q, id)).data.toString(), 'later');
  assert.strictEqual(await c.qpeekId(q, id + 1000000n), null);
  const info = await c.qinfo(q, id);
  assert.strictEqual(info.state, 'delayed');
  assert.strictEqual(info.id, id);
  assert.strictEqual(info.deliveries, 1);
  assert.strictEqual(await c.qinfo(q, 0), null);
});

t('batches: 250 receipts acked in order (in requests of 100), then all NOT_FOUND', async () => {
  const q = uniq('q');
  const ids = [];
  for (let i = 0; i < 250; i += 50) ids.push(...(await c.qpushMany(q, Array.from({ length: 50 }, (_, j) => `m${i + j}`))));
  const got = [];
  while (got.length < 250) got.push(...(await c.qpop(q, { count: 100 })));
  assert.deepStrictEqual(got.map((m) => m.id), ids);
  assert.deepStrictEqual(got.map((m) => m.data.toString()), ids.map((_, i) => `m${i}`));
  const acked = await c.qackMany(q, got);
  assert.strictEqual(acked.length, 250);
  assert.ok(acked.every((x) => x === true));
  assert.ok((await c.qackMany(q, got)).every((x) => x === false));
  assert.deepStrictEqual(await c.qackMany(q, []), []);
  const s = await c.qstats(q);
  assert.strictEqual(s.pushed, 250);
  assert.strictEqual(s.acked, 250);
});

t('qreleaseMany and qtouchMany, two bare ids included', async () => {
  const q = uniq('q');
  await c.qpushMany(q, ['a', 'b', 'c']);
  const ms = await c.qpop(q, { count: 3 });
  assert.deepStrictEqual(await c.qtouchMany(q, [ms[0].id, ms[1].id]), [true, true]);
  assert.deepStrictEqual(await c.qtouchMany(q, ms, { lease: 20 }), [true, true, true]);
  assert.deepStrictEqual(await c.qreleaseMany(q, [ms[0].id, ms[1].id]), [true, true]);
  assert.deepStrictEqual(await c.qreleaseMany(q, [ms[2], ms[2]]), [true, false]);
  assert.strictEqual((await c.qstats(q)).ready, 3);
});

t('qpushMany: all or nothing at maxlen (false), 1 to 100 messages', async () => {
  const q = uniq('q');
  await c.qcreate(q, { maxlen: 5 });
  assert.strictEqual((await c.qpushMany(q, ['1', '2', '3'], { priority: 5, flags: 9 })).length, 3);
  assert.strictEqual(await c.qpushMany(q, ['4', '5', '6']), false);
  assert.strictEqual((await c.qstats(q)).ready, 3);
  assert.strictEqual(typeof (await c.qpush(q, '4')), 'bigint');
  assert.strictEqual(typeof (await c.qpush(q, '5')), 'bigint');
  assert.strictEqual(await c.qpush(q, '6'), false, 'NOT_STORED at maxlen');
  await assert.rejects(c.qpushMany(q, []), InvalidArgumentError);
  await assert.rejects(c.qpushMany(q, Array(101).fill('x')), InvalidArgumentError);
  const ms = await c.qpeek(q, 10);
  assert.deepStrictEqual(ms.map((m) => m.data.toString()), ['1', '2', '3', '4', '5']);
  assert.strictEqual(ms[0].flags, 9);
});

t('qpopAck: acks and leases the next in one round trip', async () => {
  const q = uniq('q');
  await c.qpushMany(q, ['a', 'b']);
  const [a] = await c.qpop(q);
  const r = await c.qpopAck(q, a);
  assert.strictEqual(r.acked, true);
  assert.deepStrictEqual(r.messages.map((m) => m.data.toString()), ['b']);
  const r2 = await c.qpopAck(q, a, { wait: 0.1 });
  assert.strictEqual(r2.acked, false);
  assert.deepStrictEqual(r2.messages, []);
});

t('qpopAny: the first queue with a message; each message names its queue', async () => {
  const tag = uniq('t');
  const [q1, q2] = [`{${tag}}a`, `{${tag}}b`];
  await c.qpush(q2, 'from b');
  const ms = await c.qpopAny([q1, q2], { count: 5, lease: 10 });
  assert.deepStrictEqual(ms.map((m) => [m.queue, m.data.toString()]), [[q2, 'from b']]);
  assert.strictEqual(await c.qack(ms[0].queue, ms[0]), true);
  assert.deepStrictEqual(await c.qpopAny([q1, q2], { wait: 0.1 }), []);
  await assert.rejects(c.qpopAny([]), InvalidArgumentError);
});

t('qpending: in-flight messages, with values and holders', async () => {
  const q = uniq('q');
  await c.qpushMany(q, ['p1', 'p2']);
  const ms = await c.qpop(q, { count: 2, lease: 60 });
  const p = await c.qpending(q, { values: true, holders: true });
  assert.deepStrictEqual(p.map((x) => x.id).sort(), ms.map((m) => m.id).sort());
  assert.deepStrictEqual(p.map((x) => x.data.toString()).sort(), ['p1', 'p2']);
  assert.ok(p.every((x) => typeof x.holder === 'string' && x.leaseMsLeft > 0));
  assert.strictEqual((await c.qpending(q, { count: 1 })).length, 1);
  assert.deepStrictEqual(await c.qpending(uniq('missing')), []);
});

t('qpurge, qdelete, qstats of a missing queue', async () => {
  const q = uniq('q');
  await c.qpushMany(q, ['1', '2', '3']);
  assert.strictEqual(await c.qpurge(q), 3);
  assert.strictEqual(await c.qpurge(uniq('missing')), null);
  assert.strictEqual(await c.qdelete(q), true);
  assert.strictEqual(await c.qdelete(q), false);
  assert.strictEqual(await c.qstats(q), null);
});

t('dead letters: a lease that runs out after maxdeliver; qredrive sends it back; qkick', async () => {
  const q = uniq('q');
  await c.qcreate(q, { maxdeliver: 1, lease: 0.05 });
  const id = await c.qpush(q, 'dies');
  assert.strictEqual((await c.qpop(q)).length, 1);
  const [dead] = await c.qpop(`${q}:dead`, { wait: 20 });
  assert.strictEqual(dead.id, id);
  assert.strictEqual(await c.qrelease(`${q}:dead`, dead), true);
  assert.deepStrictEqual(await c.qredrive(`${q}:dead`, 10), { moved: 1, left: 0 });
  assert.strictEqual((await c.qpeek(q))[0].id, id);
  assert.strictEqual(await c.qkick(q), 0);
  assert.strictEqual(await c.qredrive(uniq('missing')), null);
  assert.strictEqual(await c.qkick(uniq('missing'), 5), null);
});

t('qlist: this server\'s queues, paged with more', async () => {
  const tag = uniq('ql');
  const qs = [`${tag}:a`, `${tag}:b`, `${tag}:c`];
  for (const q of qs) await c.qpush(q, 'x');
  const seen = [];
  let after = `${tag}:`;
  for (;;) {
    const page = await c.qlist({ count: 2, after, route: qs[0] });
    seen.push(...page.queues.filter((e) => e.name.startsWith(tag)));
    if (!page.more || !page.more.startsWith(tag)) break;
    after = page.more;
  }
  assert.deepStrictEqual(seen.map((e) => [e.name, e.ready, e.inFlight]), qs.map((q) => [q, 1, 0]));
});

t('queue errors: a cache key is another type; a too-large message is ServerError', async () => {
  const k = uniq('cache');
  await c.set(k, 'v');
  await assert.rejects(c.qpush(k, 'x'), (e) => e instanceof ClientError && /another type/.test(e.message));
  await assert.rejects(c.qpop(k), ClientError);
  await assert.rejects(c.qpush(uniq('q'), Buffer.alloc(2 * 1024 * 1024)), (e) => e.code === 'SERVER_ERROR');
  await assert.rejects(c.qpop(uniq('q'), { count: 0 }), InvalidArgumentError);
  await assert.rejects(c.qpop(uniq('q'), { wait: Infinity }), InvalidArgumentError);
});

t('counts: 300 messages by 4 consumers at once, each acked exactly once', async () => {
  const q = uniq('q');
  const sent = new Set();
  for (let i = 0; i < 300; i++) sent.add(`msg-${i}`);
  const all = [...sent];
  await Promise.all([c.qpushMany(q, all.slice(0, 100)), c.qpushMany(q, all.slice(100, 200)),
    ...all.slice(200).map((d) => c.qpush(q, d))]);
  const got = [];
  const consumer = async () => {
    for (;;) {
      const ms = await c.qpop(q, { count: 37 });
      if (!ms.length) return;
      const acked = await c.qackMany(q, ms);
      assert.ok(acked.every((x) => x));
      got.push(...ms.map((m) => m.data.toString()));
    }
  };
  await Promise.all([consumer(), consumer(), consumer(), consumer()]);
  assert.strictEqual(got.length, 300);
  assert.deepStrictEqual(new Set(got), sent);
  const s = await c.qstats(q);
  assert.deepStrictEqual([s.pushed, s.popped, s.acked, s.ready, s.in_flight], [300, 300, 300, 0, 0]);
});

t('FIFO groups: one message of a group at a time, in push order; every message once', async () => {
  const q = uniq('q');
  await c.qpush(q, 'a1', { group: 'A' });
  await c.qpushMany(q, ['a2', 'a3'], { group: 'A' });
  await c.qpush(q, 'b1', { group: 'B' });
  let s = await c.qstats(q);
  assert.deepStrictEqual([s.ready, s.grouped, s.groups], [2, 2, 2]);
  const rounds = [];
  for (;;) {
    const got = await c.qpop(q, { count: 10 });
    if (got.length === 0) break;
    rounds.push(got.map((m) => m.data.toString()).sort());
    for (const m of got) assert.strictEqual(await c.qack(q, m.receipt), true);
  }
  assert.deepStrictEqual(rounds, [['a1', 'b1'], ['a2'], ['a3']]);
  s = await c.qstats(q);
  assert.deepStrictEqual([s.acked, s.groups], [4, 0]);
  await assert.rejects(c.qpush(q, 'x', { group: 'A', delay: 5 }), InvalidArgumentError);
  await assert.rejects(c.qpush(q, 'x', { group: 'g'.repeat(129) }), InvalidArgumentError);
});

t('dedup ids: a push retried with its id adds nothing; qpause holds deliveries', async () => {
  const q = uniq('q');
  await c.qcreate(q, { dedup: 60 });
  const id = await c.qpush(q, 'once', { dedup: 'order-17' });
  assert.strictEqual(await c.qpush(q, 'once', { dedup: 'order-17' }), id);
  const ids = await c.qpushMany(q, ['a', 'b'], { dedup: 'batch-1' });
  assert.deepStrictEqual(await c.qpushMany(q, ['a', 'b'], { dedup: 'batch-1' }), ids);
  assert.strictEqual((await c.qstats(q)).ready, 3);
  assert.strictEqual(await c.qpause(q, 60), true);
  assert.deepStrictEqual(await c.qpop(q), []);
  assert.strictEqual(await c.qpause(q, 0), true);
  assert.strictEqual((await c.qpop(q)).length, 1);
  assert.strictEqual(await c.qpause(uniq('none'), 1), null);
  await assert.rejects(c.qpush(q, 'x', { dedup: 'a b' }), InvalidArgumentError);
  await assert.rejects(c.qpush(q, 'x', { dedup: 'x'.repeat(129) }), InvalidArgumentError);
});

t('ttl: a message past its ttl is dropped (expired: drop) or dead-lettered; qinfo ttl_ms_left; errors', async () => {
  const q = uniq('q');
  const until = async (fn) => {
    for (let i = 0; i < 600 && !(await fn()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await fn());
  };
  assert.strictEqual(await c.qcreate(q, { expired: 'drop' }), true);
  assert.strictEqual((await c.qstats(q)).expired, 'drop');
  await c.qpush(q, 'brief', { ttl: 0.2 });
  const long = await c.qpush(q, 'long', { ttl: 1000, dedup: 't-1', priority: 5 });
  assert.strictEqual(await c.qpush(q, 'again', { ttl: 1000, dedup: 't-1' }), long);
  await c.qpushMany(q, ['a', 'b'], { ttl: 0.2 });
  const info = await c.qinfo(q, long);
  assert.ok(info.ttl_ms_left > 0 && info.ttl_ms_left <= 1000000);
  await until(async () => (await c.qstats(q)).dropped === 3);
  const s = await c.qstats(q);
  assert.deepStrictEqual([s.pushed, s.dropped, s.expired_ttl, s.ready, s.dead], [4, 3, 3, 1, 0]);
  const d = uniq('q');
  await c.qpush(d, 'to the dlq', { ttl: 0.2 });
  await until(async () => (await c.qstats(d)).dead === 1);
  assert.deepStrictEqual((await c.qpeek(`${d}:dead`)).map((m) => m.data.toString()), ['to the dlq']);
  await assert.rejects(c.qpush(q, 'x', { ttl: -1 }), InvalidArgumentError);
  await assert.rejects(c.qpush(q, 'x', { ttl: 0 }), ClientError);
  await assert.rejects(c.qcreate(uniq('q'), { expired: 'later' }), InvalidArgumentError);
});
