import { Migration } from '@mikro-orm/migrations';

export class Migration20261121050955 extends Migration {
  override name = 'Migration20261121050955';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "accounts" ("id" uuid not null, "email" varchar(320) not null, "password_hash" text null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "accounts" add constraint "accounts_email_unique" unique ("email");`);

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "account_id" uuid not null, "name" varchar(100) not null, "mode" text not null, "prefix" varchar(16) not null, "last_four" varchar(4) not null, "key_hash" varchar(64) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_account_id_index" on "api_keys" ("account_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_mode_check" check ("mode" in ('test', 'live'));`,
    );

    this.addSql(
      `create table "enterprises" ("id" uuid not null, "account_id" uuid not null, "mode" text not null, "name" varchar(200) not null, "info" jsonb null, "report_count" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "enterprises" add constraint "enterprises_account_id_mode_name_unique" unique ("account_id", "mode", "name");`,
    );
    this.addSql(
      `alter table "enterprises" add constraint "enterprises_mode_check" check ("mode" in ('test', 'live'));`,
    );

    this.addSql(
      `create table "reports" ("id" uuid not null, "account_id" uuid not null, "mode" text not null, "enterprise_id" uuid not null, "version_no" int not null, "name" varchar(200) not null, "accounting_standard" text not null, "year_start" int not null, "year_end" int not null, "ai_auto_analysis" boolean not null, "enterprise_info" jsonb null, "validation_warnings" jsonb not null, "status" text not null default 'pending', "error_message" text null, "share_token" varchar(64) null, "share_is_public" boolean not null default true, "share_expires_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "reports_enterprise_id_index" on "reports" ("enterprise_id");`);
    this.addSql(`alter table "reports" add constraint "reports_share_token_unique" unique ("share_token");`);
    this.addSql(
      `create index "reports_account_id_mode_created_at_index" on "reports" ("account_id", "mode", "created_at");`,
    );
    this.addSql(`create index "reports_status_created_at_index" on "reports" ("status", "created_at");`);
    this.addSql(
      `alter table "reports" add constraint "reports_enterprise_id_version_no_unique" unique ("enterprise_id", "version_no");`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_mode_check" check ("mode" in ('test', 'live'));`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_accounting_standard_check" check ("accounting_standard" in ('small_enterprise', 'general_new', 'general_old'));`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_status_check" check ("status" in ('pending', 'success', 'failed'));`,
    );

    this.addSql(
      `create table "analysis_results" ("report_id" uuid not null, "slug" varchar(64) not null, "position" int not null, "sp_result" jsonb not null, "risk_items" jsonb not null, "ai_content" text null, "ai_source" varchar(16) null, "cached_at" timestamptz not null, primary key ("report_id", "slug"));`,
    );

    this.addSql(
      `create table "statements" ("report_id" uuid not null, "fiscal_year" int not null, "sheet_type" text not null, "lines" jsonb not null, primary key ("report_id", "fiscal_year", "sheet_type"));`,
    );
    this.addSql(
      `alter table "statements" add constraint "statements_sheet_type_check" check ("sheet_type" in ('income', 'balance', 'cash_flow'));`,
    );

    this.addSql(
      `create table "tasks" ("id" uuid not null, "report_id" uuid not null, "status" text not null default 'processing', "step" text not null default 'queued', "attempts" int not null default 0, "error_message" text null, "payload" jsonb null, "created_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "tasks" add constraint "tasks_report_id_unique" unique ("report_id");`);
    this.addSql(
      `alter table "tasks" add constraint "tasks_status_check" check ("status" in ('processing', 'success', 'failed'));`,
    );
    this.addSql(
      `alter table "tasks" add constraint "tasks_step_check" check ("step" in ('queued', 'store', 'compute', 'ai', 'assemble', 'done'));`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "enterprises" add constraint "enterprises_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "reports" add constraint "reports_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_enterprise_id_foreign" foreign key ("enterprise_id") references "enterprises" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "analysis_results" add constraint "analysis_results_report_id_foreign" foreign key ("report_id") references "reports" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "statements" add constraint "statements_report_id_foreign" foreign key ("report_id") references "reports" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "tasks" add constraint "tasks_report_id_foreign" foreign key ("report_id") references "reports" ("id") on delete cascade;`,
    );
  }
}
