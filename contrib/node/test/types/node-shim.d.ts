// node-shim.d.ts: what index.d.ts and usage.ts take from @types/node, for
// checking them where @types/node is not installed (Debian's
// node-typescript comes without it). Only used by test/api.test.js.
interface Buffer extends Uint8Array { toString(encoding?: string): string; }
declare const Buffer: { from(s: string, encoding?: string): Buffer };
declare const console: { log(...args: unknown[]): void };
declare module 'tls' {
  interface ConnectionOptions { servername?: string; rejectUnauthorized?: boolean; }
}
