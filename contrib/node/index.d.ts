// index.d.ts: TypeScript declarations of the mcds package (hand-written;
// the package itself is plain JavaScript).
//
// Results: a call that does something resolves true, or false when the
// server declined (NOT_STORED, EXISTS, NOT_FOUND of a delete...); a call
// that reads resolves null for NOT_FOUND (no such key, queue, list or
// object). Error lines reject: ClientError (CLIENT_ERROR), ServerError
// (SERVER_ERROR), UnknownCommandError (ERROR); a failed connection rejects
// with ConnectionError; a bad argument with InvalidArgumentError before
// anything is sent. With replica sets, a call that surely was not applied
// (no connection, refused by a replica) is tried again (retryTimeout); one
// that may have been is rejected as always.
//
// Buffer and tls.ConnectionOptions come from @types/node.

export type Key = string | Buffer;
export type Value = string | Buffer | Uint8Array;
export type Int = number | bigint;

export interface ClientOptions {
  /** ms to wait for a reply (a blocking pop adds its wait). Default 5000. */
  timeout?: number;
  /** ms to wait for a connection. Default 2000. */
  connectTimeout?: number;
  /** Connections per server at most. Default 4. */
  maxConnections?: number;
  /** Replies owed on one connection before requests wait. Default 32. */
  maxPipeline?: number;
  /** Credentials of a server started with -Y: every connection authenticates first. */
  username?: string;
  password?: string;
  /** TLS (mcds-server -Z): true, or node's tls.connect options. */
  tls?: boolean | import('tls').ConnectionOptions;
  /** Replica sets ("primary:port=replica:port"): send reads (get, qpeek,
   *  qstats, llen, lrange, ctget, ...) to the replicas in turn, the primary
   *  when none answers. A replica may not have the caller's last write yet.
   *  Default false: every call goes to the primary. */
  readReplicas?: boolean;
  /** Replica sets: ms during which a call that surely was not applied (no
   *  connection, refused by a replica) is tried again on the other members
   *  or on the primary a refusal names. 0: never. Default 5000. */
  retryTimeout?: number;
  /** Replica sets: ms during which reads leave alone a member that could
   *  not be connected to or refused as stale; one read tries it after
   *  that, and another failure doubles the wait (up to 30000, or this when
   *  longer). Writes ignore it. 0: every read tries every replica. Default
   *  2000. */
  reconnectDelay?: number;
}

export interface Item { value: Buffer; flags: number; cas?: bigint; }
export interface StoreOptions { flags?: number; exptime?: number; }

export interface Message {
  id: bigint;
  flags: number;
  deliveries: number;
  /** "<id>:<deliveries>": names this delivery; ack with it. */
  receipt: string;
  data: Buffer;
  /** qpopAny only: the queue the message came from. */
  queue?: string;
}
export type Receipt = string | Int | Message;

/** dedup: the window (seconds) in which a push's dedup id is remembered; expired: where a message past its ttl or maxage goes (default 'dead'). */
export interface QueueCreateOptions { lease?: number; maxdeliver?: number; maxlen?: Int; dlq?: Key; maxage?: number; dedup?: number; expired?: 'dead' | 'drop'; }
/** dedup: a deduplication id: a second push with it in the window answers the first's id(s) and adds nothing.
 *  group: a FIFO group: its messages are delivered one at a time, in push order (no delay then).
 *  ttl: each message's time to live (seconds). */
export interface PushOptions { flags?: number; delay?: number; priority?: number; dedup?: string; group?: string; ttl?: number; }
export interface PopOptions { count?: number; lease?: number; wait?: number; }
export interface Pending {
  id: bigint; flags: number; bytes: number; deliveries: number;
  /** -1: held by a Kestrel open read. */
  leaseMsLeft: number;
  receipt: string;
  holder?: string;
  data?: Buffer;
}
export interface QueueEntry { name: string; ready: number; delayed: number; inFlight: number; buried: number; waiters: number; }
/** Where a per-server call goes: a server of the client, or the server of a structure's name. */
export interface ServerChoice { server?: string; route?: Key; }

export interface CtType { type: number; keep?: number; manual?: boolean; }
export interface CtLimit { counter: number; type: number; max: Int | null; }
export interface CtValue { key: string; counter: number; type: number; period: string; value: bigint; fraction: bigint; }
export interface CtCounter { id: number; types: Required<CtType>[]; aggregate: number; quantize: number; objects: number; }
export interface CtInfo { key: string; parent: string | null; quantize: bigint; children: number; changed: number; limits: CtLimit[]; }
export type CtIncrResult =
  | { applied: true; values: CtValue[] }
  | { applied: false; exceeded: { key: string; type: number; period: string } };
/** One increment of ctincrn: [key, counter, type, time, delta]. */
export type CtIncrement = [Key, number, number, string, Int];
/** ctincrn's result: index/missing name the increment (from 0) that stopped the request. */
export type CtIncrManyResult =
  | { applied: true; values: CtValue[] }
  | { applied: false; index: number; exceeded: { key: string; type: number; period: string } }
  | { applied: false; missing: number };
