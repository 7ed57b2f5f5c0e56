/**
 * The key CLI, run as a separate process like `npm run cli -- …`, on the embedded database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startChildService } from '../helpers/process.ts';

// Each CLI run and server start opens the embedded database in a new process (seconds each, more on a busy
// machine): this file gets room beyond the default 60 s per test.
describe('keys CLI on the embedded database', { timeout: 240_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fra-cli-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a key (printed last), which then authenticates, and revokes it', async () => {
    const created = await runCli(['keys', 'create', '--email', 'cli@example.com', '--mode', 'live'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^ek_live_[A-Za-z0-9_-]{43}$/);

    const service = await startChildService(env);
    try {
      const ok = await fetch(`${service.url}/api/v1/developer/reports/00000000-0000-4000-8000-000000000000`, {
        headers: { 'X-API-Key': key },
      });
      expect(ok.status).toBe(404);

      // While the server holds the embedded database, the CLI refuses and says why.
      const busy = await runCli(['keys', 'revoke', key], env);
      expect(busy.code).not.toBe(0);
      expect(busy.stderr).toMatch(/stop the server first/);
    } finally {
      await service.kill('SIGTERM');
    }

    const revoked = await runCli(['keys', 'revoke', key], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    const again = await runCli(['keys', 'revoke', key], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/No active key/);

    const service2 = await startChildService(env);
    try {
      const denied = await fetch(
        `${service2.url}/api/v1/developer/reports/00000000-0000-4000-8000-000000000000`,
        {
          headers: { 'X-API-Key': key },
        },
      );
      expect(denied.status).toBe(401);
    } finally {
      await service2.kill('SIGTERM');
    }
  });

  it('explains its usage on bad arguments', async () => {
    const result = await runCli(['keys', 'create', '--email', 'x@example.com'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--mode test\|live/);
  });
});
