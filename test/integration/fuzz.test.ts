/**
 * A seeded property test against the real app on PostgreSQL: 2,000+ generated bodies — mutations of a valid
 * submission (wrong types, huge and odd strings, control characters and lone surrogates, deep nesting, odd
 * field names) sent to REST, GraphQL and the unauthenticated sign-in — and not one 5xx. One service, one
 * keep-alive client; budgets raised so the throttles do not answer instead of the validation.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

const RUNS = 2_100;
const SEED = 20_261_123;

type Json = unknown;

/** Every path of a JSON value (object keys and array indices), the root excluded. */
function pathsOf(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...prefix, i]);
      pathsOf(item, [...prefix, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push([...prefix, key]);
      pathsOf(item, [...prefix, key], out);
    }
  }
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json): void {
  let node = root as Record<string | number, Json>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, Json>;
  node[path.at(-1)!] = value;
}

/**
 * A deeply nested value goes into the body as text (JSON.stringify would overflow the TEST's stack): a
 * placeholder string is replaced by `{"a":[{"a":[…"x"…]}]}` once the rest is serialised.
 */
const NESTED = /"\\u0001nested:(\d+)"/g;
const nestedText = (depth: number) => {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 ? '[' : '{"a":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return `${open}"x"${close}`;
};
const serialise = (value: Json) =>
  JSON.stringify(value).replace(NESTED, (_, depth) => nestedText(Number(depth)));

const oddString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\u0007',
    '\t',
    '\n',
    '\u001b[31m',
    '\u202e',
    '',
  ),
  fc.nat({ max: 50_000 }).map((n) => 'z'.repeat(n)),
  fc.constantFrom('-0', '1e5', '0x10', ' 1', '1,000', 'NaN', 'Infinity', '１２３', '-', '.5', '9'.repeat(40)),
);

const oddValue: fc.Arbitrary<Json> = fc.oneof(
  oddString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2020.5, -1),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
  fc.dictionary(oddString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  // Built only when the body is (a deeply nested value would overflow fast-check's own printing of a failure).
  fc.nat({ max: 5_000 }).map((depth) => ({ nestedDepth: depth })),
  fc.nat({ max: 2_000 }).map((n) => Array.from({ length: n }, () => ({}))),
);

describe('fuzzing the real app', () => {
  let service: TestService;
  let key: string;
  const base = fixture('small_enterprise-2y-no-cash-flow');
  const paths = pathsOf(base);

  beforeAll(async () => {
    const { rateLimits } = loadConfig({});
    const roomy = { points: 1_000_000, windowSeconds: 1 };
    service = await startTestService('postgres', {
      poolThreads: 1,
      jobConcurrency: 1,
      rateLimits: {
        ...rateLimits,
        reads: roomy,
        submissions: roomy,
        login_client: roomy,
        login_email: roomy,
      },
    });
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  it(`answers ${RUNS} generated bodies without a single 5xx`, async () => {
    const mutation = fc.record({
      changes: fc.array(
        fc.record({
          path: fc.constantFrom(...paths),
          value: oddValue,
          rename: fc.option(oddString, { freq: 4 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      transport: fc.oneof(
        { weight: 12, arbitrary: fc.constant('rest') },
        { weight: 6, arbitrary: fc.constant('graphql') },
        { weight: 1, arbitrary: fc.constant('login') },
      ),
    });
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutation, async ({ changes, transport }) => {
        const body = structuredClone(base) as Record<string, Json>;
        for (const change of changes) {
          const { path, rename } = change;
          const value =
            typeof change.value === 'object' && change.value !== null && 'nestedDepth' in change.value
              ? `\u0001nested:${change.value.nestedDepth}`
              : change.value;
          try {
            if (rename !== null && typeof path.at(-1) === 'string')
              setAt(body, [...path.slice(0, -1), rename], value);
            else setAt(body, path, value);
          } catch {
            // An earlier change replaced a parent with a scalar: this path is gone.
          }
        }
        let status = 0;
        if (transport === 'rest') {
          status = (
            await service.request('/api/v1/developer/reports/financial', { method: 'POST', key, body })
          ).status;
        } else if (transport === 'graphql') {
          const query =
            'mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { reportId } }';
          status = (
            await service.request('/graphql', {
              method: 'POST',
              key,
              body: `{"query":${JSON.stringify(query)},"variables":{"input":${serialise(body)}}}`,
            })
          ).status;
        } else {
          const [first] = changes;
          status = (
            await service.request('/api/v1/console/login', {
              method: 'POST',
              body: serialise({ email: first!.value, password: first!.rename ?? first!.value }),
            })
          ).status;
        }
        seen.set(status, (seen.get(status) ?? 0) + 1);
        if (status >= 500) throw new Error(`${transport} answered ${status}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The generator reaches the interesting answers, not only one kind of refusal.
    expect([...seen.keys()]).toEqual(expect.arrayContaining([200, 202, 401, 422]));
  }, 600_000);
});