/** The server of an object's tree: every object of one tree needs the same group. */
export interface GroupOption { group?: Key; }
export interface CtFilters {
  counters?: string | number[]; type?: number; periods?: string | string[];
  scan?: number; count?: number; after?: string;
}

export interface ScanKey { key: string; type: string; ttl: number; }
export interface ScanFilters { match?: string; type?: string; minttl?: number; maxttl?: number; }

export class Client {
  /** servers: "host:port[:weight]", "[IPv6]:port", "/socket", or a replica
   *  set "host:port[:weight]=replica:port[=replica:port...]" (keys placed by
   *  its first address), as an array or comma-separated. */
  constructor(servers: string | string[], options?: ClientOptions);
  /** Each entry's first address ("host:port"), in list order. */
  readonly servers: string[];
  /** The current primary of the entry named server: server itself until a
   *  replica set's writes have gone elsewhere (a promotion). */
  primaryOf(server: string): string;
  serverFor(key: Key): string;
  serverForStructure(name: Key): string;
  close(): void;

  // memcached's commands
  set(key: Key, value: Value, opts?: StoreOptions): Promise<boolean>;
  add(key: Key, value: Value, opts?: StoreOptions): Promise<boolean>;
  replace(key: Key, value: Value, opts?: StoreOptions): Promise<boolean>;
  append(key: Key, value: Value, opts?: StoreOptions): Promise<boolean>;
  prepend(key: Key, value: Value, opts?: StoreOptions): Promise<boolean>;
  /** true: stored; false: EXISTS (changed since read); null: NOT_FOUND. */
  cas(key: Key, value: Value, cas: Int, opts?: StoreOptions): Promise<boolean | null>;
  get(key: Key): Promise<Buffer | null>;
  gets(key: Key): Promise<Item | null>;
  getMulti(keys: Key[]): Promise<Map<string, Item>>;
  gat(key: Key, exptime: number): Promise<Item | null>;
  touch(key: Key, exptime: number): Promise<boolean>;
  delete(key: Key): Promise<boolean>;
  incr(key: Key, delta?: Int): Promise<bigint | null>;
  decr(key: Key, delta?: Int): Promise<bigint | null>;
  flushAll(delay?: number): Promise<true>;
  version(): Promise<Record<string, string>>;
  stats(group?: string): Promise<Record<string, Record<string, string>>>;

  // queues
  qcreate(queue: Key, opts?: QueueCreateOptions): Promise<boolean>;
  /** The message's id; false when the queue is at its maxlen. */
  qpush(queue: Key, data: Value, opts?: PushOptions): Promise<bigint | false>;
  /** 1 to 100 messages, all or none: their ids, or false at maxlen. */
  qpushMany(queue: Key, data: Value[], opts?: PushOptions): Promise<bigint[] | false>;
  /** Pauses deliveries for secs seconds (0 resumes); null when there is no queue. */
  qpause(queue: Key, secs: number): Promise<true | null>;
  qpop(queue: Key, opts?: PopOptions): Promise<Message[]>;
  qpopAck(queue: Key, ack: Receipt, opts?: PopOptions): Promise<{ acked: boolean; messages: Message[] }>;
  qpopAny(queues: Key[], opts?: PopOptions): Promise<Message[]>;
  qack(queue: Key, receipt: Receipt): Promise<boolean>;
  qrelease(queue: Key, receipt: Receipt, opts?: { delay?: number }): Promise<boolean>;
  qtouch(queue: Key, receipt: Receipt, opts?: { lease?: number }): Promise<boolean>;
  qackMany(queue: Key, receipts: Receipt[]): Promise<boolean[]>;
  qreleaseMany(queue: Key, receipts: Receipt[], opts?: { delay?: number }): Promise<boolean[]>;
  qtouchMany(queue: Key, receipts: Receipt[], opts?: { lease?: number }): Promise<boolean[]>;
  qpeek(queue: Key, count?: number): Promise<Message[]>;
  qpeekId(queue: Key, id: Int): Promise<Message | null>;
  qpeekDelayed(queue: Key, count?: number): Promise<Message[]>;
  qpending(queue: Key, opts?: { count?: number; values?: boolean; holders?: boolean }): Promise<Pending[]>;
  qstats(queue: Key): Promise<Record<string, number | string> | null>;
  qinfo(queue: Key, id: Int): Promise<Record<string, number | string | bigint> | null>;
  qpurge(queue: Key): Promise<number | null>;
  qredrive(dlq: Key, count?: number): Promise<{ moved: number; left: number } | null>;
  qkick(queue: Key, count?: number): Promise<number | null>;
  qlist(opts?: ServerChoice & { count?: number; after?: Key }): Promise<{ queues: QueueEntry[]; more: string | null }>;
  qdelete(queue: Key): Promise<boolean>;

