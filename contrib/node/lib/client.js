// client.js: the Client: the server list, which server a request goes to
// (libmemcached's ketama for a key, the {tag} rule for a structure's name),
// and a Shard per entry (its member servers' connections, shard.js). The commands themselves are in
// lib/commands/, one file per family, added to Client.prototype.
'use strict';

const A = require('./args');
const { parseServers } = require('./servers');
const { buildContinuum, pick } = require('./ketama');
const { Shard } = require('./shard');

const DEFAULTS = {
  timeout: 5000,
  connectTimeout: 2000,
  maxConnections: 4,
  maxPipeline: 32,
  readReplicas: false,
  retryTimeout: 5000,
  reconnectDelay: 2000,
};

function checkCredentials(opts) {
  if (opts.username === undefined && opts.password === undefined) return;
  A.word('username', opts.username, 1024);
  A.word('password', opts.password, 1024);
  if (Buffer.byteLength(`${opts.username} ${opts.password}`) > 1024) A.fail('username and password over 1024 bytes');
}

function checkPositive(opts, name) {
  const v = opts[name];
  if (!Number.isSafeInteger(v) || v < 1) A.fail(`${name} must be a positive integer, not ${v}`);
}

function checkMs(opts, name, most) {
  const v = opts[name];
  if (!Number.isSafeInteger(v) || v < 0 || v > most) A.fail(`${name} must be 0 to ${most} ms, not ${v}`);
}

// readReplicas: a boolean; retryTimeout: ms, 0 (no retry) to an hour;
// reconnectDelay: ms, 0 (no mark) to a day.
function checkRouting(opts) {
  if (typeof opts.readReplicas !== 'boolean') A.fail(`readReplicas must be true or false, not ${opts.readReplicas}`);
  checkMs(opts, 'retryTimeout', 3600000);
  checkMs(opts, 'reconnectDelay', 86400000);
}

// The part of a structure's name that places it: the text between the
// first "{" and the next "}" when not empty (twemproxy's hash_tag, libmcds).
function routeKey(name) {
  const open = name.indexOf(0x7b);
  if (open < 0) return name;
  const close = name.indexOf(0x7d, open + 1);
  return close > open + 1 ? name.subarray(open + 1, close) : name;
}

class Client {
  constructor(servers, options = {}) {
    const opts = { ...DEFAULTS, ...options };
    ['timeout', 'connectTimeout', 'maxConnections', 'maxPipeline'].forEach((n) => checkPositive(opts, n));
    checkCredentials(opts);
    checkRouting(opts);
    this.serverList = parseServers(servers);
    this.continuum = buildContinuum(this.serverList);
    this.shards = this.serverList.map((s) => new Shard(s, opts));
  }

  /** The servers' names ("host:port"; a replica set's first address), in list order. */
  get servers() {
    return this.serverList.map((s) => s.name);
  }

  // Each entry's connections to its current primary.
  get pools() {
    return this.shards.map((s) => s.pool(s.primary));
  }

  /** The current primary ("host:port") of the entry whose first address
   * is server (a name from servers): server itself until a replica set's
   * writes have gone elsewhere. */
  primaryOf(server) {
    const i = this.servers.indexOf(server);
    if (i < 0) A.fail(`no server "${server}" in this client (${this.servers.join(', ')})`);
    return this.shards[i].primary.name;
  }

  /** The server a cache key goes to (libmemcached's choice). */
  serverFor(key) {
    return this.serverList[this.indexFor(A.key(key))].name;
  }

  /** The server a queue, list or tree (by its group) lives on. */
  serverForStructure(name) {
    return this.serverList[this.indexFor(routeKey(A.key(name)))].name;
  }

  indexFor(keyBytes) {
    return pick(this.continuum, this.serverList.length, keyBytes);
  }

  // A cache key (bytes, checked): hashed whole, as libmemcached does.
  sendKey(keyBytes, req) {
    return this.shards[this.indexFor(keyBytes)].send(req);
  }

  // A structure's name or group (bytes, checked): the {tag} rule.
  sendStructure(nameBytes, req) {
    return this.shards[this.indexFor(routeKey(nameBytes))].send(req);
  }

  // opts.server (a name from servers), opts.route (a structure's name or
  // group), or the only server.
  poolFor(opts = {}) {
    if (opts.server !== undefined) {
      const i = this.servers.indexOf(opts.server);
      if (i < 0) A.fail(`no server "${opts.server}" in this client (${this.servers.join(', ')})`);
      return this.shards[i];
    }
    if (opts.route !== undefined) return this.shards[this.indexFor(routeKey(A.key(opts.route, 'route')))];
    if (this.shards.length > 1) A.fail(`give server: or route: (${this.servers.join(', ')})`);
    return this.shards[0];
  }

  // makeReq() for every server; resolves with {name: result}.
  async sendAll(makeReq) {
    const results = await Promise.all(this.shards.map((p) => p.send(makeReq())));
    const out = {};
    this.serverList.forEach((s, i) => { out[s.name] = results[i]; });
    return out;
  }

  /** Closes every connection; calls still waiting fail with ConnectionError. */
  close() {
    for (const p of this.shards) p.close();
  }
}

module.exports = { Client, routeKey };
