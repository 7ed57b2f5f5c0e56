/**
 * No N+1: a page of reports with their enterprises, tasks and analysis items costs the same, small number of
 * SQL statements whether it holds 5 reports or 50. Statements are counted in process, at MikroORM's query
 * logger, which every ORM query passes through (the setup below writes over a separate connection).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/database.ts';
import { graphql } from '../helpers/graphql.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const PAGE = `query Page($first: Int!) {
  reports(first: $first) {
    edges { cursor node {
      reportId name status versionNo share { webUrl }
      enterprise { id name info { city industrySector } }
      task { status step }
      analysis { slug label spResult riskItems { level message } }
      revenue: analysisItem(slug: "revenue") { slug }
    } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe('GraphQL query counts on postgres', () => {
  let service: TestService;
  let client: pg.Client;
  let key: string;

  beforeAll(async () => {
    // One point per request: this file counts the statements of data loading, and pricing reads by cost adds one
    // rate-limit statement to a costly query (docs/api-behaviour.md#rate-limits; tested in tenant-fairness).
    service = await startTestService('postgres', { graphqlCostPerRead: 0 });
    client = await connect(service.db.databaseUrl!);
    const email = `counts-${randomUUID()}@example.com`;
    key = await service.newKey('test', email);

    // One real report, analysed by the service; 49 copies of it (each with its own enterprise, task and
    // analysis rows), copied column for column so the copies stay right when the tables grow.
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    const source = submitted.body.report_id as string;
    await waitForReport(service, key, source);
    const copy = (table: string, where: string, overrides: string) =>
      `insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || ${overrides})).* from ${table} t where ${where}`;
    for (let i = 1; i < 50; i++) {
      const enterpriseId = randomUUID();
      const reportId = randomUUID();
      await client.query(
        copy('enterprises', 'id = $1', `jsonb_build_object('id', $2::uuid, 'name', $3::text)`),
        [submitted.body.enterprise_id, enterpriseId, `复制企业-${i}`],
      );
      await client.query(
        copy(
          'reports',
          'id = $1',
          `jsonb_build_object('id', $2::uuid, 'enterprise_id', $3::uuid, 'share_token', $4::text, 'created_at', t.created_at + make_interval(secs => $5::int))`,
        ),
        [source, reportId, enterpriseId, randomBytes(32).toString('base64url'), i],
      );
      await client.query(
        copy('tasks', 'report_id = $1', `jsonb_build_object('id', $2::uuid, 'report_id', $3::uuid)`),
        [source, randomUUID(), reportId],
      );
      await client.query(
        copy('analysis_results', 'report_id = $1', `jsonb_build_object('report_id', $2::uuid)`),
        [source, reportId],
      );
    }
  });
  afterAll(async () => {
    await client?.end();
    await service?.close();
  });

  /** The SQL statements the ORM runs while `run` runs. */
  async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
    const logger = service.services.db.orm.config.getLogger();
    const original = logger.logQuery.bind(logger);
    const statements: string[] = [];
    logger.logQuery = (context) => {
      statements.push(context.query ?? '');
      return original(context);
    };
    try {
      await run();
    } finally {
      logger.logQuery = original;
    }
    return statements;
  }

  async function page(first: number) {
    const response = await graphql(service, key, PAGE, { first });
    expect(response.body.errors, response.text).toBeUndefined();
    return response.body.data.reports;
  }

  it('reads 50 reports with enterprise, task and analysis in a constant number of statements', async () => {
    await page(1); // the key's last_used_at is written on its first use in a minute; not part of a read

    let small: { edges: unknown[] } | undefined;
    let large: { edges: Array<{ node: { analysis: unknown[]; enterprise: { name: string } } }> } | undefined;
    const smallStatements = await statementsOf(async () => {
      small = await page(5);
    });
    const largeStatements = await statementsOf(async () => {
      large = await page(50);
    });

    expect(small?.edges).toHaveLength(5);
    expect(large?.edges).toHaveLength(50);
    expect(new Set(large?.edges.map((edge) => edge.node.enterprise.name)).size).toBe(50);
    for (const edge of large?.edges ?? []) expect(edge.node.analysis.length).toBeGreaterThan(40);

    // The page, enterprises, tasks, analysis items (the key lookup is a prepared statement outside the ORM).
    expect(largeStatements, largeStatements.join('\n')).toHaveLength(4);
    expect(largeStatements.length).toBe(smallStatements.length);
  });
});
