import { Migration } from '@mikro-orm/migrations';

/** The large documents each report writes: [table, column, stays jsonb]. */
const DOCUMENTS = [
  // The job takes the submission apart inside the database (jsonb operators work on the parsed form).
  ['tasks', 'payload', true],
  ['statements', 'lines', true],
  // Written once, read whole, never queried into.
  ['analysis_results', 'sp_result', false],
  ['analysis_results', 'risk_items', false],
] as const;

/**
 * The analysis results become `json` (kept as text) instead of `jsonb`: nothing queries into them, so jsonb's
 * binary form only cost PostgreSQL a conversion on every write and every read. Every large document is
 * compressed with lz4 instead of pglz where the server has it (PGlite has not: the DO block keeps its default
 * there). Together these were most of PostgreSQL's CPU per report (docs/performance.md).
 */
export class Migration20261121080000_json_documents extends Migration {
  override name = 'Migration20261121080000_json_documents';

  override up(): void | Promise<void> {
    for (const [table, column, binary] of DOCUMENTS) {
      if (!binary)
        this.addSql(`alter table "${table}" alter column "${column}" type json using "${column}"::json;`);
      this.addSql(
        `do $$ begin
           alter table "${table}" alter column "${column}" set compression lz4;
         exception when feature_not_supported then null;
         end $$;`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const [table, column, binary] of DOCUMENTS) {
      this.addSql(`alter table "${table}" alter column "${column}" set compression default;`);
      if (!binary)
        this.addSql(`alter table "${table}" alter column "${column}" type jsonb using "${column}"::jsonb;`);
    }
  }
}
