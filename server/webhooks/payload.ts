/**
 * The webhook event bodies and their one serialisation (docs/webhooks.md; the `webhooks` section of
 * schema/openapi.yaml types them). Every event — report.succeeded, report.failed, webhook.test — is built here and
 * turned into the bytes that are stored, signed and POSTed by `serialiseEvent` alone, so a test event and a real
 * one have the same envelope, key order and formatting (compact JSON, UTF-8): a receiver that works for one works
 * for the other.
 */

export type ReportEventType = 'report.succeeded' | 'report.failed';
export type WebhookEventType = ReportEventType | 'webhook.test';

export interface ReportEventData {
  report_id: string;
  task_id: string;
  status: 'success' | 'failed';
  version_no: number;
  /** The public share link (absolute, APP_URL); null when the report has none (a failed report). */
  share_url: string | null;
  error_message: string | null;
}

export interface TestEventData {
  endpoint_id: string;
}

export type WebhookEvent =
  | { type: ReportEventType; timestamp: string; data: ReportEventData }
  | { type: 'webhook.test'; timestamp: string; data: TestEventData };

/** A finished report as emitReportEvent reads it. */
export interface FinishedReport {
  id: string;
  task_id: string;
  status: 'success' | 'failed';
  version_no: number;
  share_token: string | null;
  error_message: string | null;
}

/** report.succeeded or report.failed, by the report's status; `sharedBase` is `${APP_URL}/shared/reports/`. */
export function reportEvent(report: FinishedReport, sharedBase: string, at: Date): WebhookEvent {
  return {
    type: report.status === 'success' ? 'report.succeeded' : 'report.failed',
    timestamp: at.toISOString(),
    data: {
      report_id: report.id,
      task_id: report.task_id,
      status: report.status,
      version_no: Number(report.version_no),
      share_url: report.share_token === null ? null : `${sharedBase}${report.share_token}`,
      error_message: report.error_message,
    },
  };
}

export function testEvent(endpointId: string, at: Date): WebhookEvent {
  return { type: 'webhook.test', timestamp: at.toISOString(), data: { endpoint_id: endpointId } };
}

/** The body of every delivery: the envelope's keys in one order (type, timestamp, data), compact JSON. */
export function serialiseEvent(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}
