/**
 * What the AI step accepts from a model (and rejects, so the built-in writer takes over), how it writes
 * figures and composes ai_content, and the AI settings read from the environment.
 */
import { describe, expect, it } from 'vitest';
import { composeAiContent } from '../../server/ai/content.ts';
import { formatFigure, formatNumber, pointChangePhrase, rateChangePhrase } from '../../server/ai/format.ts';
import { aiBudgetMs } from '../../server/ai/interpretations.ts';
import { modelConfigured } from '../../server/ai/modelClient.ts';
import { InvalidModelOutputError, parseInterpretation } from '../../server/ai/outputSchema.ts';
import type { StructuredInterpretation } from '../../server/ai/types.ts';
import { loadConfig } from '../../server/config.ts';

const valid: StructuredInterpretation = {
  summary: '2024年营业收入为8,925.77万元，较2023年下降7.24%。',
  risk_focus: '研发费用增长快于收入。',
  next_steps: ['核实研发费用明细', '对比同行业'],
  risk_items: [{ level: 'warning', message: '费用增长与收入不匹配' }],
};

describe('parseInterpretation', () => {
  it('accepts a valid answer, trimming text and ignoring unknown keys', () => {
    const parsed = parseInterpretation(
      JSON.stringify({ ...valid, summary: `  ${valid.summary} `, confidence: 0.9 }),
    );
    expect(parsed).toEqual(valid);
  });

  it('accepts JSON in a Markdown fence or after a reasoning block', () => {
    expect(parseInterpretation(`\`\`\`json\n${JSON.stringify(valid)}\n\`\`\``)).toEqual(valid);
    expect(parseInterpretation(`<think>先看收入</think>\n${JSON.stringify(valid)}`)).toEqual(valid);
  });

  it.each([
    ['no content', null],
    ['not JSON', '好的，以下是解读：收入下降。'],
    ['a JSON array', '[]'],
    ['a missing field', JSON.stringify({ ...valid, risk_focus: undefined })],
    ['an empty summary', JSON.stringify({ ...valid, summary: '   ' })],
    ['a summary not in Chinese', JSON.stringify({ ...valid, summary: 'Revenue fell by 7.24%.' })],
    ['a number for text', JSON.stringify({ ...valid, risk_focus: 42 })],
    ['next_steps as a string', JSON.stringify({ ...valid, next_steps: '核实' })],
    ['no next step', JSON.stringify({ ...valid, next_steps: [] })],
    ['an empty next step', JSON.stringify({ ...valid, next_steps: ['核实', ''] })],
    ['too many next steps', JSON.stringify({ ...valid, next_steps: Array(6).fill('核实') })],
    ['an unknown level', JSON.stringify({ ...valid, risk_items: [{ level: 'critical', message: '严重' }] })],
    ['a risk without message', JSON.stringify({ ...valid, risk_items: [{ level: 'info' }] })],
    ['too many risks', JSON.stringify({ ...valid, risk_items: Array(4).fill(valid.risk_items[0]) })],
    ['an overlong summary', JSON.stringify({ ...valid, summary: '长'.repeat(801) })],
  ])('rejects %s', (_case, content) => {
    expect(() => parseInterpretation(content)).toThrow(InvalidModelOutputError);
  });
});

describe('figures and ai_content', () => {
  it('writes figures with separators, 2 decimals and units; counts without decimals', () => {
    expect(formatNumber(10136.53)).toBe('10,136.53');
    expect(formatNumber(-1234567.5)).toBe('-1,234,567.50');
    expect(formatNumber(-0.001)).toBe('0.00');
    expect(formatNumber(3, '个')).toBe('3');
    expect(formatFigure(42.6, '%')).toBe('42.60%');
    expect(formatFigure(2400, '万元')).toBe('2,400.00万元');
    expect(rateChangePhrase(9.98, 2023)).toBe('较2023年增长9.98%');
    expect(rateChangePhrase(-7.24, 2023)).toBe('较2023年下降7.24%');
    expect(rateChangePhrase(0, 2023)).toBe('与2023年持平');
    expect(pointChangePhrase(12.14, 2023)).toBe('较2023年上升12.14个百分点');
  });

  it('composes three labelled paragraphs with numbered steps', () => {
    expect(composeAiContent(valid)).toBe(
      '数据解读：2024年营业收入为8,925.77万元，较2023年下降7.24%。\n' +
        '风险关注：研发费用增长快于收入。\n' +
        '核查建议：1. 核实研发费用明细；2. 对比同行业。',
    );
  });
});

describe('AI settings', () => {
  it('defaults to no model, with the documented limits', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      aiApiKey: null,
      aiBaseUrl: null,
      aiModel: null,
      aiResponseFormat: 'json_schema',
      aiTimeoutMs: 60_000,
      aiMaxRetries: 2,
      aiConcurrency: 16,
      aiReportConcurrency: 8,
      aiBatchSize: 6,
      aiBreakerThreshold: 5,
      aiBreakerCooldownMs: 30_000,
      aiDailyTokenBudget: 2_000_000,
    });
    expect(modelConfigured(config)).toBe(false);
    expect(aiBudgetMs(config, 'request')).toBe(180_000);
    expect(aiBudgetMs(config, 'job')).toBe(240_000);
  });

  it('reads an OpenAI-compatible server from the environment', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/',
      AI_MODEL: 'qwen2.5:7b',
      AI_RESPONSE_FORMAT: 'json_object',
      AI_TIMEOUT_SECONDS: '10',
      AI_MAX_RETRIES: '0',
      AI_CONCURRENCY: '8',
      AI_REPORT_CONCURRENCY: '3',
    });
    expect(config).toMatchObject({
      aiBaseUrl: 'http://127.0.0.1:11434/v1',
      aiModel: 'qwen2.5:7b',
      aiResponseFormat: 'json_object',
      aiTimeoutMs: 10_000,
      aiMaxRetries: 0,
      aiConcurrency: 8,
      aiReportConcurrency: 3,
    });
    // A local server needs no key; a model name alone (no key, no server) is not enough.
    expect(modelConfigured(config)).toBe(true);
    expect(modelConfigured(loadConfig({ AI_MODEL: 'gpt-4o-mini' }))).toBe(false);
    expect(modelConfigured(loadConfig({ AI_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-x' }))).toBe(true);
  });

  it('rejects invalid values', () => {
    expect(() => loadConfig({ AI_RESPONSE_FORMAT: 'text' })).toThrow(/AI_RESPONSE_FORMAT/);
    expect(() => loadConfig({ AI_CONCURRENCY: '0' })).toThrow(/AI_CONCURRENCY/);
    expect(() => loadConfig({ AI_TIMEOUT_SECONDS: 'soon' })).toThrow(/AI_TIMEOUT_SECONDS/);
  });
});
