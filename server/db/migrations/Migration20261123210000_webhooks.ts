import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (docs/webhooks.md): endpoints per account and mode, one delivery per (endpoint, event) — the
 * unique event_key makes an event emitted twice deliver once — and every attempt of a delivery.
 */
export class Migration20261123210000_webhooks extends Migration {
  override name = 'Migration20261123210000_webhooks';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "webhook_endpoints" ("id" uuid not null, "account_id" uuid not null, "mode" varchar(8) not null, "url" text not null, "description" text null, "enabled" boolean not null default true, "disabled_reason" text null, "secret" text not null, "previous_secret" text null, "previous_secret_expires_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_endpoints_account_mode_index" on "webhook_endpoints" ("account_id", "mode");`,
    );
    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "endpoint_id" uuid not null, "event_key" varchar(200) not null, "event_type" varchar(64) not null, "payload" text not null, "status" varchar(16) not null, "attempts" int not null default 0, "last_status_code" int null, "last_latency_ms" int null, "last_error" text null, "next_attempt_at" timestamptz null, "created_at" timestamptz not null, "delivered_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create unique index "webhook_deliveries_endpoint_event_unique" on "webhook_deliveries" ("endpoint_id", "event_key");`,
    );
    this.addSql(
      `create index "webhook_deliveries_endpoint_created_index" on "webhook_deliveries" ("endpoint_id", "created_at");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "webhook_attempts" ("delivery_id" uuid not null, "attempt_no" int not null, "attempted_at" timestamptz not null, "status_code" int null, "latency_ms" int not null, "error" text null, primary key ("delivery_id", "attempt_no"));`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_attempts";`);
    this.addSql(`drop table if exists "webhook_deliveries";`);
    this.addSql(`drop table if exists "webhook_endpoints";`);
  }
}
