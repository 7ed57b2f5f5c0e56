/**
 * The contracts as integrators' generators read them: from the document and the schema the running app serves,
 * openapi-typescript, @hey-api/openapi-ts and orval generate REST clients and GraphQL Code Generator
 * (typescript + typescript-operations) generates GraphQL types; then `tsc --strict` compiles a small program
 * against each (test/clients/*Program.ts: submit, poll, list, read one item's typed `sp_result` key, a typed 422
 * and a typed 404 or error code, parse a webhook event) — with no cast, so an untyped `sp_result`, a problem body
 * reduced to `never` or an `unknown` webhook payload fails the compile. Generated files go to
 * test/artifacts/clients (git-ignored). openapi-fetch's program also runs: test/integration/openapi-client.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = fileURLToPath(new URL('../artifacts/clients/', import.meta.url));

function node(args: string[]): string {
  try {
    return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** `tsc --strict --noEmit` over `files`; returns the files it checked. */
function compile(name: string, files: string[]): string {
  const config = `${OUT}tsconfig.${name}.json`;
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        allowImportingTsExtensions: true,
        lib: ['es2024', 'dom', 'dom.iterable'],
        types: [],
        skipLibCheck: true,
      },
      files: files.map((file) => `${ROOT}${file}`),
    }),
  );
  return node(['node_modules/typescript7/bin/tsc', '-p', config, '--listFiles']);
}

let service: TestService;

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  service = await startTestService('postgres');
  const served = await service.request('/api/v1/openapi.json');
  expect(served.status).toBe(200);
  writeFileSync(`${OUT}openapi.json`, JSON.stringify(served.body));
  const key = await service.newKey('test');
  const introspection = await service.request('/graphql', {
    method: 'POST',
    key,
    body: { query: getIntrospectionQuery({ specifiedByUrl: true }) },
  });
  expect(introspection.status).toBe(200);
  writeFileSync(`${OUT}introspection.json`, JSON.stringify(introspection.body));
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe('clients generated from the served contracts compile a strict program with no cast', () => {
  it('openapi-typescript (+ openapi-fetch)', () => {
    node([
      'node_modules/openapi-typescript/bin/cli.js',
      `${OUT}openapi.json`,
      '-o',
      `${OUT}openapi-typescript/schema.ts`,
    ]);
    const types = readFileSync(`${OUT}openapi-typescript/schema.ts`, 'utf8');
    expect(types).toMatch(/sp_result: components\["schemas"\]\["SpResult_revenue"\]/);
    // openapi-client.test.ts owns test/artifacts/openapi-client (it runs the program): compile a copy here,
    // importing the types generated from the served document.
    const program = readFileSync(`${ROOT}test/clients/openapiFetchProgram.ts`, 'utf8');
    expect(program).toContain("'../artifacts/openapi-client/schema.ts'");
    writeFileSync(
      `${OUT}openapi-typescript/program.ts`,
      program.replace("'../artifacts/openapi-client/schema.ts'", "'./schema.ts'"),
    );
    const checked = compile('openapi-typescript', [`test/artifacts/clients/openapi-typescript/program.ts`]);
    expect(checked).toContain('openapi-typescript/schema.ts');
  }, 60_000);

  it('@hey-api/openapi-ts', () => {
    node(['node_modules/@hey-api/openapi-ts/bin/run.js', '-i', `${OUT}openapi.json`, '-o', `${OUT}hey-api`]);
    const types = readFileSync(`${OUT}hey-api/types.gen.ts`, 'utf8');
    // YearData.sheets was `unknown` while it carried allOf/contains.
    expect(types).not.toMatch(/sheets: unknown/);
    const checked = compile('hey-api', ['test/clients/heyApiProgram.ts']);
    expect(checked).toContain('hey-api/sdk.gen.ts');
  }, 60_000);

  it('orval (fetch client)', () => {
    node([
      'node_modules/orval/dist/bin/orval.mjs',
      '--input',
      `${OUT}openapi.json`,
      '--output',
      `${OUT}orval/api.ts`,
      '--client',
      'fetch',
    ]);
    const checked = compile('orval', ['test/clients/orvalProgram.ts']);
    expect(checked).toContain('orval/api.ts');
  }, 60_000);

  it('GraphQL Code Generator (typescript + typescript-operations)', () => {
    const config = {
      enumsAsTypes: true,
      // File: the multipart upload of importStatements (GraphQL multipart request spec), a Blob in the client.
      scalars: { DateTime: 'string', JSON: 'unknown', File: 'Blob' },
      strictScalars: true,
    };
    writeFileSync(
      `${OUT}codegen.json`,
      JSON.stringify({
        schema: `${OUT}introspection.json`,
        documents: `${ROOT}test/clients/graphqlOperations.graphql`,
        // typescript-operations 6 writes the input and enum types its operations use itself: the schema's
        // types (ErrorExtensions, which no operation selects) go to a file of their own.
        generates: {
          [`${OUT}graphql/types.ts`]: { plugins: ['typescript'], config },
          [`${OUT}graphql/operations.ts`]: { plugins: ['typescript-operations'], config },
        },
      }),
    );
    node(['node_modules/@graphql-codegen/cli/esm/bin.js', '--config', `${OUT}codegen.json`, '--silent']);
    const types = readFileSync(`${OUT}graphql/types.ts`, 'utf8');
    expect(types).toMatch(/export type ErrorCode =/);
    const checked = compile('graphql', ['test/clients/graphqlProgram.ts']);
    expect(checked).toContain('graphql/operations.ts');
    expect(checked).toContain('graphql/types.ts');
  }, 60_000);
});
