// helpers.js: what the tests share: the server under test (MCDS_ADDR,
// "host:port"), a client on it, names no other test uses, and a fake
// server that records what it receives and answers what a test says.
'use strict';

const net = require('net');
const crypto = require('crypto');
const { Client } = require('..');

const ADDR = process.env.MCDS_ADDR;
const NO_SERVER = ADDR ? false : 'MCDS_ADDR is not set (host:port of a running mcds-server)';

function client(options) {
  return new Client(ADDR, { timeout: 10000, ...options });
}

// A name no other run or test uses: prefix:<random>.
function uniq(prefix) {
  return `${prefix}:${crypto.randomBytes(6).toString('hex')}`;
}

// A server on a free port: received bytes go to .received; onData(sock,
// all bytes so far) may answer. Resolves {port, received, close}.
function fakeServer(onData = () => {}) {
  return new Promise((resolve) => {
    const state = { received: Buffer.alloc(0), sockets: new Set() };
    const srv = net.createServer((sock) => {
      state.sockets.add(sock);
      sock.on('data', (d) => {
        state.received = Buffer.concat([state.received, d]);
        onData(sock, state.received);
      });
      sock.on('error', () => {});
    });
    srv.listen(0, '127.0.0.1', () => {
      state.port = srv.address().port;
      state.close = () => {
        for (const s of state.sockets) s.destroy();
        return new Promise((r) => srv.close(r));
      };
      resolve(state);
    });
  });
}

module.exports = { ADDR, NO_SERVER, client, uniq, fakeServer };
