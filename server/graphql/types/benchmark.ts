/**
 * Benchmark sets (REST `GET /benchmarks`): the sets a report can be computed against, read-only (operators load
 * and retire sets with the CLI; docs/benchmarks.md).
 */
import { listUsableBenchmarkSets } from '../../benchmarks/sets.ts';
import { type BenchmarkSetView, presentBenchmarkSet } from '../../presenters/benchmarkPresenter.ts';
import { builder } from '../builder.ts';

const BenchmarkSetRef = builder.objectRef<BenchmarkSetView>('BenchmarkSet').implement({
  description:
    'A benchmark set: figures per industry (GB/T 4754-2017), size class and indicator, from one source and edition.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    source: t.exposeString('source'),
    edition: t.exposeString('edition'),
    dataYear: t.exposeInt('data_year', { nullable: true, description: 'The year the figures describe.' }),
    licence: t.exposeString('licence', { nullable: true }),
    builtin: t.exposeBoolean('builtin', {
      description: 'Shipped with the service (not loaded by an operator).',
    }),
    loadedAt: t.exposeString('loaded_at', {
      nullable: true,
      description: 'ISO 8601; null for a built-in set.',
    }),
    rowCount: t.exposeInt('row_count'),
    indicators: t.exposeStringList('indicators', { description: '`<slug>.<key>` of the catalogue.' }),
    industryCodes: t.exposeStringList('industry_codes', {
      description: '`all`, 门类 letters, 大类 / 中类 codes.',
    }),
  }),
});

builder.queryField('benchmarkSets', (t) =>
  t.field({
    type: [BenchmarkSetRef],
    description:
      'The benchmark sets a report can use: every active set, loaded ones newest first, then built-in.',
    resolve: async (_root, _args, ctx) =>
      (await listUsableBenchmarkSets(ctx.services, ctx.principal)).map(presentBenchmarkSet),
  }),
);
