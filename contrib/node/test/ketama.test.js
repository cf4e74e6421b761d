// ketama.test.js: the pool sends every key to the server libmemcached
// (hence libmcds) picks: a C program built here asks libmemcached for
// 2,000 keys on the same server lists, weighted and not.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { Client, InvalidArgumentError } = require('..');

const KEYS = 2000;

function build() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcds-ketama-'));
  const exe = path.join(dir, 'ketama_check');
  let flags;
  try {
    flags = execFileSync('pkg-config', ['--cflags', '--libs', 'libmemcached']).toString().trim().split(/\s+/);
  } catch (e) {
    return { skip: 'pkg-config --libs libmemcached fails (apt-get install libmemcached-dev pkg-config)' };
  }
  try {
    execFileSync('cc', ['-o', exe, path.join(__dirname, 'ketama_check.c'), ...flags], { stdio: 'pipe' });
  } catch (e) {
    return { skip: `cc cannot build the libmemcached check: ${String(e.stderr || e.message).slice(0, 300)}` };
  }
  return { exe };
}

const built = build();

function libmemcachedChoices(specs) {
  const out = execFileSync(built.exe, [String(KEYS), ...specs]).toString().trim().split('\n');
  return out.map((l) => {
    const sp = l.lastIndexOf(' ');
    return { key: Buffer.from(l.slice(0, sp), 'utf8'), server: l.slice(sp + 1) };
  });
}

function compare(specs) {
  const c = new Client(specs);
  const want = libmemcachedChoices(specs);
  assert.strictEqual(want.length, KEYS);
  const wrong = want.filter((w) => c.serverFor(w.key) !== w.server);
  c.close();
  assert.deepStrictEqual(wrong.slice(0, 5).map((w) => w.key.toString()), [], `${wrong.length} of ${KEYS} keys differ`);
  return new Set(want.map((w) => w.server)).size;
}

test('weighted ketama (a weight above 1, ports 11211 and others) agrees with libmemcached', { skip: built.skip }, () => {
  const used = compare(['127.0.0.1:11211', '127.0.0.1:22122:3', '10.0.0.7:4000', 'cache.example:11311:2']);
  assert.strictEqual(used, 4);
});

test('unweighted ketama (no weight above 1) agrees with libmemcached', { skip: built.skip }, () => {
  assert.strictEqual(compare(['127.0.0.1:11211', '127.0.0.1:22122', '10.0.0.7:4000:1']), 3);
});

test('one server takes every key', { skip: built.skip }, () => {
  assert.strictEqual(compare(['127.0.0.1:22122:5']), 1);
});

test('a structure with a {tag} goes where the tag alone goes (libmcds, twemproxy)', () => {
  const c = new Client(['a:1', 'b:2', 'c:3', 'd:4']);
  for (let i = 0; i < 200; i++) {
    assert.strictEqual(c.serverForStructure(`{jobs${i}}:dead`), c.serverFor(`jobs${i}`));
    assert.strictEqual(c.serverForStructure(`x{jobs${i}}`), c.serverFor(`jobs${i}`));
  }
  assert.strictEqual(c.serverForStructure('{}jobs'), c.serverFor('{}jobs'));
  assert.strictEqual(c.serverForStructure('plain'), c.serverFor('plain'));
  c.close();
});

test('bad server lists are refused whole', () => {
  for (const bad of ['', 'a', 'a:', 'a:0', 'a:65536', 'a:1:0', 'a:1:x', 'a:1,,b:2', 'a b:1', '[::1]', 'a:1:2:3']) {
    assert.throws(() => new Client(bad), InvalidArgumentError, bad);
  }
  const c = new Client(' a:1 , [::1]:2:3 , /tmp/s.sock ');
  assert.deepStrictEqual(c.servers, ['a:1', '[::1]:2', '/tmp/s.sock']);
  c.close();
});
