/**
 * The verdict's backtest: every submission body in a folder of real filings, each with a label file, scored by
 * the real validator, normaliser and engine; the ranking, AUC and KS of the scores against the labels.
 *
 * A folder holds `<name>.label.json` files: { label: 'healthy' | 'distressed', event, event_year, source,
 * body? }. The body is `<name>.json` beside the label, or the path given in `body` (relative to the folder), so
 * a filing kept elsewhere (test/fixtures/real) is reused rather than copied.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { validateSubmission } from '../../schema/submission.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';

export type Label = 'healthy' | 'distressed';

export interface LabelFile {
  label: Label;
  /** What happened (or "none"), e.g. "2019年起连续亏损，2020年*ST". */
  event: string;
  /** The year of the event (null for a healthy filing). */
  event_year: number | null;
  /** Where the label's event is published. */
  source: string;
  /** The body's path relative to the folder (default `<name>.json`). */
  body?: string;
}

export interface BacktestRow {
  name: string;
  label: Label;
  event: string;
  event_year: number | null;
  years: string;
  grade: string;
  score: number;
  /** Share of the scorecard weight scored, % (null where the engine does not report it). */
  coverage: number | null;
  /** reliable | questionable | unreliable (null where the engine does not report it). */
  data_quality: string | null;
  provisional: boolean | null;
}

/** Scores one submission body as the service would: the core risk insight's verdict. */
export function scoreBody(body: unknown): Omit<BacktestRow, 'name' | 'label' | 'event' | 'event_year'> {
  const validation = validateSubmission(body);
  if (!validation.ok) throw new Error(`invalid body: ${JSON.stringify(validation)}`);
  const { report } = normaliseSubmission(validation.value);
  const [core] = assembleReportItems(computeAnalysis(report, ANALYSIS_SLUGS));
  const verdict = core!.sp_result.verdict as Record<string, unknown>;
  const coverage = verdict.coverage as { weight_share?: number } | undefined;
  const quality = verdict.data_quality as { level?: string } | undefined;
  const years = report.years.map((y) => y.year);
  return {
    years: `${years[0]}–${years.at(-1)}`,
    grade: String(verdict.grade),
    score: Number(verdict.score),
    coverage: typeof coverage?.weight_share === 'number' ? coverage.weight_share : null,
    data_quality: quality?.level ?? null,
    provisional: typeof verdict.provisional === 'boolean' ? verdict.provisional : null,
  };
}

/** Scores every labelled filing of `dir`, best score first. */
export function runBacktest(dir: string): BacktestRow[] {
  const rows: BacktestRow[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.label.json'))
    .sort()) {
    const name = file.slice(0, -'.label.json'.length);
    const label = JSON.parse(readFileSync(join(dir, file), 'utf8')) as LabelFile;
    if (label.label !== 'healthy' && label.label !== 'distressed')
      throw new Error(`${file}: label must be healthy|distressed`);
    const body = JSON.parse(readFileSync(resolve(dir, label.body ?? `${name}.json`), 'utf8')) as unknown;
    rows.push({
      name,
      label: label.label,
      event: label.event,
      event_year: label.event_year,
      ...scoreBody(body),
    });
  }
  return rows.sort((a, b) => b.score - a.score);
}

/**
 * Area under the ROC curve of the score as a predictor of `healthy` (1 = every healthy filing above every
 * distressed one; ties count one half). Null unless both labels occur.
 */
export function auc(rows: readonly Pick<BacktestRow, 'label' | 'score'>[]): number | null {
  const healthy = rows.filter((r) => r.label === 'healthy');
  const distressed = rows.filter((r) => r.label === 'distressed');
  if (healthy.length === 0 || distressed.length === 0) return null;
  let wins = 0;
  for (const h of healthy)
    for (const d of distressed) wins += h.score > d.score ? 1 : h.score === d.score ? 0.5 : 0;
  return wins / (healthy.length * distressed.length);
}

/**
 * Kolmogorov–Smirnov statistic: the largest gap between the empirical score distributions of the two labels
 * (1 = the scores separate the labels completely). Null unless both labels occur.
 */
export function ks(rows: readonly Pick<BacktestRow, 'label' | 'score'>[]): number | null {
  const healthy = rows.filter((r) => r.label === 'healthy').map((r) => r.score);
  const distressed = rows.filter((r) => r.label === 'distressed').map((r) => r.score);
  if (healthy.length === 0 || distressed.length === 0) return null;
  const cdf = (xs: number[], t: number) => xs.filter((x) => x <= t).length / xs.length;
  let best = 0;
  for (const t of [...healthy, ...distressed])
    best = Math.max(best, Math.abs(cdf(healthy, t) - cdf(distressed, t)));
  return best;
}

/**
 * The pairs that break the ranking the issue asks for: a distressed filing scoring at or above a healthy one
 * (empty when every distressed filing scores below every healthy one).
 */
export function misranked(
  rows: readonly Pick<BacktestRow, 'name' | 'label' | 'score'>[],
): { distressed: string; healthy: string }[] {
  const healthy = rows.filter((r) => r.label === 'healthy');
  return rows
    .filter((r) => r.label === 'distressed')
    .flatMap((d) =>
      healthy.filter((h) => d.score >= h.score).map((h) => ({ distressed: d.name, healthy: h.name })),
    );
}

/** The printed table (Markdown, so it can go into docs/verdict.md as is). */
export function formatBacktest(rows: readonly BacktestRow[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  const lines = [
    '| rank | filing | years | label | event | grade | score | coverage % | data quality | provisional |',
    '|---:|---|---|---|---|---|---:|---:|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${r.name} | ${r.years} | ${r.label} | ${r.event} | ${r.grade} | ${r.score.toFixed(2)} | ${cell(r.coverage)} | ${cell(r.data_quality)} | ${cell(r.provisional)} |`,
    ),
  ];
  const a = auc(rows);
  const k = ks(rows);
  lines.push(
    '',
    `AUC ${a === null ? 'n/a (needs both labels)' : a.toFixed(3)} · KS ${k === null ? 'n/a (needs both labels)' : k.toFixed(3)} · ${rows.length} filings`,
  );
  const wrong = misranked(rows);
  if (wrong.length > 0)
    lines.push(
      '',
      `Distressed at or above healthy (${wrong.length}): ${wrong.map((p) => `${p.distressed} ≥ ${p.healthy}`).join(', ')}`,
    );
  return lines.join('\n');
}
