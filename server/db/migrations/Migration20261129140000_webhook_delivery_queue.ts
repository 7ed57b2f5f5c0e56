import { Migration } from '@mikro-orm/migrations';

/**
 * The webhook deliveries are their own queue (server/webhooks/delivery.ts, docs/webhooks.md): a pending delivery is
 * due at `next_attempt_at`, ranked by `priority` (1: a new event, a redelivery or a hand-back; 0: a scheduled retry),
 * and taken by an attempt's lease (`attempt_started_at`); its account is kept on the row so that a fetch finds, per
 * account, the deliveries due and the attempts running through an index, instead of walking one queue of every
 * account's jobs. Every delivery the earlier design's pg-boss jobs (queue `webhook-delivery`) stood for is still
 * pending here, due when its job was. That queue is left as it is: a process of the earlier build still running
 * during a rolling deploy keeps queueing and running its jobs (an attempt takes the delivery's lease either way, so
 * a delivery is never sent twice at once), and pg-boss's retention deletes the jobs left over once none runs them.
 */
export class Migration20261129140000_webhook_delivery_queue extends Migration {
  override name = 'Migration20261129140000_webhook_delivery_queue';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "webhook_deliveries" add column "account_id" uuid null, add column "priority" smallint not null default 1;`,
    );
    this.addSql(
      `update "webhook_deliveries" d set "account_id" = e."account_id" from "webhook_endpoints" e where e."id" = d."endpoint_id";`,
    );
    // A retry scheduled by the earlier design keeps ranking after new events.
    this.addSql(
      `update "webhook_deliveries" set "priority" = 0 where "status" = 'pending' and "attempts" > 0 and "next_attempt_at" > now();`,
    );
    this.addSql(`alter table "webhook_deliveries" alter column "account_id" set not null;`);
    // A process of the earlier build, still running while this one starts (a rolling deploy), records deliveries
    // without their account: it is filled from the endpoint. This build's inserts name it and never run this.
    this.addSql(`create or replace function fra_delivery_account() returns trigger language plpgsql as $$
      begin
        select account_id into new.account_id from webhook_endpoints where id = new.endpoint_id;
        return new;
      end $$;`);
    this.addSql(`create trigger webhook_deliveries_account before insert on webhook_deliveries for each row
      when (new.account_id is null) execute function fra_delivery_account();`);
    this.addSql(
      `create index "webhook_deliveries_due_index" on "webhook_deliveries" ("account_id", "priority", "next_attempt_at") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "webhook_deliveries_leased_index" on "webhook_deliveries" ("account_id", "attempt_started_at") where "attempt_started_at" is not null;`,
    );
    // An account's pending deliveries are counted through the due index now (server/webhooks/endpoints.ts).
    this.addSql(`drop index if exists "webhook_deliveries_pending_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop trigger if exists webhook_deliveries_account on webhook_deliveries;');
    this.addSql('drop function if exists fra_delivery_account();');
    this.addSql(
      `create index if not exists "webhook_deliveries_pending_index" on "webhook_deliveries" ("endpoint_id") where "status" = 'pending';`,
    );
    this.addSql(`drop index if exists "webhook_deliveries_leased_index";`);
    this.addSql(`drop index if exists "webhook_deliveries_due_index";`);
    this.addSql(
      `alter table "webhook_deliveries" drop column if exists "priority", drop column if exists "account_id";`,
    );
  }
}
