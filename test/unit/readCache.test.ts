/**
 * The read cache's rules (server/services/readCache.ts), on a stand-in for pg-boss's database object (the
 * integration test read-cache.test.ts runs it on PostgreSQL): off until the LISTEN is established, off again
 * after a connection error until the listener is back, nothing put back by a read that a change overtook,
 * entries trusted for 10 s at most, and what this process changes dropped at once.
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../server/services/apiKeys.ts';
import {
  CHANGES_CHANNEL,
  forgetApiKeys,
  forgetReports,
  READ_CACHE_TTL_MS,
  ReadCache,
} from '../../server/services/readCache.ts';

const alice: Principal = { accountId: 'a', mode: 'test', apiKeyId: 'k1' };
const bob: Principal = { accountId: 'b', mode: 'test', apiKeyId: 'k2' };

/** pg-boss's Db as far as the cache uses it: listen(channel, onNotification, onReconnect), and 'error' events. */
function standIn() {
  const db = Object.assign(new EventEmitter(), {
    channel: '',
    notify: (_payload: string): void => undefined,
    reconnect: (): void => undefined,
    closed: false,
    async executeSql() {
      return { rows: [] };
    },
    async listen(channel: string, onNotification: (payload: string) => void, onReconnect: () => void) {
      db.channel = channel;
      db.notify = onNotification;
      db.reconnect = onReconnect;
      return {
        close: async () => {
          db.closed = true;
        },
      };
    },
  });
  return db;
}

describe('ReadCache', () => {
  const logger = pino({ level: 'silent' });

  it('is off until the LISTEN is established, then keeps what a read remembered', async () => {
    const db = standIn();
    let now = 0;
    const cache = await ReadCache.start(db, logger, () => now);
    expect(db.channel).toBe(CHANGES_CHANNEL);
    cache.rememberApiKey('h', alice, cache.generation());
    expect(cache.apiKey('h')).toBeUndefined();
    db.reconnect();
    cache.rememberApiKey('h', alice, cache.generation());
    cache.rememberReportTag('r1', alice, 'W/"t"', cache.generation());
    expect(cache.apiKey('h')).toEqual(alice);
    expect(cache.reportTag('r1', alice)).toBe('W/"t"');
    // Another account, or the other mode, gets nothing.
    expect(cache.reportTag('r1', bob)).toBeUndefined();
    expect(cache.reportTag('r1', { ...alice, mode: 'live' })).toBeUndefined();
    now = READ_CACHE_TTL_MS + 1;
    expect(cache.apiKey('h')).toBeUndefined();
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    await cache.stop();
    expect(db.closed).toBe(true);
  });

  it('drops what a notification names; a read overtaken by a change puts nothing back', async () => {
    const db = standIn();
    const cache = await ReadCache.start(db, logger, () => 0);
    db.reconnect();
    cache.rememberApiKey('h', alice, cache.generation());
    cache.rememberReportTag('r1', alice, 'W/"1"', cache.generation());
    cache.rememberReportTag('r2', alice, 'W/"2"', cache.generation());
    db.notify('r:r1');
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    expect(cache.reportTag('r2', alice)).toBe('W/"2"');
    expect(cache.apiKey('h')).toEqual(alice);
    db.notify('k:some-key');
    expect(cache.apiKey('h')).toBeUndefined();

    const before = cache.generation();
    db.notify('r:r3'); // a change committed while a read of r1 was under way
    cache.rememberReportTag('r1', alice, 'W/"old"', before);
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    await cache.stop();
  });

  it('is off from a connection error until the listener reconnects, and empty after', async () => {
    const db = standIn();
    const cache = await ReadCache.start(db, logger, () => 0);
    db.reconnect();
    cache.rememberReportTag('r1', alice, 'W/"1"', cache.generation());
    db.emit('error', new Error('LISTEN/NOTIFY connection ended'));
    expect(cache.listening).toBe(false);
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    cache.rememberReportTag('r1', alice, 'W/"1"', cache.generation());
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    db.reconnect();
    expect(cache.listening).toBe(true);
    expect(cache.reportTag('r1', alice)).toBeUndefined();
    await cache.stop();
  });

  it("drops, in every cache of the process, what this process's own code changed", async () => {
    const dbs = [standIn(), standIn()];
    const caches = await Promise.all(dbs.map((db) => ReadCache.start(db, logger, () => 0)));
    for (const [i, cache] of caches.entries()) {
      dbs[i]!.reconnect();
      cache.rememberApiKey('h', alice, cache.generation());
      cache.rememberReportTag('r1', alice, 'W/"1"', cache.generation());
    }
    forgetReports(['r1']);
    forgetApiKeys();
    for (const cache of caches) {
      expect(cache.reportTag('r1', alice)).toBeUndefined();
      expect(cache.apiKey('h')).toBeUndefined();
      await cache.stop();
    }
  });

  it('without LISTEN (an adapter that has none) stays off', async () => {
    const cache = await ReadCache.start({ executeSql: async () => ({ rows: [] }) }, logger, () => 0);
    cache.rememberApiKey('h', alice, cache.generation());
    expect(cache.apiKey('h')).toBeUndefined();
    await cache.stop();
  });
});
