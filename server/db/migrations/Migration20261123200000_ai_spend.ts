import { Migration } from '@mikro-orm/migrations';

/**
 * The AI step's spend: `tasks.ai_result` keeps a report's AI texts from the end of step 3 until the report is
 * assembled (a retried attempt reuses them instead of paying the model again); `ai_daily_usage` counts each
 * account's model tokens per UTC day (AI_DAILY_TOKEN_BUDGET).
 */
export class Migration20261123200000_ai_spend extends Migration {
  override name = 'Migration20261123200000_ai_spend';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tasks" add "ai_result" jsonb null;`);
    this.addSql(
      `create table "ai_daily_usage" ("account_id" uuid not null, "day" date not null, "tokens" bigint not null default 0, primary key ("account_id", "day"));`,
    );
    this.addSql(
      `alter table "ai_daily_usage" add constraint "ai_daily_usage_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ai_daily_usage";`);
    this.addSql(`alter table "tasks" drop column "ai_result";`);
  }
}
