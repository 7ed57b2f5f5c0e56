/** Settings the service refuses rather than start in a state that cannot work. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';

describe('config', () => {
  it('refuses a one-connection DB_POOL_SIZE, which would wait for itself at the migration lock', () => {
    expect(() => loadConfig({ DB_POOL_SIZE: '1' })).toThrow(/DB_POOL_SIZE must be an integer ≥ 2/);
    expect(loadConfig({ DB_POOL_SIZE: '2' }).dbPoolSize).toBe(2);
    expect(loadConfig({}).dbPoolSize).toBe(10);
  });

  it('reads JOB_POLL_SECONDS (1 by default, at least 1)', () => {
    expect(loadConfig({}).jobPollSeconds).toBe(1);
    expect(loadConfig({ JOB_POLL_SECONDS: '5' }).jobPollSeconds).toBe(5);
    expect(() => loadConfig({ JOB_POLL_SECONDS: '0' })).toThrow(/JOB_POLL_SECONDS/);
  });
});
