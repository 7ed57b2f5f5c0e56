/**
 * The structured answer asked of the model: the JSON schema sent as `response_format` (strict structured
 * output), and the check every answer passes before it is used — a server that ignores the schema, a model
 * that truncates, or JSON mode without a schema can all return something else, and that must end in the
 * built-in writer, not in a broken report.
 */
import * as yup from 'yup';
import { RISK_LEVELS } from '../../worker/types.ts';
import type { StructuredInterpretation } from './types.ts';

export const LIMITS = {
  summary: 800,
  riskFocus: 500,
  step: 200,
  steps: 5,
  riskMessage: 200,
  risks: 3,
} as const;

/**
 * Strict structured output allows only a subset of JSON Schema (every property required, no additional
 * properties, no length keywords), and vLLM/Ollama guided decoding a similar one; lengths are checked after.
 */
export const INTERPRETATION_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'risk_focus', 'next_steps', 'risk_items'],
  properties: {
    summary: {
      type: 'string',
      description:
        '数据解读：最新年度的关键数值、与上一年度相比的变动方向和幅度及其含义（2–4句，简体中文）。',
    },
    risk_focus: {
      type: 'string',
      description: '风险关注：哪些风险最值得关注、为什么；没有明显风险时说明依据（1–3句）。',
    },
    next_steps: {
      type: 'array',
      description: '核查建议：财务人员下一步应核实的具体事项，最重要的在前（1–5条）。',
      items: { type: 'string' },
    },
    risk_items: {
      type: 'array',
      description:
        '规则风险项未覆盖、但从数据中能看出的新风险（0–3条；没有则为空数组，不要重复已有风险项）。',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['level', 'message'],
        properties: {
          level: { type: 'string', enum: [...RISK_LEVELS] },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;

/**
 * The answer to a batch: one interpretation per item asked about, each naming its item by `slug`. Several items
 * per call share one system prompt and one report context (half the tokens of one call per item) and fill the
 * provider's concurrency with fewer, longer calls.
 */
export const BATCH_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      description: '每个分析项一条解读，顺序与请求中的 items 相同，slug 原样返回。',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['slug', ...INTERPRETATION_JSON_SCHEMA.required],
        properties: {
          slug: { type: 'string', description: '分析项的 slug，与请求中的一致。' },
          ...INTERPRETATION_JSON_SCHEMA.properties,
        },
      },
    },
  },
} as const;

const HAS_CJK = /[\u4e00-\u9fff]/;

const text = (max: number) =>
  yup
    .string()
    .strict()
    .required('is missing')
    .test('not-blank', 'is empty', (value) => value.trim().length > 0)
    .max(max, `is longer than ${max} characters`);

const answerSchema = yup.object({
  summary: text(LIMITS.summary).test('chinese', 'is not in Chinese', (value) => HAS_CJK.test(value)),
  risk_focus: text(LIMITS.riskFocus),
  next_steps: yup
    .array()
    .strict()
    .required('is missing')
    .of(text(LIMITS.step))
    .min(1, 'is empty')
    .max(LIMITS.steps, `has more than ${LIMITS.steps} entries`),
  risk_items: yup
    .array()
    .strict()
    .required('is missing')
    .of(
      yup.object({
        level: yup
          .string()
          .strict()
          .required('is missing')
          .oneOf(RISK_LEVELS, 'is not info, warning or danger'),
        message: text(LIMITS.riskMessage),
      }),
    )
    .max(LIMITS.risks, `has more than ${LIMITS.risks} entries`),
});

export class InvalidModelOutputError extends Error {
  override name = 'InvalidModelOutputError';
}

/** The JSON inside a model's content: a Markdown code fence or a reasoning model's <think> block tolerated. */
function readJson(content: string | null | undefined): unknown {
  if (!content?.trim()) throw new InvalidModelOutputError('the model returned no content');
  const unwrapped = content
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .trim()
    .replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  try {
    return JSON.parse(unwrapped);
  } catch {
    throw new InvalidModelOutputError('the model content is not JSON');
  }
}

const isObject = (json: unknown): json is Record<string, unknown> =>
  typeof json === 'object' && json !== null && !Array.isArray(json);

/** Checks one interpretation object against the schema; unknown extra keys are ignored. */
function toInterpretation(json: unknown): StructuredInterpretation {
  if (!isObject(json)) throw new InvalidModelOutputError('the model content is not a JSON object');
  let answer: yup.InferType<typeof answerSchema>;
  try {
    answer = answerSchema.validateSync(json, { abortEarly: false, strict: true });
  } catch (error) {
    const problems =
      error instanceof yup.ValidationError
        ? error.inner.map((e) => `${e.path ?? 'answer'} ${e.message}`).join('; ')
        : String(error);
    throw new InvalidModelOutputError(`the model answer does not match the schema: ${problems}`);
  }
  return {
    summary: answer.summary.trim(),
    risk_focus: answer.risk_focus.trim(),
    next_steps: answer.next_steps.map((step) => step.trim()),
    risk_items: answer.risk_items.map((risk) => ({ level: risk.level, message: risk.message.trim() })),
  };
}

/**
 * Reads a model's message content as an interpretation, or throws InvalidModelOutputError naming what is
 * wrong. Tolerates what OpenAI-compatible servers commonly wrap JSON in (a Markdown code fence, a reasoning
 * model's <think> block); everything else must match the schema. Unknown extra keys are ignored.
 */
export function parseInterpretation(content: string | null | undefined): StructuredInterpretation {
  return toInterpretation(readJson(content));
}

/**
 * Reads a batch answer: for each slug asked about, its interpretation or the InvalidModelOutputError saying why
 * there is none. Each item passes the same check as a single answer, so one bad item costs only itself; an
 * answer that is not `{ items: [...] }` at all makes every item invalid. Items not asked about are ignored; of
 * two answers for one slug the first counts.
 */
export function parseBatchInterpretations(
  content: string | null | undefined,
  slugs: readonly string[],
): Map<string, StructuredInterpretation | InvalidModelOutputError> {
  const results = new Map<string, StructuredInterpretation | InvalidModelOutputError>();
  let entries: unknown[];
  try {
    const json = readJson(content);
    if (!isObject(json) || !Array.isArray(json.items))
      throw new InvalidModelOutputError('the model answer has no items array');
    entries = json.items;
  } catch (error) {
    for (const slug of slugs) results.set(slug, error as InvalidModelOutputError);
    return results;
  }
  const bySlug = new Map<string, unknown>();
  for (const entry of entries)
    if (isObject(entry) && typeof entry.slug === 'string' && !bySlug.has(entry.slug))
      bySlug.set(entry.slug, entry);
  for (const slug of slugs) {
    const entry = bySlug.get(slug);
    if (entry === undefined) {
      results.set(slug, new InvalidModelOutputError(`the model answer has no item ${slug}`));
      continue;
    }
    try {
      results.set(slug, toInterpretation(entry));
    } catch (error) {
      results.set(slug, error as InvalidModelOutputError);
    }
  }
  return results;
}
