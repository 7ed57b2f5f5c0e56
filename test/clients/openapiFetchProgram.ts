/**
 * A small integrator's program over a client generated from schema/openapi.yaml (openapi-typescript types +
 * openapi-fetch). test/integration/openapi-client.test.ts generates `test/artifacts/openapi-client/schema.ts`, type-checks this
 * file against it with tsc, then runs it against the real app; test/integration/generated-clients.test.ts compiles
 * a copy against the types generated from the served document. It must compile as an integrator would write it:
 * no casts (an item's `sp_result` is typed by narrowing on its `slug`).
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../artifacts/openapi-client/schema.ts';

type Submission = components['schemas']['Submission'];

// Optional fields stay optional in the generated types (a `default` used to make them required).
export const minimal: Submission = {
  accounting_standard: 'general_new',
  year_start: 2023,
  year_end: 2024,
  years_data: [],
};

export interface ProgramResult {
  reportId: string;
  replayedReportId: string;
  status: components['schemas']['ReportStatus'];
  taskDone: boolean;
  listed: string[];
  years: number[];
  operatingRevenue: number | null | undefined;
}

export async function run(baseUrl: string, apiKey: string, body: Submission): Promise<ProgramResult> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
  const idempotencyKey = crypto.randomUUID();
  const submit = () =>
    client.POST('/api/v1/developer/reports/financial', {
      body,
      params: { header: { 'Idempotency-Key': idempotencyKey } },
    });
  const submitted = await submit();
  if (!submitted.data) throw new Error(`submit failed: ${JSON.stringify(submitted.error)}`);
  const reportId = submitted.data.report_id;
  // A retry after a network error: the same key and body give back the same report.
  const retried = await submit();
  if (!retried.data) throw new Error('retry failed');

  let status: components['schemas']['ReportStatus'] = 'pending';
  while (status === 'pending') {
    const polled = await client.GET('/api/v1/developer/reports/{report_id}', {
      params: { path: { report_id: reportId } },
    });
    if (!polled.data) throw new Error(`poll failed: ${JSON.stringify(polled.error)}`);
    status = polled.data.status;
    if (status === 'pending') {
      const seconds = Number(polled.response.headers.get('Retry-After') ?? '2');
      await new Promise((resolve) => setTimeout(resolve, Math.min(seconds * 1000, 100)));
    }
  }
  const task = await client.GET('/api/v1/developer/tasks/{task_id}', {
    params: { path: { task_id: submitted.data.task_id } },
  });

  const list = await client.GET('/api/v1/developer/reports', { params: { query: { limit: 10 } } });
  if (!list.data) throw new Error('list failed');

  const item = await client.GET('/api/v1/developer/reports/{report_id}/analysis/{slug}', {
    params: { path: { report_id: reportId, slug: 'revenue' } },
  });
  if (!item.data) throw new Error(`item failed: ${JSON.stringify(item.error)}`);
  // The item is a union on `slug`: narrowing it types sp_result, with no cast.
  const revenueItem = item.data;
  if (revenueItem.slug !== 'revenue') throw new Error(`asked for revenue, got ${revenueItem.slug}`);
  const series = revenueItem.sp_result.series;

  return {
    reportId,
    replayedReportId: retried.data.report_id,
    status,
    taskDone: task.data?.done ?? false,
    listed: list.data.data.map((report) => report.report_id),
    years: series.map((entry) => entry.year),
    operatingRevenue: revenueItem.sp_result.operating_revenue,
  };
}

/** Typed problem bodies: a 422 narrowed by its `code` lists `errors[].path`; a 404 names its code. */
export async function problems(baseUrl: string, apiKey: string, body: Submission, reportId: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
  const submitted = await client.POST('/api/v1/developer/reports/financial', { body });
  const paths: string[] =
    submitted.error?.code === 'validation_failed' ? (submitted.error.errors?.map((e) => e.path) ?? []) : [];
  const item = await client.GET('/api/v1/developer/reports/{report_id}/analysis/{slug}', {
    params: { path: { report_id: reportId, slug: 'no_such_slug' } },
  });
  const missing: 'not_found' | 'analysis_item_not_found' | undefined =
    item.error?.status === 404 ? item.error.code : undefined;
  return { paths, missing };
}

/** A webhook body (verified first, docs/webhooks.md), read by its `type`. */
export function parseWebhook(rawBody: string): string {
  const event: components['schemas']['WebhookEvent'] = JSON.parse(rawBody);
  if (event.type === 'report.succeeded') return `${event.data.report_id} ${event.data.share_url ?? ''}`;
  if (event.type === 'report.failed') return event.data.error_message ?? '';
  return event.data.endpoint_id;
}
