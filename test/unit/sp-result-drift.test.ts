/**
 * The committed `sp_result` schemas against what the engine really sends: every item of every sample report
 * (the fixtures, the real filings, a restated copy) must validate against its slug's schema in schema/openapi.yaml
 * with every object closed (`additionalProperties: false` in this test's copy only), so a key the engine sends and
 * the document does not type — at any depth — or a key of the wrong type fails here. After adding a key or an item,
 * `npm run schema:openapi` regenerates the schemas and this passes again.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPENAPI_FILE, type Schema, sampleItems, schemaName } from '../../schema/spResultSchemas.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';

type Node = Record<string, unknown>;

/** A copy of `schema` whose every object schema with `properties` admits no other key. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Node = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

/** Every schema below `schema` that types nothing (no type, $ref, enum, const or combinator). */
function untyped(schema: unknown, path: string, found: string[]): string[] {
  if (schema === null || typeof schema !== 'object') return found;
  const node = schema as Node;
  const typed = ['type', '$ref', 'enum', 'const', 'oneOf', 'anyOf', 'allOf'].some((k) => k in node);
  if (!typed) found.push(path);
  for (const [name, inner] of Object.entries((node.properties as Node | undefined) ?? {}))
    untyped(inner, `${path}.${name}`, found);
  if (node.items) untyped(node.items, `${path}[]`, found);
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    untyped(node.additionalProperties, `${path}{}`, found);
  return found;
}

const document = parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const items = sampleItems();

describe('the committed sp_result schemas', () => {
  it('have one schema per slug, each typing every key it names (no `unknown`, no leaked `a[].b` name)', () => {
    for (const slug of REPORT_SLUGS) {
      const schema = document.components.schemas[schemaName(slug)];
      expect(schema, `${schemaName(slug)} is missing: npm run schema:openapi`).toBeDefined();
      expect(untyped(schema, slug, [])).toEqual([]);
      expect(JSON.stringify(schema)).not.toMatch(/"[a-z_]+(\[\])?\.[a-z_]+":/);
    }
  });

  it('type every key the engine sends, at any depth, with the right JSON type', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const root = { $id: 'sp-result', components: { schemas: closed(document.components.schemas) } };
    ajv.addSchema(root);
    const problems: string[] = [];
    for (const item of items) {
      const validate = ajv.getSchema(`sp-result#/components/schemas/${schemaName(item.slug)}`);
      expect(validate, `no schema for ${item.slug}`).toBeDefined();
      if (validate && !validate(item.sp_result)) {
        for (const e of validate.errors ?? [])
          problems.push(`${item.slug}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
      }
    }
    expect([...new Set(problems)]).toEqual([]);
  });

  it('covers every slug and every layout in the samples (each cross-check reports mismatches in one)', () => {
    expect(new Set(items.map((i) => i.slug))).toEqual(new Set(REPORT_SLUGS));
    for (const slug of [
      'income_statement',
      'balance_sheet',
      'cash_flow',
      'comparative',
      'statement_arithmetic',
    ])
      expect(
        items.some((i) => i.slug === slug && (i.sp_result.mismatches as unknown[]).length > 0),
        slug,
      ).toBe(true);
  });
});
