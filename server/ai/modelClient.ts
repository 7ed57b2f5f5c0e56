/**
 * One structured answer from an OpenAI-compatible server, over the Chat Completions API (the one API DeepSeek,
 * Qwen on DashScope, vLLM and Ollama all implement). The caller validates the answer before use.
 *
 * Every attempt first asks the process's circuit breaker (breaker.ts): while it is open no request goes out and
 * the call ends at once with reason `model_unavailable`; each attempt's outcome is reported back to it.
 *
 * Retries are our own loop rather than the SDK's (`maxRetries: 0`): every attempt is counted for the usage
 * record and logged, a backoff never outlives the caller's deadline, and every attempt — not only the wait
 * for response headers — is bounded by the timeout, so a server that stops mid-body still ends the call.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, OpenAI } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { aiCalls, aiTokens } from '../observability/metrics.ts';
import type { CircuitBreaker } from './breaker.ts';
import { InvalidModelOutputError } from './outputSchema.ts';

export type ModelSettings = Pick<
  Config,
  'aiApiKey' | 'aiBaseUrl' | 'aiModel' | 'aiResponseFormat' | 'aiTimeoutMs' | 'aiMaxRetries' | 'aiRetryBaseMs'
>;

/** Token use of one interpretation, over all its attempts (failed ones included: they were billed too). */
export interface CallUsage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export const emptyCallUsage = (): CallUsage => ({
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
});

/** Why a model call gave no usable interpretation. */
export type ModelFailure =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'connection'
  | 'rejected'
  | 'invalid_output'
  | 'aborted'
  /** The circuit breaker is open: no request was sent. */
  | 'model_unavailable';

const RETRYABLE: ReadonlySet<ModelFailure> = new Set([
  'timeout',
  'rate_limited',
  'server_error',
  'connection',
]);
/** The longest Retry-After we honour; beyond it the deadline decides anyway. */
const MAX_RETRY_AFTER_MS = 30_000;

export class ModelCallError extends Error {
  override name = 'ModelCallError';
  readonly reason: ModelFailure;
  readonly usage: CallUsage;

  constructor(reason: ModelFailure, message: string, usage: CallUsage) {
    super(message);
    this.reason = reason;
    this.usage = usage;
  }
}

export interface ModelAnswer {
  /** The message content, not yet validated. */
  content: string;
  usage: CallUsage;
}

/** Failures that say the provider is down or overloaded (they count towards opening the breaker). */
const OUTAGE: ReadonlySet<ModelFailure> = new Set(['timeout', 'server_error', 'connection']);

const CALL_OUTCOME: Record<ModelFailure, string> = {
  timeout: 'timeout',
  rate_limited: 'rate_limited',
  server_error: 'error',
  connection: 'error',
  rejected: 'error',
  invalid_output: 'invalid_output',
  aborted: 'aborted',
  model_unavailable: 'breaker_open',
};

/** Is a model configured at all? A model name plus a key, or a base URL (a local server needs no key). */
export function modelConfigured(settings: ModelSettings): boolean {
  return settings.aiModel !== null && (settings.aiApiKey !== null || settings.aiBaseUrl !== null);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The server's Retry-After (`retry-after-ms`, or `retry-after` in seconds or as a date), in ms. */
function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof APIError) || !error.headers) return null;
  const ms = Number(error.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const header = error.headers.get('retry-after');
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : date - Date.now();
}

function classify(error: unknown, attemptTimedOut: boolean, deadline?: AbortSignal): ModelFailure {
  if (deadline?.aborted) return 'aborted';
  if (attemptTimedOut || error instanceof APIConnectionTimeoutError) return 'timeout';
  if (error instanceof APIConnectionError) return 'connection';
  if (error instanceof APIError && typeof error.status === 'number') {
    if (error.status === 429) return 'rate_limited';
    if (error.status >= 500 || error.status === 408 || error.status === 409) return 'server_error';
  }
  return 'rejected';
}

export class ModelClient {
  readonly model: string;
  readonly #settings: ModelSettings;
  readonly #client: OpenAI;
  readonly #logger: Logger;
  readonly breaker: CircuitBreaker;