  // lists
  lcreate(list: Key, opts?: { maxlen?: Int }): Promise<boolean>;
  /** The new length; false when maxlen would be passed (nothing pushed). */
  lpush(list: Key, values: Value | Value[]): Promise<number | false>;
  rpush(list: Key, values: Value | Value[]): Promise<number | false>;
  /** As lpush/rpush, only to a list that exists: null (nothing created) when there is none. */
  lpushx(list: Key, values: Value | Value[]): Promise<number | false | null>;
  rpushx(list: Key, values: Value | Value[]): Promise<number | false | null>;
  /** One element from src's end to dst's end in one step: the element, null when src is empty, false when dst is full. */
  lmove(src: Key, dst: Key, srcEnd?: 'left' | 'right', dstEnd?: 'left' | 'right', opts?: { wait?: number }): Promise<Buffer | null | false>;
  /** Pops from the first of lists that has elements. */
  lmpop(lists: Key[], side?: 'left' | 'right', opts?: { count?: number; wait?: number }): Promise<{ key: string; values: Buffer[] } | null>;
  /** Positions of elements equal to value; null when there is no list. */
  lpos(list: Key, value: Value, opts?: { rank?: number; count?: number; maxlen?: Int }): Promise<number[] | null>;
  lpop(list: Key, opts?: { count?: number; wait?: number }): Promise<Buffer[]>;
  rpop(list: Key, opts?: { count?: number; wait?: number }): Promise<Buffer[]>;
  llen(list: Key): Promise<number | null>;
  lrange(list: Key, offset: Int, limit: number): Promise<Buffer[]>;
  lindex(list: Key, index: Int): Promise<Buffer | null>;
  lset(list: Key, index: Int, value: Value): Promise<boolean>;
  /** The new length; null: no such pivot or list; false: at maxlen. */
  linsert(list: Key, where: 'before' | 'after', pivot: Value, value: Value): Promise<number | null | false>;
  ltrim(list: Key, offset: Int, limit: Int): Promise<number | null>;
  lrem(list: Key, count: Int, value: Value): Promise<number | null>;
  lexists(list: Key, value: Value): Promise<boolean | null>;
  ldelete(list: Key): Promise<boolean>;

  // tree counters
  ctdef(counter: number, types: string | CtType[], opts?: { aggregate?: boolean; quantize?: Int }): Promise<boolean>;
  ctundef(counter: number): Promise<boolean>;
  ctcounter(counter: number, opts?: ServerChoice): Promise<CtCounter | null>;
  ctcounters(opts?: ServerChoice & { count?: number; after?: number }): Promise<{ counters: CtCounter[]; more: string | null }>;
  /** true: created; false: EXISTS; null: the parent does not exist. */
  ctobj(key: Key, opts?: GroupOption & { parent?: Key; quantize?: Int; limits?: CtLimit[] }): Promise<boolean | null>;
  ctlimits(key: Key, opts?: GroupOption & { quantize?: Int; limits?: CtLimit[] }): Promise<true | null>;
  ctraise(key: Key, limits: CtLimit[], opts?: GroupOption): Promise<true | null>;
  ctinfo(key: Key, opts?: GroupOption): Promise<CtInfo | null>;
  ctchildren(key: Key, opts?: GroupOption & { count?: number; after?: Key }): Promise<{ children: string[]; more: string | null } | null>;
  /** null: no such object; applied false: EXCEEDED (nothing changed). */
  ctincr(key: Key, counter: number, type: number, time: string, delta: Int, opts?: GroupOption & { values?: boolean }): Promise<CtIncrResult | null>;
  /** Several increments as one unit, all applied or none (one log record). */
  ctincrn(incrs: CtIncrement[], opts?: GroupOption & { values?: boolean }): Promise<CtIncrManyResult>;
  ctget(key: Key, counter: number, type: number, period: string, opts?: GroupOption): Promise<CtValue | null>;
  ctvalues(key: Key, opts?: GroupOption & CtFilters): Promise<{ values: CtValue[]; more: string | null } | null>;
  ctperiods(opts?: ServerChoice & CtFilters): Promise<{ periods: { counter: number; type: number; period: string; objects: number }[]; more: string | null }>;
  ctactive(opts?: ServerChoice & { since?: Int; count?: number; after?: Key }): Promise<{ objects: { key: string; changed: number }[]; more: string | null } | null>;
  ctdelete(key: Key, opts?: GroupOption): Promise<boolean>;

  // key scans
  /** A page; cursor "0" in the result: the scan is over. null: no such scan. */
  kscanPage(cursor: string | Int, opts?: ServerChoice & ScanFilters & { count?: number }): Promise<{ keys: ScanKey[]; cursor: string } | null>;
  kscanClose(cursor: string | Int, opts?: ServerChoice): Promise<boolean>;
  /** Every key of every server (or opts.server), at least once. */
  kscan(opts?: ScanFilters & { count?: number; server?: string }): AsyncGenerator<ScanKey & { server: string }, void, undefined>;
}

export function createClient(servers: string | string[], options?: ClientOptions): Client;

export class McdsError extends Error { code: string; }
export class ReplyError extends McdsError { reply: string; server?: string; }
export class ClientError extends ReplyError {}
export class AuthenticationError extends ClientError {}
export class ServerError extends ReplyError {}
export class UnknownCommandError extends ReplyError {}
/** connectFailed: the connection never opened, so the request reached no server. */
export class ConnectionError extends McdsError { server?: string; connectFailed?: boolean; }
export class InvalidArgumentError extends McdsError {}
