import { Migration } from '@mikro-orm/migrations';

/**
 * Change notifications for the per-process read cache (server/services/readCache.ts): a key revoked or deleted,
 * and a report that is no longer pending changed or deleted, send `NOTIFY fra_changes` ('k:<key id>' or
 * 'r:<report id>') when their transaction commits. Pending reports notify nothing (the cache keeps finished
 * reports only), and neither does the once-a-minute `last_used_at` write of a key.
 */
export class Migration20261128210000_read_cache extends Migration {
  override name = 'Migration20261128210000_read_cache';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function fra_notify_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('fra_changes', tg_argv[0] || ':' || old.id::text);
        return null;
      end $$;`);
    this.addSql(`create trigger api_keys_notify_revoked after update of revoked_at on api_keys for each row
      when (old.revoked_at is distinct from new.revoked_at) execute function fra_notify_change('k');`);
    this.addSql(`create trigger api_keys_notify_deleted after delete on api_keys for each row
      execute function fra_notify_change('k');`);
    this.addSql(`create trigger reports_notify_changed after update on reports for each row
      when (old.status <> 'pending') execute function fra_notify_change('r');`);
    this.addSql(`create trigger reports_notify_deleted after delete on reports for each row
      when (old.status <> 'pending') execute function fra_notify_change('r');`);
  }
}
