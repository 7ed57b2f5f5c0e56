/**
 * Industry benchmarking end to end on PostgreSQL: loading sets from CSV (CLI and service, good and broken files,
 * nothing half loaded), the sets API (REST and GraphQL), a verdict that changes once an industry set is loaded,
 * an old report that reads the same after a new edition is loaded, the peer minimum, peers kept as reports
 * succeed and are deleted, and an unknown industry code answered with a warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBenchmarkCsv } from '../../server/benchmarks/csv.ts';
import { importBenchmarkSet } from '../../server/benchmarks/sets.ts';
import { runSql } from '../../server/db/sql.ts';
import { graphql } from '../helpers/graphql.ts';
import { runCli } from '../helpers/process.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const HEADER =
  'industry_code,size_class,indicator,excellent,good,average,low,poor,p10,p25,p50,p75,p90,n,mean';
/** Bands for C39 that put general_new-3y's debt ratio and returns in other bands than the all-industry table. */
const C39_SET = [
  HEADER,
  'C39,all,long_term_liability.debt_to_asset_ratio,20,25,30,35,40,,,,,,,',
  'C39,all,profitability.roe,40,35,30,25,20,,,,,,,',
  'C39,all,business_input_profitability.total_asset_return,30,25,20,15,10,,,,,,,',
].join('\n');

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
type Json = any;