  constructor(settings: ModelSettings, logger: Logger, breaker: CircuitBreaker) {
    this.breaker = breaker;
    if (!settings.aiModel) throw new Error('ModelClient needs AI_MODEL');
    this.model = settings.aiModel;
    this.#settings = settings;
    this.#logger = logger;
    // Every option is explicit: the SDK would otherwise read OPENAI_* variables itself, and config.ts is the
    // only reader of the environment (tests must not pick up a developer's key).
    this.#client = new OpenAI({
      apiKey: settings.aiApiKey ?? 'no-key',
      baseURL: settings.aiBaseUrl ?? 'https://api.openai.com/v1',
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      timeout: settings.aiTimeoutMs,
      maxRetries: 0,
      logLevel: 'off',
    });
  }

  /**
   * Asks for one structured answer (`schema` as strict json_schema, or JSON mode). Retries 429, 5xx, timeouts
   * and connection errors up to AI_MAX_RETRIES times with exponential backoff (honouring Retry-After); a
   * truncated answer or a refusal is not retried. When `deadline` aborts — while waiting, in flight or in a
   * backoff — the call ends at once with reason `aborted`; when the breaker refuses an attempt, with
   * `model_unavailable`. Throws ModelCallError, carrying the tokens spent so far.
   */
  async complete(
    messages: ChatCompletionMessageParam[],
    schema: { name: string; schema: Record<string, unknown> },
    deadline?: AbortSignal,
  ): Promise<ModelAnswer> {
    const usage = emptyCallUsage();
    const { aiTimeoutMs, aiMaxRetries, aiRetryBaseMs, aiResponseFormat } = this.#settings;
    const fail = (reason: ModelFailure, message: string): never => {
      aiCalls.inc({ outcome: CALL_OUTCOME[reason] });
      throw new ModelCallError(reason, message, usage);
    };
    for (let attempt = 0; ; attempt++) {
      if (deadline?.aborted) fail('aborted', 'the AI step ran out of time');
      let permit = this.breaker.tryAcquire();
      // Half-open with its probe out: wait for the probe's outcome, then ask again (closed → go; open → refused).
      while (!permit && this.breaker.probing) {
        try {
          await this.breaker.waitForProbe(deadline);
        } catch {
          fail('aborted', 'the AI step ran out of time');
        }
        permit = this.breaker.tryAcquire();
      }
      if (!permit) fail('model_unavailable', 'the circuit breaker is open: the model was not called');
      const granted = permit as NonNullable<typeof permit>;
      const attemptTimeout = AbortSignal.timeout(aiTimeoutMs);
      const signal = deadline ? AbortSignal.any([deadline, attemptTimeout]) : attemptTimeout;
      usage.calls++;
      let answered = false;
      try {
        const completion = await this.#client.chat.completions.create(
          {
            model: this.model,
            messages,
            response_format:
              aiResponseFormat === 'json_schema'
                ? {
                    type: 'json_schema',
                    json_schema: { name: schema.name, strict: true, schema: schema.schema },
                  }
                : { type: 'json_object' },
          },
          { signal, timeout: aiTimeoutMs, maxRetries: 0 },
        );
        answered = true;
        this.breaker.onSuccess(granted);
        const prompt = completion.usage?.prompt_tokens ?? 0;
        const written = completion.usage?.completion_tokens ?? 0;
        usage.prompt_tokens += prompt;
        usage.completion_tokens += written;
        usage.total_tokens += completion.usage?.total_tokens ?? prompt + written;
        aiTokens.inc({ kind: 'prompt' }, prompt);
        aiTokens.inc({ kind: 'completion' }, written);
        const choice = completion.choices?.[0];
        if (!choice) throw new InvalidModelOutputError('the model returned no choice');
        if (choice.finish_reason === 'length') throw new InvalidModelOutputError('the answer was cut off');
        if (choice.message.refusal) throw new InvalidModelOutputError('the model refused to answer');
        if (!choice.message.content?.trim())
          throw new InvalidModelOutputError('the model returned no content');
        aiCalls.inc({ outcome: 'ok' });
        return { content: choice.message.content, usage };
      } catch (error) {
        if (error instanceof InvalidModelOutputError) fail('invalid_output', error.message);
        if (error instanceof ModelCallError) throw error;
        const reason = classify(error, attemptTimeout.aborted, deadline);
        const detail = error instanceof Error ? error.message : String(error);
        if (!answered) {
          const gaveUp = attempt >= aiMaxRetries;
          if (OUTAGE.has(reason) || (reason === 'rate_limited' && gaveUp)) this.breaker.onFailure(granted);
          // Ours (the deadline), or a 429 with retries left: no verdict either way.
          else if (reason === 'aborted' || reason === 'rate_limited') this.breaker.release(granted);
          // A 4xx rejection: the provider is up (and answering).
          else this.breaker.onSuccess(granted);
        }
        if (reason === 'aborted') fail(reason, 'the AI step ran out of time');
        if (!RETRYABLE.has(reason) || attempt >= aiMaxRetries)
          fail(reason, `${reason} after ${attempt + 1} attempt(s): ${detail}`);
        aiCalls.inc({ outcome: CALL_OUTCOME[reason] });
        const backoff = aiRetryBaseMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
        const wait = Math.min(Math.max(backoff, retryAfterMs(error) ?? 0), MAX_RETRY_AFTER_MS);
        this.#logger.info(
          { reason, attempt: attempt + 1, waitMs: Math.round(wait) },
          'model call failed; retrying',
        );
        try {
          await sleep(wait, deadline);
        } catch {
          fail('aborted', 'the AI step ran out of time');
        }
      }
    }
  }
}
