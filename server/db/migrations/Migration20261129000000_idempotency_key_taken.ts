import { Migration } from '@mikro-orm/migrations';

/**
 * The submission is one statement (server/services/reports.ts): when its Idempotency-Key belongs to another request,
 * the statement must record nothing, so it fails — this function raises the error it fails with (SQLSTATE FRA01), and
 * the service answers with the key's first receipt or 409 (server/services/idempotency.ts). PostgreSQL logs it as an
 * ERROR line, "idempotency key taken by another request", once per replayed or concurrent duplicate.
 */
export class Migration20261129000000_idempotency_key_taken extends Migration {
  override name = 'Migration20261129000000_idempotency_key_taken';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function fra_idempotency_key_taken() returns boolean language plpgsql volatile as $$
      begin
        raise exception using errcode = 'FRA01', message = 'idempotency key taken by another request';
      end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop function if exists fra_idempotency_key_taken();');
  }
}
