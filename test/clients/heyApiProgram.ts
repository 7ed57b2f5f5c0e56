/**
 * An integrator's program against the client @hey-api/openapi-ts generates from the served document
 * (test/integration/generated-clients.test.ts): it must type-check under `tsc --strict` with no cast.
 */
import { client } from '../artifacts/clients/hey-api/client.gen.ts';
import {
  getAnalysisItem,
  getReport,
  listReports,
  submitFinancialReport,
} from '../artifacts/clients/hey-api/sdk.gen.ts';
import type { Submission, WebhookEvent } from '../artifacts/clients/hey-api/types.gen.ts';

export async function flow(baseUrl: string, apiKey: string, body: Submission) {
  client.setConfig({ baseUrl, headers: { 'X-API-Key': apiKey } });
  const submitted = await submitFinancialReport({ body });
  if (submitted.error) {
    // A typed 422: the code narrows the problem body, `errors` is an array of { path, message }.
    if (submitted.error.code === 'validation_failed') return submitted.error.errors?.map((e) => e.path) ?? [];
    return [submitted.error.code];
  }
  const reportId = submitted.data.report_id;
  const report = await getReport({ path: { report_id: reportId } });
  const status: 'pending' | 'success' | 'failed' | undefined = report.data?.status;
  const list = await listReports({ query: { limit: 10 } });
  const ids: string[] = list.data?.data.map((r) => r.report_id) ?? [];
  const item = await getAnalysisItem({ path: { report_id: reportId, slug: 'revenue' } });
  if (item.error) {
    // A typed 404.
    const code: 'not_found' | 'analysis_item_not_found' | undefined =
      item.error.status === 404 ? item.error.code : undefined;
    return [code ?? item.error.code];
  }
  if (item.data.slug !== 'revenue') return [];
  const revenue: number | null | undefined = item.data.sp_result.operating_revenue;
  const years: number[] = item.data.sp_result.series.map((entry) => entry.year);
  return [status, ...ids, String(revenue), ...years.map(String)];
}

export function parseWebhook(rawBody: string): string {
  const event: WebhookEvent = JSON.parse(rawBody);
  if (event.type === 'report.succeeded') return `${event.data.report_id} ${event.data.share_url ?? ''}`;
  if (event.type === 'report.failed') return event.data.error_message ?? '';
  return event.data.endpoint_id;
}
