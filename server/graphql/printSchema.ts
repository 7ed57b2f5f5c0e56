/**
 * Prints the schema as SDL to schema/schema.graphql (`npm run schema:graphql`). The file is committed: it
 * is the contract front-end code generation reads, and a test fails when it differs from the code.
 */
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from './schema.ts';

export const SCHEMA_PATH = new URL('../../schema/schema.graphql', import.meta.url);

export function printGraphQLSchema(): string {
  return `${printSchema(schema)}\n`;
}

if (import.meta.main) {
  writeFileSync(SCHEMA_PATH, printGraphQLSchema());
  console.log(`wrote ${SCHEMA_PATH.pathname}`);
}