describe('industry benchmarking', { timeout: 180_000 }, () => {
  let service: TestService;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), 'fra-bench-'));

  beforeAll(async () => {
    service = await startTestService('postgres', { benchmarkPeerMinimum: 3 });
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const em = () => service.services.db.orm.em.fork();
  const count = async (table: string) =>
    Number((await runSql<{ n: string }>(em(), `select count(*) as n from ${table}`))[0]!.n);

  async function submit(name: string, info: Record<string, unknown> = {}, apiKey = key) {
    const body = fixture('general_new-3y');
    body.enterprise_name = name;
    body.enterprise_info = { ...(body.enterprise_info as object), ...info };
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: apiKey,
      body,
    });
    expect(submitted.status, submitted.text).toBe(202);
    const done = await waitForReport(service, apiKey, submitted.body.report_id);
    expect(done.body.status).toBe('success');
    return { id: submitted.body.report_id as string, warnings: submitted.body.validation_warnings as Json[] };
  }
  const item = async (reportId: string, slug: string, apiKey = key): Promise<Json> =>
    (await service.request(`/api/v1/developer/reports/${reportId}/analysis/${slug}`, { key: apiKey })).body;

  it('loads a good CSV with the CLI and refuses a broken one line by line, loading nothing of it', async () => {
    const env = { DATABASE_URL: service.db.databaseUrl!, DATA_DIR: '' };
    const broken = join(dir, 'broken.csv');
    writeFileSync(
      broken,
      [
        HEADER,
        'C36,all,long_term_liability.debt_to_asset_ratio,45,55,62,70,78,,,,,,,',
        'C99,all,long_term_liability.debt_to_asset_ratio,45,55,62,70,78,,,,,,,',
        'C36,huge,profitability.roe,14,10,6,2,-3,,,,,,,',
        'C36,all,profitability.no_such_key,14,10,6,2,-3,,,,,,,',
        'C36,all,profitability.roe,14,10,16,2,-3,,,,,,,',
        'C36,all,business_input_profitability.total_asset_return,,,,,,1,2,3,4,5,,',
      ].join('\n'),
    );
    const before = await count('benchmark_rows');
    const refused = await runCli(
      [
        'benchmarks',
        'import',
        broken,
        '--name',
        'Broken',
        '--source',
        'test',
        '--edition',
        '1',
        '--data-year',
        '2023',
      ],
      env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('line 3.industry_code: unknown industry code "C99"');
    expect(refused.stderr).toContain('line 4.size_class: unknown size class "huge"');
    expect(refused.stderr).toContain('line 5.indicator: unknown indicator "profitability.no_such_key"');
    expect(refused.stderr).toContain('line 6.excellent: bands out of order');
    expect(refused.stderr).toContain('line 7.n: quantiles need n');
    expect(await count('benchmark_rows')).toBe(before);
    expect(await count('benchmark_sets')).toBe(0);

    const good = join(dir, 'good.csv');
    writeFileSync(good, [HEADER, 'C36,large,profitability.roe,,,,,,1,3,6,9,14,40,'].join('\n'));
    const loaded = await runCli(
      [
        'benchmarks',
        'import',
        good,
        '--name',
        'CLI set',
        '--source',
        'test',
        '--edition',
        '2024',
        '--data-year',
        '2023',
      ],
      env,
    );
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stdout).toMatch(/Loaded [0-9a-f-]{36} {2}CLI set · 2024 · 数据年度 2023 · 1 rows/);
    const id = /Loaded ([0-9a-f-]{36})/.exec(loaded.stdout)![1]!;
    await expect(
      importBenchmarkSet(em(), { name: 'CLI set', source: 'test', edition: '2024', dataYear: 2023 }, []),
    ).rejects.toThrow(/already loaded/);
    const retired = await runCli(['benchmarks', 'retire', id], env);
    expect(retired.code, retired.stderr).toBe(0);
    const listed = await runCli(['benchmarks', 'list'], env);
    expect(listed.stdout).not.toContain(id);
    expect(listed.stdout).toContain('builtin-nbs-industry-2023');
  });

  it('states its fallbacks and records the built-in sets when no industry set covers the division', async () => {
    const { id } = await submit('回退企业');
    const bench = await item(id, 'industry_benchmark');
    expect(bench.label).toBe('行业对标');
    const sp = bench.sp_result;
    expect(sp.industry).toMatchObject({ code: 'C39', level: 'division' });
    // 320 employees (≥ 300) and revenue ≥ 2000万元 but < 40000万元 → 中型 by the NBS 2017 工业 thresholds.
    expect(sp.size_class.value).toBe('medium');
    expect(sp.size_class.basis).toContain('从业人员320人');
    const debt = sp.rows.find((r: Json) => r.indicator === 'long_term_liability.debt_to_asset_ratio');
    const nbs = debt.benchmarks.find((b: Json) => b.set_id === 'builtin-nbs-industry-2023');
    expect(nbs).toMatchObject({
      level: 'section',
      industry_code: 'C',
      mean: 57.1,
      data_year: 2023,
      year_gap: 1,
    });
    expect(nbs.fallback).toContain('大类C39无此指标基准，采用门类C');
    const sasac = debt.benchmarks.find((b: Json) => b.set_id === 'builtin-sasac-all-industry');
    expect(sasac.level).toBe('all');
    expect(sasac.fallback).toContain('采用全行业');
    const recorded = await runSql<{ set_id: string }>(
      em(),
      'select set_id from report_benchmark_sets where report_id = $1 order by set_id',
      [id],
    );
    expect(recorded.map((r) => r.set_id)).toEqual([
      'builtin-nbs-industry-2023',
      'builtin-sasac-all-industry',
    ]);
    const core = await item(id, 'core_risk_insight');
    expect(core.sp_result.verdict.benchmark.every((b: Json) => b.set_id === null && b.level === 'all')).toBe(
      true,
    );
  });

  it('bands the verdict with a loaded industry set, and leaves an older report as it was', async () => {
    const before = await submit('对标企业');
    const oldCore = await item(before.id, 'core_risk_insight');
    const oldBench = await item(before.id, 'industry_benchmark');

    const set = await importBenchmarkSet(
      em(),
      { name: '测试行业标准值', source: 'test', edition: '第1版', dataYear: 2024 },
      await readBenchmarkCsv(C39_SET),
    );
    const after = await submit('对标企业');
    const core = (await item(after.id, 'core_risk_insight')).sp_result;
    expect(core.verdict.score).not.toBe(oldCore.sp_result.verdict.score);
    const debt = core.verdict.benchmark.find((b: Json) => b.key === 'debt_to_asset_ratio');
    expect(debt).toMatchObject({
      set_id: set.id,
      set_name: '测试行业标准值',
      industry_code: 'C39',
      level: 'division',
    });
    const bench = (await item(after.id, 'industry_benchmark')).sp_result;
    expect(bench.sets_used.map((s: Json) => s.set_id)).toContain(set.id);

    // A new edition of the set changes neither report already computed.
    await importBenchmarkSet(
      em(),
      { name: '测试行业标准值', source: 'test', edition: '第2版', dataYear: 2024 },
      await readBenchmarkCsv(C39_SET.replace('20,25,30,35,40', '60,65,70,75,80')),
    );
    expect(await item(before.id, 'core_risk_insight')).toEqual(oldCore);
    expect(await item(before.id, 'industry_benchmark')).toEqual(oldBench);
    expect((await item(after.id, 'core_risk_insight')).sp_result).toEqual(core);
    const recorded = await runSql<{ set_id: string }>(
      em(),
      'select set_id from report_benchmark_sets where report_id = $1',
      [after.id],
    );
    expect(recorded.map((r) => r.set_id)).toContain(set.id);
  });

  it('shows the peers only from the minimum on, never one peer, and forgets a deleted report', async () => {
    const peerKey = await service.newKey('test');
    const info = { industry_division_code: 'C31', industry_sector_code: 'C' };
    const peersOf = async (reportId: string) => {
      const sp = (await item(reportId, 'industry_benchmark', peerKey)).sp_result;
      return sp.rows.find((r: Json) => r.indicator === 'long_term_liability.debt_to_asset_ratio').peers;
    };
    const first = await submit('同业一', info, peerKey);
    expect(await peersOf(first.id)).toMatchObject({ n: 0, minimum: 3, quantiles: null });
    await submit('同业二', info, peerKey);
    const third = await submit('同业三', info, peerKey);
    expect(await peersOf(third.id)).toMatchObject({ n: 2, quantiles: null, position: null });
    // A second report of the same enterprise replaces its first as a peer: still three enterprises.
    await submit('同业三', info, peerKey);
    const fourth = await submit('同业四', info, peerKey);
    const shown = await peersOf(fourth.id);
    expect(shown.n).toBe(3);
    expect(shown.quantiles).toEqual(
      expect.objectContaining({ p10: expect.any(Number), p90: expect.any(Number) }),
    );
    expect(Object.keys(shown).sort()).toEqual([
      'industry_code',
      'minimum',
      'n',
      'position',
      'quantiles',
      'year',
    ]);
    // Another mode of the same account sees none of them.
    const live = await service.newKey('live');
    const elsewhere = await submit('同业五', info, live);
    expect((await item(elsewhere.id, 'industry_benchmark', live)).sp_result.rows[0].peers.n).toBe(0);

    const deleted = await service.request(`/api/v1/developer/reports/${first.id}`, {
      method: 'DELETE',
      key: peerKey,
    });
    expect(deleted.status).toBe(204);
    expect(await runSql(em(), 'select 1 from peer_values where report_id = $1', [first.id])).toHaveLength(0);
    const fifth = await submit('同业六', info, peerKey);
    expect((await peersOf(fifth.id)).n).toBe(3);
  });

  it('answers an unknown industry code with a warning, never a rejection', async () => {
    const { id, warnings } = await submit('代码有误企业', {
      industry_division_code: 'X99',
      industry_sector_code: 'C',
    });
    expect(warnings).toContainEqual(
      expect.objectContaining({
        code: 'industry_code_unknown',
        path: 'enterprise_info.industry_division_code',
      }),
    );
    const sp = (await item(id, 'industry_benchmark')).sp_result;
    expect(sp.industry).toMatchObject({ code: 'C', level: 'section' });
  });

  it('lists the usable sets over REST and GraphQL alike', async () => {
    const rest = await service.request('/api/v1/developer/benchmarks', { key });
    expect(rest.status).toBe(200);
    const ids = rest.body.sets.map((s: Json) => s.id);
    expect(ids).toContain('builtin-sasac-all-industry');
    expect(rest.body.sets.find((s: Json) => s.name === 'CLI set')).toBeUndefined();
    const gql = await graphql(
      service,
      key,
      '{ benchmarkSets { id name edition dataYear builtin rowCount industryCodes } }',
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.benchmarkSets.map((s: Json) => s.id)).toEqual(ids);
    expect((await service.request('/api/v1/developer/benchmarks')).status).toBe(401);
  });
});
