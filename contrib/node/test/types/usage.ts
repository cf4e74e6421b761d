// usage.ts: code a TypeScript user would write; test/api.test.js has tsc
// check it against index.d.ts (no output is produced).
import { Client, ClientError, ConnectionError, Message, CtIncrResult } from '../../index';

async function main(): Promise<void> {
  const c = new Client(['127.0.0.1:11211', '127.0.0.1:11212:2'], { timeout: 1000, username: 'u', password: 'p' });
  const ok: boolean = await c.set('k', 'v', { flags: 1, exptime: 10 });
  const rs = new Client('10.0.0.9:11211:2=10.0.0.2:11211', { readReplicas: true, retryTimeout: 3000, reconnectDelay: 1000 });
  const primary: string = rs.primaryOf(rs.servers[0]);
  const v: Buffer | null = await c.get('k');
  const n: bigint | null = await c.incr('n', 5n);
  const id: bigint | false = await c.qpush('{jobs}', Buffer.from('x'), { priority: 1 });
  await c.qcreate('{quotes}', { expired: 'drop' });
  await c.qpushMany('{quotes}', ['a', 'b'], { ttl: 30, dedup: 'q-1' });
  const ms: Message[] = await c.qpop('{jobs}', { count: 10, wait: 20 });
  const acked: boolean[] = await c.qackMany('{jobs}', ms);
  const len: number | false = await c.rpush('feed', ['a', 'b']);
  const r: CtIncrResult | null = await c.ctincr('ad:1', 1, 104, '20240101', 1, { values: true, group: 'camp:1' });
  if (r && !r.applied) console.log(r.exceeded.period);
  for await (const k of c.kscan({ match: 'user:*' })) console.log(k.key, k.type, k.ttl, k.server);
  try { await c.qpush('k', 'x'); } catch (e) { if (e instanceof ClientError || e instanceof ConnectionError) console.log(e.code); }
  console.log(ok, v, n, id, acked, len);
  c.close();
}
main();
