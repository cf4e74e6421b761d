// servers.js: the server list, as libmcds reads it: "host:port",
// "host:port:weight", "[IPv6]:port[:weight]" or "/path" (a UNIX socket),
// as an array or separated by commas; an entry may name a replica set, its
// service address then each replica after "=" ("10.0.0.9:11211=10.0.0.2:11211":
// a weight only on the first, at most 8 members). A bad entry refuses the
// whole list.
'use strict';

const { fail } = require('./args');

function number(entry, s, max, what) {
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > max) fail(`bad ${what} in server "${entry}"`);
  return Number(s);
}

function hostOk(entry, host) {
  if (!host || /[\s\x00-\x20\x7f[\]]/.test(host)) fail(`bad host in server "${entry}"`);
  return host;
}

const MAX_MEMBERS = 8;

function parseAddress(entry, weighted) {
  if (entry.startsWith('/')) return named({ host: hostOk(entry, entry), port: 0, path: entry, weight: 1 });
  let host;
  let rest;
  if (entry.startsWith('[')) {
    const end = entry.indexOf(']:');
    if (end < 0) fail(`bad server "${entry}"`);
    host = hostOk(entry, entry.slice(1, end));
    rest = entry.slice(end + 2);
  } else {
    const colon = entry.indexOf(':');
    if (colon < 0) fail(`server "${entry}" has no port`);
    host = hostOk(entry, entry.slice(0, colon));
    rest = entry.slice(colon + 1);
  }
  const [port, weight, extra] = rest.split(':');
  if (extra !== undefined) fail(`bad server "${entry}"`);
  if (!weighted && weight !== undefined) fail(`a replica takes no weight: "${entry}"`);
  return named({
    host,
    port: number(entry, port, 65535, 'port'),
    weight: weight === undefined ? 1 : number(entry, weight, 4294967295, 'weight'),
  });
}

// s with its name: "host:port", "[IPv6]:port" or the socket's path.
function named(s) {
  s.name = s.path || (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);
  return s;
}

// One entry: the server that places its keys, with .members (itself
// first, then its replicas).
function parseEntry(entry) {
  const parts = entry.split('=');
  if (parts.length > MAX_MEMBERS) fail(`more than ${MAX_MEMBERS} members in server "${entry}"`);
  const members = parts.map((p, i) => parseAddress(p, i === 0));
  const s = members[0];
  s.members = members;
  return s;
}

// servers: "a:1,b:2:3" or ["a:1", "b:2:3"]. Each gets a name "host:port".
function parseServers(servers) {
  const list = typeof servers === 'string' ? servers.split(',') : servers;
  if (!Array.isArray(list) || list.length === 0) fail('give at least one server');
  return list.map((e) => {
    if (typeof e !== 'string') fail('a server is a string "host:port[:weight]"');
    return parseEntry(e.trim());
  });
}

module.exports = { parseServers, named };
