/**
 * A GraphQL client for integration tests: POST /graphql on the running test service.
 */
import type { ApiResponse, TestService } from './service.ts';

export async function graphql(
  service: TestService,
  key: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return service.request('/graphql', {
    method: 'POST',
    key,
    body: { query, ...(variables ? { variables } : {}) },
    headers: { Accept: 'application/graphql-response+json', ...headers },
  });
}
