/**
 * An integrator's program against the fetch client orval generates from the served document
 * (test/integration/generated-clients.test.ts): it must type-check under `tsc --strict` with no cast.
 */
import {
  getAnalysisItem,
  getReport,
  listReports,
  type Submission,
  submitFinancialReport,
  type WebhookEvent,
} from '../artifacts/clients/orval/api.ts';

export async function flow(apiKey: string, body: Submission) {
  const init = { headers: { 'X-API-Key': apiKey } };
  const submitted = await submitFinancialReport(body, init);
  if (submitted.status === 422) {
    // A typed 422 (orval reduced it to `never` while the problem bodies were allOf with bare consts).
    const paths: string[] = submitted.data.errors?.map((e) => e.path) ?? [];
    const code: 'validation_failed' | 'idempotency_key_reused' = submitted.data.code;
    return [code, ...paths];
  }
  if (submitted.status !== 202) return [];
  const reportId = submitted.data.report_id;
  const report = await getReport(reportId, init);
  const status = report.status === 200 ? report.data.status : undefined;
  const list = await listReports({ limit: 10 }, init);
  const ids = list.status === 200 ? list.data.data.map((r) => r.report_id) : [];
  const item = await getAnalysisItem(reportId, 'revenue', init);
  if (item.status === 404) {
    const code: 'not_found' | 'analysis_item_not_found' = item.data.code;
    return [code];
  }
  if (item.status !== 200 || item.data.slug !== 'revenue') return [];
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
