import { Migration } from '@mikro-orm/migrations';

/**
 * Every process keeps the benchmark sets its analysis jobs matched reports against (server/services/readCache.ts);
 * a set loaded or retired — by the CLI, another process — sends `NOTIFY fra_changes` 'b:' when its transaction
 * commits, and every process drops the sets it kept. The rows of a set are written in the set's own transaction.
 */
export class Migration20261129010000_benchmark_sets_notify extends Migration {
  override name = 'Migration20261129010000_benchmark_sets_notify';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function fra_notify_benchmark_sets() returns trigger language plpgsql as $$
      begin
        perform pg_notify('fra_changes', 'b:');
        return null;
      end $$;`);
    this.addSql(`create trigger benchmark_sets_notify after insert or update or delete on benchmark_sets
      for each statement execute function fra_notify_benchmark_sets();`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop trigger if exists benchmark_sets_notify on benchmark_sets;');
    this.addSql('drop function if exists fra_notify_benchmark_sets();');
  }
}
