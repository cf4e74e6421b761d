// api.test.js: index.d.ts declares exactly the Client's methods, and tsc
// (when installed) type-checks it with code a user would write.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const mcds = require('..');

const root = path.join(__dirname, '..');
const dts = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8');

function findTsc() {
  for (const dir of (process.env.PATH || '').split(':')) {
    if (dir && fs.existsSync(path.join(dir, 'tsc'))) return path.join(dir, 'tsc');
  }
  return null;
}

test('every Client method is declared in index.d.ts, and nothing more', () => {
  const body = dts.slice(dts.indexOf('export class Client {'), dts.indexOf('export function createClient'));
  const declared = new Set([...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]).filter((n) => n !== 'constructor'));
  const internal = new Set(['constructor', 'indexFor', 'sendKey', 'sendStructure', 'poolFor', 'sendAll']);
  const actual = new Set(Object.getOwnPropertyNames(mcds.Client.prototype)
    .filter((n) => !internal.has(n) && typeof Object.getOwnPropertyDescriptor(mcds.Client.prototype, n).value === 'function'));
  assert.deepStrictEqual([...actual].filter((n) => !declared.has(n)), [], 'methods not declared');
  assert.deepStrictEqual([...declared].filter((n) => !actual.has(n)), [], 'declared but missing');
});

test('every exported name is declared', () => {
  for (const name of Object.keys(mcds)) assert.match(dts, new RegExp(`export (class|function) ${name}\\b`), name);
});

const tsc = findTsc();
test('tsc --strict accepts index.d.ts and a user\'s code', { skip: tsc ? false : 'tsc is not installed (apt-get install node-typescript): index.d.ts not type-checked' }, () => {
  const args = ['--noEmit', '--strict', '--lib', 'es2020', '--target', 'es2020', '--moduleResolution', 'node',
    path.join(__dirname, 'types', 'node-shim.d.ts'), path.join(__dirname, 'types', 'usage.ts')];
  try {
    execFileSync(tsc, args, { stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout}${e.stderr}`);
  }
});
