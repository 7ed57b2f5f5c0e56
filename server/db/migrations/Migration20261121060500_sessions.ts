import { Migration } from '@mikro-orm/migrations';

/** Console sessions (cookie sign-in). */
export class Migration20261121060500_sessions extends Migration {
  override name = 'Migration20261121060500_sessions';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "sessions" ("id" varchar(64) not null, "account_id" uuid not null, "csrf_token" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "last_seen_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "sessions_account_id_index" on "sessions" ("account_id");`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);
    this.addSql(
      `alter table "sessions" add constraint "sessions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }
}
