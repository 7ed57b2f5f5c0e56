/**
 * docker-compose.yml cannot run on the CI machine (no Docker engine), so it is kept correct here; and every
 * environment variable the service reads must be documented in the README.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'));

  it('runs PostgreSQL with a volume and a health check', () => {
    const db = compose.services.db;
    expect(db.image).toMatch(/^postgres:\d+/);
    expect(db.volumes.some((v: string) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(Object.keys(compose.volumes)).toContain(db.volumes[0].split(':')[0]);
    expect(db.healthcheck.test.join(' ')).toContain('pg_isready');
  });

  it('runs the service against that database once it is healthy', () => {
    const app = compose.services.app;
    const db = compose.services.db;
    expect(app.image).toMatch(/^node:24/);
    expect(app.command.join(' ')).toContain('npm ci && npm start');
    expect(app.depends_on.db.condition).toBe('service_healthy');
    const url = new URL(app.environment.DATABASE_URL);
    expect(url.hostname).toBe('db');
    expect(decodeURIComponent(url.username)).toBe(db.environment.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(db.environment.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${db.environment.POSTGRES_DB}`);
    expect(app.ports).toContain(`${app.environment.PORT}:${app.environment.PORT}`);
    expect(app.environment.APP_URL).toMatch(/^https?:\/\//);
    expect(app.healthcheck.test.join(' ')).toContain('/healthz');
  });
});

describe('configuration', () => {
  it('documents every environment variable config.ts reads', () => {
    const names = [...read('server/config.ts').matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(5);
    const readme = read('README.md');
    for (const name of new Set(names)) expect(readme, name).toContain(`\`${name}\``);
  });
});
