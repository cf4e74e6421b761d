// args.js: checks every argument before a request is built, and writes it
// as a protocol token. Nothing that could end a line or split a token
// reaches the server: keys and words are checked byte by byte, numbers are
// written from checked integers, values go as data blocks with their length.
'use strict';

const { InvalidArgumentError } = require('./errors');

const KEY_MAX = 250;

function fail(message) {
  throw new InvalidArgumentError(message);
}

function bytesOf(what, v) {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return fail(`${what} must be a string or a Buffer, not ${v === null ? 'null' : typeof v}`);
}

// A token of the protocol: 1..max bytes, no space, no control byte.
function word(what, v, max = KEY_MAX) {
  const b = bytesOf(what, v);
  if (b.length === 0) fail(`${what} is empty`);
  if (b.length > max) fail(`${what} is ${b.length} bytes, over ${max}`);
  for (const c of b) {
    if (c <= 0x20 || c === 0x7f) fail(`${what} holds a space or a control character: ${JSON.stringify(String(v))}`);
  }
  return b;
}

const key = (v, what = 'key') => word(what, v, KEY_MAX);

function value(v, what = 'value') {
  return bytesOf(what, v);
}

// An integer in [min, max] (number or bigint), written in decimal.
function int(what, v, min, max) {
  let b;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
  else return fail(`${what} must be an integer, not ${typeof v === 'number' ? v : typeof v}`);
  if (b < BigInt(min) || b > BigInt(max)) fail(`${what} must be ${min}..${max}, not ${b}`);
  return b.toString();
}

const U32 = 4294967295n;
const I32 = [-2147483648n, 2147483647n];
const I64 = [-(2n ** 63n), 2n ** 63n - 1n];
const U64 = 2n ** 64n - 1n;

const u32 = (what, v) => int(what, v, 0, U32);
const u64 = (what, v) => int(what, v, 0, U64);
const i32 = (what, v) => int(what, v, I32[0], I32[1]);
const i64 = (what, v) => int(what, v, I64[0], I64[1]);

// Seconds with an optional fraction (lease, wait, maxage), as "1.5".
function seconds(what, v) {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e11) {
    fail(`${what} must be a number of seconds, not ${v}`);
  }
  return v.toFixed(3).replace(/\.?0+$/, '') || '0';
}

// A receipt "<id>:<deliveries>", a bare id, or a message from qpop.
function receipt(v) {
  if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v) && 'receipt' in v) v = v.receipt;
  if (typeof v === 'string' && /^\d{1,20}(:\d{1,10})?$/.test(v)) return v;
  if (typeof v === 'bigint' || typeof v === 'number') return u64('id', v);
  return fail(`a receipt must be "<id>:<deliveries>", an id or a message, not ${JSON.stringify(v)}`);
}

function optionalInt(what, v, min, max) {
  return v === undefined || v === null ? null : int(what, v, min, max);
}

module.exports = {
  KEY_MAX, fail, word, key, value, int, u32, u64, i32, i64, seconds, receipt,
  optionalInt, U32, U64,
};
