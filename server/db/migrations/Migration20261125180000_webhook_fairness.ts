import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook fairness and revocation (docs/webhooks.md): who created an endpoint (an API key, or a console
 * session), so revoking the key or changing the password disables what it registered; the lease an attempt
 * holds on its delivery while it runs (so a delivery never has two attempts at once); and an index for the
 * per-account count of pending deliveries.
 */
export class Migration20261125180000_webhook_fairness extends Migration {
  override name = 'Migration20261125180000_webhook_fairness';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "webhook_endpoints" add column "created_by_api_key_id" uuid null, add column "created_by_session_id" varchar(64) null;`,
    );
    this.addSql(
      `create index "webhook_endpoints_created_by_api_key_index" on "webhook_endpoints" ("created_by_api_key_id") where "created_by_api_key_id" is not null;`,
    );
    this.addSql(`alter table "webhook_deliveries" add column "attempt_started_at" timestamptz null;`);
    this.addSql(
      `create index "webhook_deliveries_pending_index" on "webhook_deliveries" ("endpoint_id") where "status" = 'pending';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_pending_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column if exists "attempt_started_at";`);
    this.addSql(`drop index if exists "webhook_endpoints_created_by_api_key_index";`);
    this.addSql(
      `alter table "webhook_endpoints" drop column if exists "created_by_api_key_id", drop column if exists "created_by_session_id";`,
    );
  }
}
