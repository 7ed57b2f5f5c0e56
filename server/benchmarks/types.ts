/** A benchmark set as the service holds it: built-in (builtinSets.ts) or loaded by an operator (sets.ts). */
import type { Bands, Quantiles, SizeClass } from '../../worker/engine/benchmark.ts';

export interface SetRow {
  /** The CSV line it was read from (data lines start at 2), or its place in a built-in set. */
  line: number;
  /** `all`, a 门类 letter, a 大类 (`C38`) or a 中类 (`C381`), canonical. */
  industry_code: string;
  size_class: SizeClass;
  /** `<slug>.<key>` of the analysis catalogue. */
  indicator: string;
  bands: Bands | null;
  quantiles: Quantiles | null;
  n: number | null;
  mean: number | null;
  /** Per-row provenance (built-in sets). */
  note: string | null;
  /** The population's name when it is not the code's own (built-in NBS totals: B+C+D together). */
  industry_label?: string;
}

/** What names a set and where its figures come from (as stored and as presented). */
export interface SetIdentity {
  id: string;
  name: string;
  source: string;
  edition: string;
  data_year: number | null;
  licence: string | null;
}

export interface BenchmarkSet extends SetIdentity {
  builtin: boolean;
  loaded_at: Date | null;
  retired_at: Date | null;
  rows: SetRow[];
}
