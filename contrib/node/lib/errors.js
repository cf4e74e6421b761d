// errors.js: the Error classes a call can reject with.
'use strict';

class McdsError extends Error {
  constructor(message, code) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

// The server answered with an error line; the connection stays usable.
class ReplyError extends McdsError {
  constructor(line, code, server) {
    super(server ? `${line} (from ${server})` : line, code);
    this.reply = line;
    this.server = server;
  }
}

/** CLIENT_ERROR <text>: the server refused the request as malformed or
 * not allowed (a key of another type, a bad option, a count out of range). */
class ClientError extends ReplyError {
  constructor(line, server) { super(line, 'CLIENT_ERROR', server); }
}

/** CLIENT_ERROR authentication failure (and other refusals of the
 * credentials): the connection is closed. */
class AuthenticationError extends ClientError {}

/** SERVER_ERROR <text>: too large, out of memory, log write failed... */
class ServerError extends ReplyError {
  constructor(line, server) { super(line, 'SERVER_ERROR', server); }
}

/** ERROR: the server does not know the command (or a wrong token count). */
class UnknownCommandError extends ReplyError {
  constructor(line, server) { super(line, 'ERROR', server); }
}

/** The connection failed: refused, reset, closed, timed out, or a reply out
 * of step. A request may or may not have reached the server. */
class ConnectionError extends McdsError {
  constructor(message, server, cause) {
    super(server ? `${message} (${server})` : message, 'ECONNECTION');
    this.server = server;
    if (cause) this.cause = cause;
  }
}

/** A bad argument, refused before anything was sent. */
class InvalidArgumentError extends McdsError {
  constructor(message) { super(message, 'EINVALID'); }
}

// The error for a reply line, or null when the line is not an error.
function replyError(line, server) {
  if (line.startsWith('CLIENT_ERROR')) return new ClientError(line, server);
  if (line.startsWith('SERVER_ERROR')) return new ServerError(line, server);
  if (line === 'ERROR' || line.startsWith('ERROR ') || line.startsWith('ERROR:')) {
    return new UnknownCommandError(line, server);
  }
  return null;
}

module.exports = {
  McdsError, ReplyError, ClientError, AuthenticationError, ServerError,
  UnknownCommandError, ConnectionError, InvalidArgumentError, replyError,
};
