/**
 * A local OpenAI-compatible server for the AI tests and `npm run bench:ai`: POST /v1/chat/completions on
 * 127.0.0.1, answered by a script each test sets. The service reaches it over real HTTP through the openai
 * package, as it would reach DeepSeek, DashScope, vLLM or Ollama. It records every request and the most
 * requests it held at once. `simulatedModel` is a script with a configurable latency, failure rate and speed
 * of generation (tokens per second), whose usage counts tokens the way a Chinese-aware tokenizer roughly does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the client sent
export type RequestBody = any;

export type Reply =
  | { status?: number; headers?: Record<string, string>; body: unknown; delayMs?: number }
  /** Never answer (the client's timeout must end the call). */
  | 'hang';

export type Script = (request: {
  body: RequestBody;
  index: number;
  /** The item asked about (a one-item request), else the first of `slugs`. */
  slug: string | null;
  /** Every item the request asks about (one, or a batch). */
  slugs: string[];
}) => Reply;

export interface FakeOpenAi {
  /** Base URL to configure as OPENAI_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: RequestBody[];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight: number;
  maxInFlight: number;
  script: Script;
  reset(script: Script): void;
  close(): Promise<void>;
}

/** The JSON the service puts in the user message (after its instruction line), or null. */
export function userPayload(body: RequestBody): RequestBody {
  const user = body?.messages?.find((m: { role: string }) => m.role === 'user');
  const text: string = typeof user?.content === 'string' ? user.content : '';
  try {
    return JSON.parse(text.slice(text.indexOf('{')));
  } catch {
    return null;
  }
}

/** The analysis slugs a chat request is about: `item.slug` (one item) or `items[].slug` (a batch). */
export function slugsOf(body: RequestBody): string[] {
  const payload = userPayload(body);
  if (typeof payload?.item?.slug === 'string') return [payload.item.slug];
  if (Array.isArray(payload?.items))
    return payload.items
      .map((item: { slug?: unknown }) => item?.slug)
      .filter((s: unknown) => typeof s === 'string');
  return [];
}

/** The analysis slug a chat request is about (the first, for a batch). */
export function slugOf(body: RequestBody): string | null {
  return slugsOf(body)[0] ?? null;
}

/** Is the request a batch (answer `{ items: [...] }`) rather than one item? */
export function isBatch(body: RequestBody): boolean {
  return Array.isArray(userPayload(body)?.items);
}

/**
 * Rough token count of a text: one token per CJK character, one per four other characters (what cl100k-style
 * and DeepSeek tokenizers give for Chinese prose and JSON within ±30 %). Used for prompts and answers alike,
 * so before/after comparisons are fair.
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const ch of text) if (/[\u3000-\u9fff\uff00-\uffef]/.test(ch)) cjk++;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/** A verdict as contract 1 puts it in core_risk_insight.sp_result (issue 12 computes the real one). */
export const SAMPLE_VERDICT = {
  grade: 'D',
  label: '较高风险',
  score: 38.5,
  drivers: [
    { slug: 'solvency', key: 'debt_ratio', label: '资产负债率', value: 78.2, effect: -12.4 },
    { slug: 'cash_flow', key: 'ocf', label: '经营活动现金流', value: -320.5, effect: -8.1 },
    { slug: 'profitability', key: 'roe', label: '净资产收益率', value: 6.3, effect: 2.2 },
  ],
};

/** A structured answer that passes the service's validation. */
export function validAnswer(slug: string, extra: Partial<Record<string, unknown>> = {}) {
  return {
    summary: `模型解读：${slug}的最新年度数据显示经营稳健，关键指标较上年有所改善。`,
    risk_focus: `模型认为${slug}需关注应收账款回收。`,
    next_steps: [`核实${slug}相关明细账`, '与同行业平均水平对比'],
    risk_items: [{ level: 'warning', message: `模型发现${slug}的现金回笼偏慢。` }],
    ...extra,
  };
}

/** A Chat Completions response whose message content is `content`. */
export function completion(
  content: string,
  usage = { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
    usage,
  };
}

export const ok = (slug: string | null, extra: Partial<Record<string, unknown>> = {}): Reply => ({
  body: completion(JSON.stringify(validAnswer(slug ?? 'unknown', extra))),
});

/** A valid answer to any request: one interpretation, or `{ items }` with one per slug of a batch. */
export function answerFor(
  body: RequestBody,
  write: (slug: string) => Record<string, unknown> = (slug) => validAnswer(slug),
): string {
  const slugs = slugsOf(body);
  if (isBatch(body)) return JSON.stringify({ items: slugs.map((slug) => ({ slug, ...write(slug) })) });
  return JSON.stringify(write(slugs[0] ?? 'unknown'));
}

/** `ok` for one item or a batch. */
export const okAll = ({ body }: { body: RequestBody }): Reply => ({ body: completion(answerFor(body)) });

export interface SimulatedModel {
  /** Time to the first token, ms. */
  latencyMs: number;
  /** Share of requests answered 500 (0–1). */
  failureRate?: number;
  /** Generation speed; 0 → the whole answer arrives with the first token. */
  tokensPerSecond?: number;
  /** The answer per item; validAnswer by default. */
  write?: (slug: string) => Record<string, unknown>;
  /** Random source for failures (deterministic in benchmarks). */
  random?: () => number;
}

/**
 * A model with a latency, a failure rate and a generation speed: answers every request validly (one item or a
 * batch) after latency + completion tokens ÷ tokens per second, with usage estimated from the real prompt
 * and answer texts; or, with probability `failureRate`, a 500 after the latency.
 */
export function simulatedModel(model: SimulatedModel): Script {
  const random = model.random ?? Math.random;
  return ({ body }) => {
    if ((model.failureRate ?? 0) > 0 && random() < (model.failureRate ?? 0))
      return { status: 500, body: { error: { message: 'simulated outage' } }, delayMs: model.latencyMs };
    const content = answerFor(body, model.write);
    const prompt = estimateTokens(
      (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n') +
        JSON.stringify(body.response_format ?? ''),
    );
    const answer = estimateTokens(content);
    const generation = model.tokensPerSecond ? (answer / model.tokensPerSecond) * 1000 : 0;
    return {
      body: completion(content, {
        prompt_tokens: prompt,
        completion_tokens: answer,
        total_tokens: prompt + answer,
      }),
      delayMs: model.latencyMs + generation,
    };
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeOpenAi(script: Script = ({ slug }) => ok(slug)): Promise<FakeOpenAi> {
  const fake: FakeOpenAi = {
    baseUrl: '',
    requests: [],
    inFlight: 0,
    maxInFlight: 0,
    script,
    reset(next) {
      fake.script = next;
      fake.requests = [];
      fake.maxInFlight = 0;
    },
    close: async () => {},
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    fake.inFlight++;
    fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        fake.inFlight--;
      }
    };
    res.on('close', finish);
    const body = JSON.parse(await readBody(req));
    const index = fake.requests.push(body) - 1;
    const slugs = slugsOf(body);
    const reply = fake.script({ body, index, slug: slugs[0] ?? null, slugs });
    if (reply === 'hang') return;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return fake;
}
