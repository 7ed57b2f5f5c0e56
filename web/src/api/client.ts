/** The SPA's only API client so far: the public, key-less share endpoint. */
import type { SharedReport } from './types.ts';

export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function fetchSharedReport(token: string, signal?: AbortSignal): Promise<SharedReport> {
  const response = await fetch(`/api/v1/shared/reports/${encodeURIComponent(token)}`, {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try {
      const problem = (await response.json()) as { detail?: string };
      if (problem.detail) detail = problem.detail;
    } catch {
      // not a problem document
    }
    throw new ApiError(response.status, detail);
  }
  return (await response.json()) as SharedReport;
}
