import { Migration } from '@mikro-orm/migrations';

/**
 * The counters of every rate limit (server/lib/rateLimits.ts): rate-limiter-flexible's PostgreSQL table,
 * created here rather than by the library at start-up (`tableCreated: true`). `expire` is epoch ms.
 */
export class Migration20261123200000_rate_limits extends Migration {
  override name = 'Migration20261123200000_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "rate_limits" ("key" varchar(255) not null, "points" integer not null default 0, "expire" bigint null, primary key ("key"));`,
    );
    this.addSql(`create index "rate_limits_expire_index" on "rate_limits" ("expire");`);
  }
}
