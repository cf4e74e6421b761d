// ketama.js: the continuum libmemcached builds with MEMCACHED_BEHAVIOR_KETAMA
// set (as libmcds sets it), and the server it picks for a key.
//
// What libmemcached does (hosts.cc update_continuum, hash.cc dispatch_host):
// - a server's label is "host-N" when its port is 11211, else
//   "host:port-N" (N from 0);
// - without any weight above 1: 100 points per server, each the key hash
//   (one-at-a-time) of its label;
// - with a weight above 1 anywhere in the list the continuum is weighted:
//   floor(weight/total * 160/4 * servers + 1e-10) * 4 points per server
//   (computed in single precision), 4 per MD5 digest of the label, each
//   a little-endian 32-bit word of it;
// - points sorted by value, then server index; a key goes to the first
//   point at or above its one-at-a-time hash, wrapping to the first; a
//   single server takes every key.
'use strict';

const crypto = require('crypto');

const POINTS = 100;
const POINTS_WEIGHTED = 160;
const DEFAULT_PORT = 11211;

// libhashkit's one-at-a-time, which reads each byte as a signed char.
function oneAtATime(bytes) {
  let h = 0;
  for (const b of bytes) {
    h = (h + (b >= 0x80 ? b - 0x100 : b)) >>> 0;
    h = (h + (h << 10)) >>> 0;
    h = (h ^ (h >>> 6)) >>> 0;
  }
  h = (h + (h << 3)) >>> 0;
  h = (h ^ (h >>> 11)) >>> 0;
  return (h + (h << 15)) >>> 0;
}

function label(server, n) {
  const port = server.port === DEFAULT_PORT ? '' : ':' + server.port;
  return Buffer.from(`${server.host}${port}-${n}`, 'utf8');
}

// Points of a weighted continuum, in single precision as libmemcached.
function weightedPoints(weight, total, live) {
  const f = Math.fround;
  const pct = f(f(weight) / f(total));
  const x = f(f(f(f(pct * POINTS_WEIGHTED) / 4) * f(live)) + 1e-10);
  return Math.floor(x) * 4;
}

function addPoints(points, server, index, weighted, total, live) {
  if (!weighted) {
    for (let n = 0; n < POINTS; n++) points.push([oneAtATime(label(server, n)), index]);
    return;
  }
  const count = weightedPoints(server.weight, total, live) / 4;
  for (let n = 0; n < count; n++) {
    const d = crypto.createHash('md5').update(label(server, n)).digest();
    for (let w = 0; w < 4; w++) points.push([d.readUInt32LE(w * 4), index]);
  }
}

// servers: [{host, port, weight}] in list order (weight 1 when not given).
function buildContinuum(servers) {
  const weighted = servers.some((s) => s.weight > 1);
  const total = servers.reduce((t, s) => t + s.weight, 0);
  const points = [];
  servers.forEach((s, i) => addPoints(points, s, i, weighted, total, servers.length));
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { values: Uint32Array.from(points, (p) => p[0]), index: points.map((p) => p[1]) };
}

// The index of the server for key (a Buffer) on a continuum.
function pick(continuum, count, key) {
  if (count === 1) return 0;
  const h = oneAtATime(key);
  const v = continuum.values;
  let lo = 0;
  let hi = v.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (v[mid] < h) lo = mid + 1;
    else hi = mid;
  }
  return continuum.index[hi === v.length ? 0 : hi];
}

module.exports = { oneAtATime, buildContinuum, pick };
