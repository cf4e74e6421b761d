// node_replicas_down.js: a silent replica left alone by the Node
// package's reads (t/unit/client_replicas.tcl).
//
//     node node_replicas_down.js SRCDIR BLACKHOLE_PORT
//
// BLACKHOLE_PORT is a silent address on 127.0.0.1 (mcds_replicas_check.py
// blackhole: a connect to it waits for its timeout, as to a machine that
// is down and drops packets). With a fake primary and that replica, reads
// on: the first read waits for the connect timeout and the primary
// answers; at "step free-port" the test frees the port, and a fake
// replica listens on it (up again at once); the reads within
// reconnectDelay do not connect to it, the first one after does, and it
// answers. Prints "ok - <what>" per check and "all checks passed"; exits
// 1 at the first mismatch.
'use strict';

const net = require('net');
const path = require('path');
const readline = require('readline');
const { isDeepStrictEqual } = require('util');

const [srcdir, holePort] = process.argv.slice(2);
const { Client } = require(path.join(srcdir, 'contrib', 'node'));

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

function check(what, got, want) {
  if (!isDeepStrictEqual(got, want)) {
    console.log(`FAIL ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
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

// A fake on port (0: any) answering each request line with the value v
// of key k; counts its connections and requests.
function fake(v, port = 0) {
  const f = { connections: 0, requests: 0 };
  const srv = net.createServer((sock) => {
    f.connections++;
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        buf = buf.slice(i + 2);
        f.requests++;
        sock.write(`VALUE k 0 ${v.length}\r\n${v}\r\nEND\r\n`);
      }
    });
    sock.on('error', () => {});
  });
  f.close = () => { srv.close(); };
  return new Promise((resolve) => {
    srv.listen(port, '127.0.0.1', () => {
      f.port = srv.address().port;
      f.addr = `127.0.0.1:${f.port}`;
      resolve(f);
    });
  });
}

async function main() {
  const primary = await fake('x');
  const c = new Client(`${primary.addr}=127.0.0.1:${holePort}`,
    { readReplicas: true, reconnectDelay: 2000, connectTimeout: 300 });
  check('a silent replica: the first read waits for its connect timeout, the primary answers',
    [(await c.get('k')).toString(), primary.requests], ['x', 1]);
  await step('free-port');
  const replica = await fake('y', Number(holePort));
  const got = [];
  for (let i = 0; i < 3; i++) got.push((await c.get('k')).toString());
  check('... the reads within reconnectDelay leave it alone (up again, it sees no connection)',
    [got, primary.requests, replica.connections], [['x', 'x', 'x'], 4, 0]);
  await sleep(2500);
  const after = [(await c.get('k')).toString(), (await c.get('k')).toString()];
  check('... the first read after reconnectDelay tries it again, and it answers the reads',
    [after, replica.requests, primary.requests], [['y', 'y'], 2, 4]);
  c.close();
  primary.close();
  replica.close();
  console.log('all checks passed');
  process.exit(0);
}

main().catch((err) => {
  console.log(`FAIL ${err.stack}`);
  process.exit(1);
});
