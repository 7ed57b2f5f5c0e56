/**
 * schema/openapi.yaml as a contract tool reads it: its generated sp_result schemas match the catalogue (re-run
 * `npm run schema:openapi` after adding an item or a key), and `redocly lint` and `spectral lint` (ruleset
 * spectral:oas) report no error (`npm run lint:api`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPENAPI_FILE, withGeneratedBlock } from '../../schema/spResultSchemas.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function lint(args: string[]): { status: number; output: string } {
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

type Node = Record<string, unknown>;

/** Every schema-like object of the document, with its JSON pointer. */
function* nodes(value: unknown, path = '#'): Generator<[string, Node]> {
  if (Array.isArray(value)) {
    for (const [index, inner] of value.entries()) yield* nodes(inner, `${path}/${index}`);
  } else if (value !== null && typeof value === 'object') {
    yield [path, value as Node];
    for (const [key, inner] of Object.entries(value)) yield* nodes(inner, `${path}/${key}`);
  }
}

describe('schema/openapi.yaml for strict generators (openapi-python-client, orval)', () => {
  const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as Node;
  const schemas = (doc.components as { schemas: Record<string, Node> }).schemas;

  it('gives every `const` its `type` (a bare const breaks openapi-python-client and orval)', () => {
    const bare = [...nodes(doc)]
      .filter(([path, node]) => 'const' in node && !('type' in node) && !path.includes('/example'))
      .map(([path]) => path);
    expect(bare).toEqual([]);
  });

  it('has no allOf whose parts give one property two different types or consts', () => {
    const resolve = (node: Node): Node =>
      typeof node.$ref === 'string' ? resolve(schemas[node.$ref.split('/').at(-1)!]!) : node;
    const conflicts: string[] = [];
    for (const [path, node] of nodes(doc)) {
      if (!Array.isArray(node.allOf)) continue;
      const seen = new Map<string, string>();
      for (const part of (node.allOf as Node[]).map(resolve)) {
        for (const [name, property] of Object.entries((part.properties as Record<string, Node>) ?? {})) {
          const shape = JSON.stringify({ type: property.type, const: property.const });
          const before = seen.get(name);
          if (before !== undefined && before !== shape)
            conflicts.push(`${path}: ${name} ${before} vs ${shape}`);
          seen.set(name, shape);
        }
      }
    }
    expect(conflicts).toEqual([]);
  });

  it('types every problem response with a flat schema whose status and code are narrowed', () => {
    const responses = (doc.components as { responses: Record<string, Node> }).responses;
    for (const [name, response] of Object.entries(responses)) {
      const content = response.content as Record<string, { schema: Node }> | undefined;
      const schema = content?.['application/problem+json']?.schema;
      if (!schema) continue;
      const flat = resolve$ref(schemas, schema);
      expect(flat.allOf, name).toBeUndefined();
      const properties = flat.properties as Record<string, Node>;
      expect(properties.status?.type, name).toBe('integer');
      // One status (const), or the few a shared response answers with (an integer enum, e.g. the import's).
      const statuses = (properties.status?.enum as unknown[] | undefined) ?? [properties.status?.const];
      expect(statuses.length, name).toBeGreaterThan(0);
      for (const status of statuses) expect(status, name).toBeTypeOf('number');
      expect(properties.code?.type, name).toBe('string');
      expect(properties.code?.const ?? properties.code?.enum, name).toBeDefined();
    }
  });
});

function resolve$ref(schemas: Record<string, Node>, node: Node): Node {
  return typeof node.$ref === 'string' ? resolve$ref(schemas, schemas[node.$ref.split('/').at(-1)!]!) : node;
}

describe('schema/openapi.yaml', () => {
  it('holds the sp_result schemas generated from the current catalogue (npm run schema:openapi)', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(withGeneratedBlock(committed) === committed, 'run `npm run schema:openapi` and commit').toBe(true);
  });

  it('passes redocly lint with no error', () => {
    const result = lint([
      'node_modules/@redocly/cli/bin/cli.js',
      'lint',
      'schema/openapi.yaml',
      '--format=stylish',
    ]);
    expect(result.output).toMatch(/valid/i);
    expect(result.status, result.output).toBe(0);
  }, 120_000);

  it('passes spectral lint (spectral:oas) with no error', () => {
    const result = lint([
      'node_modules/@stoplight/spectral-cli/dist/index.js',
      'lint',
      'schema/openapi.yaml',
      '--ruleset',
      '.spectral.yaml',
      '--fail-severity',
      'error',
    ]);
    expect(result.output).toMatch(/0 errors|No results/);
    expect(result.status, result.output).toBe(0);
  }, 120_000);
});
