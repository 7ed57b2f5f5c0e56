/**
 * An integrator's generated client against the real app: openapi-typescript turns schema/openapi.yaml into types,
 * tsc (TypeScript 6) type-checks test/clients/openapiFetchProgram.ts against them — submitting, polling, listing
 * and reading `sp_result.series` must compile — and the program then runs over openapi-fetch against the app on
 * PostgreSQL and on PGlite.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../helpers/database.ts';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Generated files go with the other test artifacts (git- and Biome-ignored). */
const GENERATED = fileURLToPath(new URL('../artifacts/openapi-client/', import.meta.url));

type RunProgram = (
  baseUrl: string,
  apiKey: string,
  body: unknown,
) => Promise<{
  reportId: string;
  replayedReportId: string;
  status: string;
  taskDone: boolean;
  listed: string[];
  years: number[];
  operatingRevenue: unknown;
}>;

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
}

beforeAll(() => {
  rmSync(GENERATED, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  node(['node_modules/openapi-typescript/bin/cli.js', 'schema/openapi.yaml', '-o', `${GENERATED}schema.ts`]);
  writeFileSync(
    `${GENERATED}tsconfig.json`,
    JSON.stringify({
      extends: '../../../tsconfig.json',
      compilerOptions: { lib: ['es2024', 'dom'], types: [] },
      include: ['../../clients/openapiFetchProgram.ts', './schema.ts'],
      exclude: [],
    }),
  );
}, 120_000);

describe('a client generated with openapi-typescript + openapi-fetch', () => {
  it('types sp_result as an open object with series, and optional fields as optional', () => {
    const types = readFileSync(`${GENERATED}schema.ts`, 'utf8');
    expect(types).not.toMatch(/sp_result: Record<string, never>/);
    expect(types).toMatch(/ai_auto_analysis\?: 0 \| 1/);
    expect(types).toMatch(/SpResult_revenue: \{/);
  });

  it('type-checks the program with TypeScript 6', () => {
    let output = '';
    try {
      output = node([
        'node_modules/typescript/bin/tsc6',
        '-p',
        `${GENERATED}tsconfig.json`,
        '--listFilesOnly',
      ]);
      node(['node_modules/typescript/bin/tsc6', '-p', `${GENERATED}tsconfig.json`, '--noEmit']);
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      throw new Error(`tsc failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}${String(error)}`);
    }
    // It really checked the program against the generated types.
    expect(output).toContain('openapiFetchProgram.ts');
    expect(output).toContain('openapi-client/schema.ts');
  }, 120_000);
});

describe.each<Backend>(['postgres', 'pglite'])('the generated client against the app on %s', (backend) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(backend);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('submits (retrying idempotently), polls, lists and reads sp_result.series', async () => {
    const key = await service.newKey('test');
    // Imported by URL, not by a literal specifier: the repository's own type-check must not follow it into the
    // generated types, which exist only once this file's beforeAll has run.
    const program = new URL('../clients/openapiFetchProgram.ts', import.meta.url).href;
    const { run } = (await import(program)) as { run: RunProgram };
    const result = await run(service.url, key, fixture('general_new-3y'));
    expect(result.replayedReportId).toBe(result.reportId);
    expect(result.status).toBe('success');
    expect(result.taskDone).toBe(true);
    expect(result.listed).toEqual([result.reportId]);
    expect(result.years).toEqual([2022, 2023, 2024]);
    expect(typeof result.operatingRevenue).toBe('number');
  });
});
