/** What leaves the server about a benchmark set (REST `GET /benchmarks`, GraphQL `benchmarkSets`). */
import type { SetSummary } from '../benchmarks/sets.ts';
import type { SetIdentity } from '../benchmarks/types.ts';

export interface BenchmarkSetView extends SetIdentity {
  builtin: boolean;
  loaded_at: string | null;
  row_count: number;
  indicators: string[];
  industry_codes: string[];
}

export function presentBenchmarkSet(set: SetSummary): BenchmarkSetView {
  return {
    id: set.id,
    name: set.name,
    source: set.source,
    edition: set.edition,
    data_year: set.data_year,
    licence: set.licence,
    builtin: set.builtin,
    loaded_at: set.loaded_at ? new Date(set.loaded_at).toISOString() : null,
    row_count: set.row_count,
    indicators: set.indicators,
    industry_codes: set.industry_codes,
  };
}
