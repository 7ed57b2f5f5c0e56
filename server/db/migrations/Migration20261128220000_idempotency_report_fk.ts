import { Migration } from '@mikro-orm/migrations';

/**
 * An idempotency key loses its report by a foreign key (ON DELETE SET NULL) instead of a subquery: the key is now
 * recorded in the submission's own transaction (server/services/idempotency.ts), and a concurrent duplicate that
 * waited for that transaction re-checks the key's row as committed, where a subquery on `reports` would still use
 * the statement's older snapshot and miss the new report. Keys whose report is already gone are set to null first.
 * The index serves the foreign key's lookups when reports are deleted.
 */
export class Migration20261128220000_idempotency_report_fk extends Migration {
  override name = 'Migration20261128220000_idempotency_report_fk';

  override up(): void | Promise<void> {
    this.addSql(`update idempotency_keys k set report_id = null
      where report_id is not null and not exists (select 1 from reports r where r.id = k.report_id);`);
    this.addSql(`create index "idempotency_keys_report_id_index" on "idempotency_keys" ("report_id");`);
    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_report_id_foreign"
      foreign key ("report_id") references "reports" ("id") on delete set null;`);
  }
}
