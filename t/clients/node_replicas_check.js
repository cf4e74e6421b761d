// node_replicas_check.js: the Node package over a replica set, live
// (t/unit/client_replicas.tcl).
//
//     node node_replicas_check.js SRCDIR PRIMARY_PORT REPLICA_PORT
//
// Against a primary (--data-dir --persist-items) and its replica on
// 127.0.0.1, in steps: at each "step <name>" line it waits for a line on
// stdin while the test does what <name> says (kill-replica,
// restart-replica, promote: kill the primary and "replicaof no one" the
// replica, old-primary-back: the old primary started again as a replica
// of the promoted one). The same checks as mcds_replicas_check.py's live
// mode. Prints "ok - <what>" per check and "all checks passed"; exits 1 at
// the first mismatch.
'use strict';

const path = require('path');
const readline = require('readline');
const { isDeepStrictEqual } = require('util');

const [srcdir, pport, rport] = process.argv.slice(2);
const { Client } = require(path.join(srcdir, 'contrib', 'node'));

const P = `127.0.0.1:${pport}`;
const R = `127.0.0.1:${rport}`;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function check(what, got, want) {
  if (!isDeepStrictEqual(got, want)) {
    console.log(`FAIL ${what}: got ${JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}, want ${JSON.stringify(want)}`);
    process.exit(1);
  }
  console.log(`ok - ${what}`);
}

async function step(name) {
  console.log(`step ${name}`);
  const { value } = await lines.next();
  if (value !== 'go') {
    console.log(`FAIL step ${name}: no go`);
    process.exit(1);
  }
}

const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
const str = (b) => (b === null ? null : b.toString());

async function waitFor(what, probe, want, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (isDeepStrictEqual(got, want) || Date.now() > deadline) return check(what, got, want);
    await sleep(50);
  }
}

const gets = async (c) => Number(Object.values(await c.stats())[0].cmd_get);

async function main() {
  let p = new Client(P);
  let r = new Client(R);
  const pool = new Client(`${P}=${R}`, { readReplicas: true });
  check('a write through P=R lands on P', [await pool.set('rk', 'v1'), str(await p.get('rk'))], [true, 'v1']);
  check('... a queue push too', [typeof await pool.qpush('rq', 'm'), (await p.qstats('rq')).ready], ['bigint', 1]);
  await waitFor('... and reaches R', async () => [str(await r.get('rk')), ((await r.qstats('rq')) || {}).ready], ['v1', 1]);
  let before = [await gets(p), await gets(r)];
  let got = [];
  for (let i = 0; i < 10; i++) got.push(str(await pool.get('rk')));
  check('readReplicas: 10 gets answered by R (its cmd_get +10, P\'s +0)',
    [got, await gets(p) - before[0], await gets(r) - before[1]], [Array(10).fill('v1'), 0, 10]);
  check('... structure reads from R', [(await pool.qstats('rq')).ready, str((await pool.qpeek('rq'))[0].data)], [1, 'm']);
  check('... a write still goes to P', [await pool.set('rk', 'v2'), str(await p.get('rk'))], [true, 'v2']);
  await step('kill-replica');
  before = await gets(p);
  got = [];
  for (let i = 0; i < 5; i++) got.push(str(await pool.get('rk')));
  check('R stopped: reads fall back to P (its cmd_get +5)', [got, await gets(p) - before], [Array(5).fill('v2'), 5]);
  await step('restart-replica');
  r.close();
  r = new Client(R);
  while (pool.shards[0].isDown(R)) await sleep(50);    // reconnectDelay (2000 ms)
  before = [await gets(p), await gets(r)];
  got = [];
  for (let i = 0; i < 3; i++) got.push(str(await pool.get('rk')));
  check('R back: reads go to it again once reconnectDelay is over', [got, await gets(p) - before[0], await gets(r) - before[1]],
    [Array(3).fill('v2'), 0, 3]);
  await step('promote');
  check('P killed, R promoted: a write through the same handle succeeds, on R',
    [await pool.set('after', 'promoted'), str(await r.get('after')), pool.primaryOf(P)], [true, 'promoted', R]);
  check('... reads: P (the only replica left) cannot be connected to, R answers',
    [str(await pool.get('after')), typeof await pool.qpush('rq', 'n')], ['promoted', 'bigint']);
  await step('old-primary-back');
  p.close();
  p = new Client(P);
  const fresh = new Client(`${P}=${R}`);
  check('P back as R\'s replica: a handle that believes P is primary is redirected to R',
    [await fresh.set('redirected', '1'), str(await r.get('redirected')), fresh.primaryOf(P)], [true, '1', R]);
  check('... P is R\'s replica', Object.values(await p.stats())[0].repl_role, 'replica');
  await waitFor('... and it reaches P, R\'s replica', async () => str(await p.get('redirected')), '1');
  check('the first handle writes on R', [await pool.set('again', '2'), str(await r.get('again'))], [true, '2']);
  while (pool.shards[0].isDown(P)) await sleep(50);    // refused by the read after the promotion
  before = await gets(p);
  check('... and reads from P, now its replica', [str(await pool.get('redirected')), await gets(p) - before], ['1', 1]);
  check('the queue holds both pushes, each once', (await r.qstats('rq')).ready, 2);
  for (const c of [pool, fresh, p, r]) c.close();
  console.log('all checks passed');
  process.exit(0);
}

main().catch((err) => {
  console.log(`FAIL ${err.stack}`);
  process.exit(1);
});
