/**
 * The console's sign-in calls (REST under /api/v1/console, docs/console.md). The session itself is an
 * HttpOnly cookie the browser keeps; what the page holds is the CSRF token these answers carry.
 */

export interface ConsoleSessionInfo {
  email: string;
  csrf_token: string;
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** A failed console request: REST problem documents and GraphQL errors alike. */
export class ConsoleApiError extends Error {
  readonly status: number;
  /** The service's code in lower case: `unauthenticated`, `email_taken`, `too_many_requests`, … */
  readonly code: string;
  readonly fieldErrors: FieldProblem[];
  /** Seconds to wait (429). */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { fieldErrors?: FieldProblem[]; retryAfter?: number | null } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.fieldErrors = extra.fieldErrors ?? [];
    this.retryAfter = extra.retryAfter ?? null;
  }
}

/** A network failure (offline, server down) as a ConsoleApiError, so callers handle one kind. */
export function networkError(error: unknown): ConsoleApiError {
  return new ConsoleApiError(0, 'network_error', error instanceof Error ? error.message : String(error));
}

async function problemOf(response: Response): Promise<ConsoleApiError> {
  let body: { code?: string; detail?: string; errors?: FieldProblem[] } = {};
  try {
    body = await response.json();
  } catch {
    // not a problem document (a proxy's error page)
  }
  const retryAfter = Number(response.headers.get('Retry-After'));
  return new ConsoleApiError(
    response.status,
    body.code ?? 'http_error',
    body.detail ?? `HTTP ${response.status}`,
    {
      fieldErrors: body.errors,
      retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    },
  );
}

async function send(path: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`/api/v1/console/${path}`, {
      ...init,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(init.headers ?? {}) },
    });
  } catch (error) {
    throw networkError(error);
  }
  if (!response.ok) throw await problemOf(response);
  return response;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** The signed-in user and CSRF token, or null when not signed in. */
export async function fetchSession(): Promise<ConsoleSessionInfo | null> {
  try {
    return (await (await send('session', { method: 'GET' })).json()) as ConsoleSessionInfo;
  } catch (error) {
    if (error instanceof ConsoleApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signUp(email: string, password: string): Promise<ConsoleSessionInfo> {
  return (await (await send('signup', json({ email, password }))).json()) as ConsoleSessionInfo;
}

export async function logIn(email: string, password: string): Promise<ConsoleSessionInfo> {
  return (await (await send('login', json({ email, password }))).json()) as ConsoleSessionInfo;
}

export async function logOut(csrfToken: string | null): Promise<void> {
  await send('logout', { method: 'POST', headers: csrfToken ? { 'X-CSRF-Token': csrfToken } : {} });
}

/** An active key made since the password was last set, listed after a change for the owner to review. */
export interface RecentKeyInfo {
  id: string;
  name: string;
  mode: string;
  prefix: string;
  last_four: string;
  created_at: string;
}

/**
 * Changes the signed-in user's password; the server ends every session of the account and answers with a
 * new one for this page (new CSRF token; the cookie is replaced) and the keys made under the old password.
 */
export async function changePassword(
  csrfToken: string,
  currentPassword: string,
  newPassword: string,
): Promise<ConsoleSessionInfo & { recent_keys: RecentKeyInfo[] }> {
  const response = await send('password', {
    ...json({ current_password: currentPassword, new_password: newPassword }),
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken },
  });
  return (await response.json()) as ConsoleSessionInfo & { recent_keys: RecentKeyInfo[] };
}
