/**
 * The console's GraphQL client: POST /graphql with the session cookie (same origin), the session's CSRF
 * token and the console's mode. Errors come back as ConsoleApiError with GraphQL's code in lower case
 * (`unauthenticated`, `not_found`, `validation_failed`, …), the same codes REST uses.
 */
import type { ConsoleMode } from '../lib/console.ts';
import { ConsoleApiError, type FieldProblem, networkError } from './console.ts';

export interface GraphQLAuth {
  csrfToken: string;
  mode: ConsoleMode;
}

interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; errors?: FieldProblem[] };
}

export async function graphqlRequest<T>(
  query: string,
  variables: Record<string, unknown>,
  auth: GraphQLAuth,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
        'X-CSRF-Token': auth.csrfToken,
        'X-Console-Mode': auth.mode,
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    throw networkError(error);
  }
  let body: { data?: T | null; errors?: GraphQLErrorBody[] };
  try {
    body = await response.json();
  } catch {
    throw new ConsoleApiError(response.status, 'http_error', `HTTP ${response.status}`);
  }
  const first = body.errors?.[0];
  if (first) {
    // The console asks one root field per operation: its first error is the operation's.
    throw new ConsoleApiError(
      response.status,
      (first.extensions?.code ?? 'internal_server_error').toLowerCase(),
      first.message,
      { fieldErrors: first.extensions?.errors },
    );
  }
  if (!response.ok || !body.data)
    throw new ConsoleApiError(response.status, 'http_error', `HTTP ${response.status}`);
  return body.data;
}
