// index.js: the package's entry: the Client with every command family, and
// the Error classes.
'use strict';

const { Client } = require('./lib/client');
const errors = require('./lib/errors');

for (const family of ['classic', 'queue', 'list', 'ctree', 'kscan']) {
  for (const [name, fn] of Object.entries(require(`./lib/commands/${family}`))) {
    Object.defineProperty(Client.prototype, name, { value: fn, writable: true, configurable: true });
  }
}

/** A Client for servers ("host:port[:weight]", an array or comma-separated). */
function createClient(servers, options) {
  return new Client(servers, options);
}

module.exports = {
  Client,
  createClient,
  McdsError: errors.McdsError,
  ReplyError: errors.ReplyError,
  ClientError: errors.ClientError,
  AuthenticationError: errors.AuthenticationError,
  ServerError: errors.ServerError,
  UnknownCommandError: errors.UnknownCommandError,
  ConnectionError: errors.ConnectionError,
  InvalidArgumentError: errors.InvalidArgumentError,
};
