import { Migration } from '@mikro-orm/migrations';

export class Migration20261121060231 extends Migration {
  override name = 'Migration20261121060231';

  override up(): void | Promise<void> {
    this.addSql(`alter table "reports" add "ai_usage" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "reports" drop column "ai_usage";`);
  }
}
