/**
 * The Dockerfile and docker-compose.yml cannot run on the CI machine (no Docker engine), so what can be checked
 * without building is checked here: stages, user, command, roles, signals, health checks. Every environment
 * variable the service reads must be documented in the README.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions by stage (line continuations joined, comments dropped). */
function dockerStages(text: string): Array<{ from: string; instructions: Instruction[] }> {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Array<{ from: string; instructions: Instruction[] }> = [];
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') stages.push({ from: instruction.args, instructions: [] });
    else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

describe('Dockerfile', () => {
  const stages = dockerStages(read('Dockerfile'));
  const [build, runtime] = [stages[0]!, stages.at(-1)!];
  const all = (stage: typeof build, keyword: string) =>
    stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  it('builds the web app and prunes dev dependencies in a build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build.from).toMatch(/^node:24-bookworm-slim AS build$/);
    const runs = all(build, 'RUN').join('\n');
    expect(runs).toContain('npm ci');
    expect(runs).toMatch(/vite(\.js)? build|npm run build:web/);
    expect(runs).toContain('npm prune --omit=dev');
    // No second Node in the image: the `node` package's binary is not installed or is removed.
    expect(runs).toMatch(/--ignore-scripts/);
    expect(runs).toContain('rm -rf node_modules/node');
  });

  it('runs node server/main.ts on node:24-bookworm-slim as a non-root user, without npm, with a health check', () => {
    expect(runtime.from).toBe('node:24-bookworm-slim');
    const users = all(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(JSON.parse(all(runtime, 'CMD').at(-1)!)).toEqual(['node', 'server/main.ts']);
    expect(all(runtime, 'ENTRYPOINT')).toEqual([]);
    // npm is removed from the runtime image, and nothing there runs through it.
    const runs = all(runtime, 'RUN').join('\n');
    expect(runs).toMatch(/rm -rf [^\n]*\/usr\/local\/lib\/node_modules\/npm/);
    expect(runs).toContain('/usr/local/bin/npm');
    expect(runtime.instructions.some((i) => i.keyword !== 'RUN' && /\bnpm\b/.test(i.args))).toBe(false);
    expect(all(runtime, 'COPY').every((args) => args.startsWith('--from=build'))).toBe(true);
    const health = all(runtime, 'HEALTHCHECK').join(' ');
    expect(health).toContain('/healthz');
    expect(all(runtime, 'STOPSIGNAL')).toEqual(['SIGTERM']);
  });

  it('leaves installed and built artefacts, data, secrets and .git out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const path of ['node_modules', '.git', 'web/dist', 'data', '.env']) expect(ignored).toContain(path);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true });

  it('runs PostgreSQL with a volume and a health check', () => {
    const db = compose.services.db;
    expect(db.image).toMatch(/^postgres:\d+/);
    expect(db.volumes.some((v: string) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(Object.keys(compose.volumes)).toContain(db.volumes[0].split(':')[0]);
    expect(db.healthcheck.test.join(' ')).toContain('pg_isready');
  });

  it.each([
    ['api', 'api'],
    ['worker', 'worker'],
  ])(
    'runs the %s service: the image, ROLE=%s, two replicas, an init, health-based start, no npm',
    (name, role) => {
      const service = compose.services[name];
      const db = compose.services.db;
      expect(service.build).toBe('.');
      expect(service.environment.ROLE).toBe(role);
      expect(service.deploy.replicas).toBe(2);
      expect(service.init).toBe(true);
      expect(service.command).toEqual(['node', 'server/main.ts']);
      expect(JSON.stringify(service)).not.toMatch(/\bnpm\b/);
      expect(service.volumes).toBeUndefined(); // the image's code, not a bind mount of the checkout
      expect(service.depends_on.db.condition).toBe('service_healthy');
      expect(service.healthcheck.test.join(' ')).toContain('/readyz');
      // docker stops with SIGTERM, then SIGKILL after stop_grace_period: longer than the service's own grace.
      expect(Number.parseInt(service.stop_grace_period, 10)).toBeGreaterThan(
        Number(service.environment.SHUTDOWN_GRACE_SECONDS),
      );
      const url = new URL(service.environment.DATABASE_URL);
      expect(url.hostname).toBe('db');
      expect(decodeURIComponent(url.username)).toBe(db.environment.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(db.environment.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${db.environment.POSTGRES_DB}`);
    },
  );

  it('publishes only the api replicas, one host port each', () => {
    expect(compose.services.api.ports).toEqual(['3000-3001:3000']);
    expect(compose.services.worker.ports).toBeUndefined();
    expect(compose.services.api.environment.APP_URL).toMatch(/^https?:\/\//);
  });
});

describe('npm start', () => {
  it('execs node, so the signals npm passes on reach the service (processes.test.ts runs it)', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe('exec node server/main.ts');
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

describe('README', () => {
  it('describes the share page as it is: newest year first, charts printed with or without the print event', () => {
    const readme = read('README.md');
    expect(readme).not.toMatch(/oldest first/);
    expect(readme).toMatch(/newest first/);
    expect(readme).toContain('data-print-ready');
    // The contract as shipped, the ids captured from the 202, the CLI's DATA_DIR (issue 24).
    expect(readme).not.toContain('financial-report-api.md');
    expect(readme).toContain('schema/openapi.yaml');
    expect(readme).toMatch(/jq -r \.report_id/);
    expect(readme).toMatch(/DATA_DIR=\S+ npm run cli/);
  });
});
