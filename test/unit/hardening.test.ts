/**
 * The pure parts of issue 11: the clean-text rule, password strength (contract 4), TRUST_PROXY and the
 * rate-limit budgets read from the environment.
 */
import { describe, expect, it } from 'vitest';
import { textProblem } from '../../schema/text.ts';
import { loadConfig } from '../../server/config.ts';
import { checkPassword } from '../../server/services/accounts.ts';

describe('the clean-text rule', () => {
  it('refuses NUL, lone surrogates, C0 controls and DEL; lets tab and line breaks through only in multi-line text', () => {
    expect(textProblem('利润表 item (ok) – fine 😀')).toBeUndefined();
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('a\ud800b')).toMatch(/surrogate/);
    expect(textProblem('x\udc00')).toMatch(/surrogate/);
    expect(textProblem('a\u001bb')).toMatch(/U\+001B/);
    expect(textProblem('a\u007fb')).toMatch(/U\+007F/);
    expect(textProblem('a\tb')).toMatch(/U\+0009/);
    expect(textProblem('line 1\nline 2\ttab\r\n', { multiline: true })).toBeUndefined();
    expect(textProblem('a\u0000b', { multiline: true })).toMatch(/NUL/);
  });
});

describe('checkPassword', () => {
  const why = (password: unknown, email?: string) => {
    try {
      checkPassword(password, { email });
      return null;
    } catch (error) {
      return (error as { errors: Array<{ path: string; message: string }> }).errors[0];
    }
  };

  it('accepts a long, uncommon password and returns it', () => {
    expect(checkPassword('correct horse battery staple')).toBe('correct horse battery staple');
  });

  it('says in Chinese why a password is refused, on the field password', () => {
    expect(why('password1234')).toEqual({
      path: 'password',
      message: expect.stringMatching(/^密码太弱：.*常见/),
    });
    expect(why('zzzzzzzzzzzzzz')?.message).toMatch(/重复/);
    expect(why('zxcvbnm,./zxc')?.message).toMatch(/键盘/);
    expect(why('short')?.message).toMatch(/10 到 200/);
    expect(why(12345678901)?.message).toMatch(/10 到 200/);
    expect(why('correct horse battery\u0000')?.message).toMatch(/NUL/);
  });

  it('refuses a password built from the email', () => {
    expect(why('financezhangwei', 'zhangwei.finance@example.com')?.message).toMatch(/邮箱/);
    expect(why('financezhangwei')).toBeNull();
  });
});

describe('configuration', () => {
  it('reads TRUST_PROXY as a number of hops, with true and false as aliases', () => {
    expect(loadConfig({}).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'true' })).toMatchObject({ trustProxy: true, trustProxyHops: 1 });
    expect(loadConfig({ TRUST_PROXY: '2' })).toMatchObject({ trustProxy: true, trustProxyHops: 2 });
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
  });

  it('sizes the budgets from the environment: reads 50/s burst 100, submissions 20/s burst 40, AI 20/hour', () => {
    const { rateLimits } = loadConfig({});
    expect(rateLimits.reads).toEqual({ points: 100, windowSeconds: 2 });
    expect(rateLimits.submissions).toEqual({ points: 40, windowSeconds: 2 });
    expect(rateLimits.ai_regeneration).toEqual({ points: 20, windowSeconds: 3600 });
    const custom = loadConfig({
      RATE_LIMIT_READS_PER_SECOND: '10',
      RATE_LIMIT_READS_BURST: '30',
      RATE_LIMIT_AI_PER_HOUR: '5',
    });
    expect(custom.rateLimits.reads).toEqual({ points: 30, windowSeconds: 3 });
    expect(custom.rateLimits.ai_regeneration.points).toBe(5);
  });
});
