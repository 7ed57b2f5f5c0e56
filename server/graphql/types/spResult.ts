/**
 * `AnalysisItem.typedSpResult`: the `SpResult` union of one object type per slug (`RevenueSpResult`, …), built from
 * the same generated schemas as REST's (`SpResult_<slug>` in schema/openapi.yaml, `npm run schema:openapi`), so
 * both transports type `sp_result` alike and neither can drift from the engine (test/unit/sp-result-drift.test.ts).
 * Keys keep their `sp_result` names; nested objects become types named after their path; a map (`null_reasons`)
 * and a key that is null in every report stay `JSON`. A key is non-null where the schema requires it and never
 * allows null.
 */

import { REPORT_SLUGS } from '../../../worker/engine/registry.ts';
import { loadOpenApiDocument } from '../../rest/docsRoutes.ts';
import { builder } from '../builder.ts';

type Schema = { [keyword: string]: unknown };
/** What the typed field resolves to: the item's sp_result and, for the union, its slug. */
type SpValue = Record<string, unknown>;
/** Where `typedSpResult` keeps the item's slug for `resolveType` (a symbol: no sp_result key can clash). */
const SLUG = Symbol('slug');

const pascal = (text: string) =>
  text
    .split(/[_\W]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

export const spResultTypeName = (slug: string) => `${pascal(slug)}SpResult`;

function typesOf(schema: Schema): string[] {
  return Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
}

type SpRef = ReturnType<ReturnType<typeof builder.objectRef<SpValue>>['implement']>;
type FieldType = string | SpRef | FieldType[];

/** The GraphQL type of a schema (a name, a list, or a new object type), and whether it may be null. */
function fieldType(schema: Schema, name: string): { type: FieldType; nullable: boolean } {
  const types = typesOf(schema);
  const nullable = types.includes('null') || types.length === 0;
  const [kind] = types.filter((t) => t !== 'null');
  if (kind === 'array') {
    const inner = fieldType(schema.items as Schema, name);
    return { type: [inner.type], nullable };
  }
  if (kind === 'object' && schema.properties) return { type: objectType(schema, name), nullable };
  const scalar: Record<string, string> = {
    integer: 'Int',
    number: 'Float',
    string: 'String',
    boolean: 'Boolean',
  };
  return { type: (kind && scalar[kind]) || 'JSON', nullable: nullable || !(kind && scalar[kind]) };
}

function objectType(schema: Schema, name: string): SpRef {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = schema.properties as Record<string, Schema>;
  return builder.objectRef<SpValue>(name).implement({
    description: typeof schema.description === 'string' ? schema.description : undefined,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(properties).map(([key, property]) => {
          const { type, nullable } = fieldType(property, `${name}_${pascal(key)}`);
          return [
            key,
            t.field({
              // The types are built from data, so Pothos cannot know them statically.
              type: type as 'JSON',
              nullable: nullable || !required.has(key),
              description: typeof property.description === 'string' ? property.description : undefined,
              resolve: (parent) => parent[key] as never,
            }),
          ];
        }),
      ),
  });
}

const schemas = (loadOpenApiDocument() as { components: { schemas: Record<string, Schema> } }).components
  .schemas;

const typeOfSlug = new Map(
  REPORT_SLUGS.map((slug) => {
    const schema = schemas[`SpResult_${slug}`];
    if (!schema) throw new Error(`schema/openapi.yaml has no SpResult_${slug}: run npm run schema:openapi`);
    return [slug, objectType(schema, spResultTypeName(slug))] as const;
  }),
);

export const SpResultUnion = builder.unionType('SpResult', {
  description:
    "An analysis item's indicators, typed by its slug (one member per slug, `<Slug>SpResult`). Amounts in 万元, " +
    'ratios already × 100; the same keys as REST `sp_result`.',
  types: [...typeOfSlug.values()],
  resolveType: (value) => spResultTypeName((value as { [SLUG]: string })[SLUG]),
});

/** The value `typedSpResult` resolves to: the union member reads its keys, `resolveType` its slug. */
export function typedSpResult(slug: string, spResult: SpValue): SpValue {
  return Object.assign({ [SLUG]: slug }, spResult);
}
