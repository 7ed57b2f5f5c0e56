/**
 * A local OpenAI-compatible server for the AI tests: POST /v1/chat/completions on 127.0.0.1, answered by a
 * script each test sets. The service reaches it over real HTTP through the openai package, as it would
 * reach DeepSeek, DashScope, vLLM or Ollama. It records every request and the most requests it held at once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the client sent
export type RequestBody = any;

export type Reply =
  | { status?: number; headers?: Record<string, string>; body: unknown; delayMs?: number }
  /** Never answer (the client's timeout must end the call). */
  | 'hang';

export type Script = (request: { body: RequestBody; index: number; slug: string | null }) => Reply;

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

/** The analysis slug a chat request is about (from the JSON the service puts in the user message). */
export function slugOf(body: RequestBody): string | null {
  const user = body?.messages?.find((m: { role: string }) => m.role === 'user');
  const text: string = typeof user?.content === 'string' ? user.content : '';
  const json = text.slice(text.indexOf('{'));
  try {
    return JSON.parse(json).item.slug ?? null;
  } catch {
    return null;
  }
}

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
    const reply = fake.script({ body, index, slug: slugOf(body) });
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
