// request.js: one request as sent (its bytes) with the parser of its reply,
// and the reply shapes several verbs share (VALUE and STAT listings,
// numbers, one-word answers).
'use strict';

const { fail } = require('./args');

const CRLF = Buffer.from('\r\n');
const LINE_MAX = 2048;      // the server closes a connection on a longer line
const LIST_LINE_MAX = 16384; // for the verbs that take lists (doc/protocol.md)

function tokenBytes(t) {
  return typeof t === 'string' ? Buffer.from(t, 'utf8') : t;
}

// tokens: strings (checked already) and Buffers, the verb first; blocks:
// data blocks.
// opts: lineMax (bytes), wait (seconds a blocking read may wait).
function request(tokens, blocks, parse, opts = {}) {
  const parts = [];
  tokens.forEach((t, i) => {
    if (i) parts.push(Buffer.from(' '));
    parts.push(tokenBytes(t));
  });
  const line = Buffer.concat(parts);
  const max = opts.lineMax || LINE_MAX;
  if (line.length > max) fail(`the command line would be ${line.length} bytes, over the server's ${max}`);
  const all = [line, CRLF];
  for (const b of blocks) all.push(b, CRLF);
  return { bytes: Buffer.concat(all), parse, verb: String(tokens[0]), waitMs: Math.ceil((opts.wait || 0) * 1000), blocking: !!opts.wait };
}

// The reply is one of the words in map (word -> result).
function oneOf(map) {
  return (c) => {
    const l = c.line();
    if (Object.prototype.hasOwnProperty.call(map, l)) return map[l];
    throw c.outOfStep(l);
  };
}

function num(c, s, line) {
  if (!/^-?\d+$/.test(s)) throw c.outOfStep(line);
  return Number(s);
}

function big(c, s, line) {
  if (!/^-?\d+$/.test(s)) throw c.outOfStep(line);
  return BigInt(s);
}

// A decimal line, or the result in map for a word (NOT_FOUND...).
function numberOr(map, asBig = false) {
  return (c) => {
    const l = c.line();
    if (Object.prototype.hasOwnProperty.call(map, l)) return map[l];
    return asBig ? big(c, l, l) : num(c, l, l);
  };
}

// VALUE <key> <flags> <bytes>[ <cas>] + data, until END.
function valueItems(c) {
  const out = [];
  for (;;) {
    const l = c.line();
    if (l === 'END') return out;
    const p = l.split(' ');
    if (p[0] !== 'VALUE' || p.length < 4 || p.length > 5) throw c.outOfStep(l);
    const item = { key: p[1], flags: num(c, p[2], l), value: c.block(num(c, p[3], l)) };
    if (p.length === 5) item.cas = big(c, p[4], l);
    out.push(item);
  }
}

// STAT <name> <value...> until END, as an object of strings.
function statLines(c) {
  const out = {};
  for (;;) {
    const l = c.line();
    if (l === 'END') return out;
    const m = /^STAT (\S+) ?(.*)$/.exec(l);
    if (!m) throw c.outOfStep(l);
    out[m[1]] = m[2];
  }
}

// Lines "<WORD> ..." until END, each through row(parts, line); a MORE line
// before END gives the continuation.
function listing(word, row) {
  return (c) => {
    const items = [];
    let more = null;
    for (;;) {
      const l = c.line();
      if (l === 'END') return { items, more };
      const sp = l.indexOf(' ');
      const head = sp < 0 ? l : l.slice(0, sp);
      const rest = sp < 0 ? '' : l.slice(sp + 1);
      if (head === 'MORE') more = rest;
      else if (head === word) items.push(row(rest.split(' '), l, c));
      else throw c.outOfStep(l);
    }
  };
}

module.exports = {
  request, oneOf, num, big, numberOr, valueItems, statLines, listing,
  LINE_MAX, LIST_LINE_MAX,
};
