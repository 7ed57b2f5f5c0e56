import { Migration } from '@mikro-orm/migrations';

/**
 * When an account's password was last set (sign-up, change, operator reset): a password change lists the keys
 * made since then — every key someone holding the old password could have minted (issue 21).
 */
export class Migration20261125190000_password_changed_at extends Migration {
  override name = 'Migration20261125190000_password_changed_at';

  override up(): void | Promise<void> {
    this.addSql(`alter table "accounts" add column "password_changed_at" timestamptz null;`);
  }
}
