/**
 * The access log is written in batches (server/middlewares/accessLog.ts): one write for many requests, whole
 * lines in order, within ACCESS_LOG_FLUSH_MS — and nothing lost on a normal exit.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Koa from 'koa';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FLUSH_MS, accessLog } from '../../server/middlewares/accessLog.ts';

describe('access log', () => {
  it('writes the lines of many requests in one write, in order, within the flush interval', async () => {
    const writes: string[] = [];
    const logger = pino({ level: 'info' }, { write: (text: string) => void writes.push(text) });
    const app = new Koa();
    app.use(accessLog(logger));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 5; i++) await (await fetch(`${url}/n/${i}`)).text();
      expect(writes).toHaveLength(0);
      await new Promise((resolve) => setTimeout(resolve, ACCESS_LOG_FLUSH_MS + 100));
      expect(writes).toHaveLength(1);
      const lines = writes[0]!
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.path)).toEqual(['/n/0', '/n/1', '/n/2', '/n/3', '/n/4']);
      expect(lines[0]).toMatchObject({ level: 30, log: 'access', msg: 'request', status: 200 });
    } finally {
      server.close();
    }
  });

  it('writes what is waiting when the process exits', async () => {
    const script = `
      import { pino } from 'pino';
      import { accessLog } from './server/middlewares/accessLog.ts';
      const middleware = accessLog(pino({ level: 'info' }));
      const res = new (await import('node:events')).EventEmitter();
      const ctx = { res, method: 'GET', path: '/exit', status: 200, response: { get: () => '', length: 2 }, get: () => '' };
      await middleware(ctx, async () => {});
      res.emit('close');
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: process.cwd(),
    });
    expect(JSON.parse(stdout.trim())).toMatchObject({ path: '/exit', msg: 'request' });
  });
});
