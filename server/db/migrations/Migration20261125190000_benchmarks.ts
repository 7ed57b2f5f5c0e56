import { Migration } from '@mikro-orm/migrations';

/**
 * Industry benchmarking (docs/benchmarks.md): the benchmark sets an operator loads and their rows (a loaded set
 * never changes; a new edition is a new set), the sets each report was computed against, and the account's
 * peer values — one row per successful report and scored indicator, deleted with the report.
 */
export class Migration20261125190000_benchmarks extends Migration {
  override name = 'Migration20261125190000_benchmarks';

  override up(): void | Promise<void> {
    this.addSql(`create table "benchmark_sets" (
      "id" uuid not null, "name" text not null, "source" text not null, "edition" text not null,
      "data_year" int null, "licence" text null, "row_count" int not null, "loaded_at" timestamptz not null,
      "retired_at" timestamptz null, primary key ("id"),
      constraint "benchmark_sets_name_edition_unique" unique ("name", "edition"));`);
    this.addSql(`create table "benchmark_rows" (
      "set_id" uuid not null references "benchmark_sets" ("id") on delete cascade, "line" int not null,
      "industry_code" text not null, "size_class" text not null, "indicator" text not null,
      "excellent" double precision null, "good" double precision null, "average" double precision null,
      "low" double precision null, "poor" double precision null, "p10" double precision null,
      "p25" double precision null, "p50" double precision null, "p75" double precision null,
      "p90" double precision null, "n" int null, "mean" double precision null,
      primary key ("set_id", "line"));`);
    this.addSql(`create index "benchmark_rows_industry_index" on "benchmark_rows" ("industry_code");`);
    this.addSql(`create table "report_benchmark_sets" (
      "report_id" uuid not null references "reports" ("id") on delete cascade, "set_id" text not null,
      "set_name" text not null, "edition" text not null, "data_year" int null,
      primary key ("report_id", "set_id"));`);
    this.addSql(`create table "peer_values" (
      "report_id" uuid not null references "reports" ("id") on delete cascade, "account_id" uuid not null,
      "mode" text not null, "industry_code" text not null, "year" int not null, "enterprise_id" uuid not null,
      "indicator" text not null, "value" double precision not null, "completed_at" timestamptz not null,
      primary key ("report_id", "indicator"));`);
    this.addSql(
      `create index "peer_values_group_index" on "peer_values" ("account_id", "mode", "industry_code", "year", "enterprise_id", "completed_at");`,
    );
  }
}
