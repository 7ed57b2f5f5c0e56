import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys of submissions (docs/api-behaviour.md#idempotency): one row per (account, mode, key), holding
 * the request's fingerprint and, once the report is recorded, the response to replay. The row's completion is
 * written in the same transaction as the report, so a recorded report always has its replayable response.
 */
export class Migration20261123200000_idempotency_keys extends Migration {
  override name = 'Migration20261123200000_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("account_id" uuid not null, "mode" varchar(8) not null, "key" varchar(255) not null, "fingerprint" char(64) not null, "state" varchar(16) not null, "status_code" int null, "response" jsonb null, "report_id" uuid null, "created_at" timestamptz not null, "locked_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("account_id", "mode", "key"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys";`);
  }
}
