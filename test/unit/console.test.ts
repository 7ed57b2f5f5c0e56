/**
 * The console's pure helpers, without a browser: Beijing-time expiry conversions, how keys and share links
 * are shown, where sign-in may return to, and the Chinese error messages.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleApiError } from '../../web/src/api/console.ts';
import {
  beijingInputToIso,
  isoToBeijingInput,
  maskedKey,
  safeRedirect,
  shareStatus,
} from '../../web/src/lib/console.ts';
import { describeError } from '../../web/src/lib/consoleErrors.ts';

describe('console helpers', () => {
  it('reads and writes the expiry picker in Beijing time, whatever the machine’s zone', () => {
    expect(beijingInputToIso('2030-01-01T18:00')).toBe('2030-01-01T10:00:00.000Z');
    expect(beijingInputToIso('2030-01-01T05:30')).toBe('2029-12-31T21:30:00.000Z');
    expect(isoToBeijingInput('2029-12-31T21:30:00.000Z')).toBe('2030-01-01T05:30');
    expect(isoToBeijingInput(new Date('2030-01-01T10:00:00Z'))).toBe('2030-01-01T18:00');
    for (const bad of ['', '2030-02-30T10:00', '2030-01-01', '2030-01-01T25:00', 'tomorrow']) {
      expect(beijingInputToIso(bad), bad).toBeNull();
    }
  });

  it('shows a key by prefix and last four only', () => {
    expect(maskedKey({ prefix: 'ek_test_Ab3d', lastFour: 'wxyz' })).toBe('ek_test_Ab3d…wxyz');
  });

  it('tells an open link from a private or expired one, as the share endpoint does', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(shareStatus({ isPublic: true, shareExpiresAt: null }, now)).toBe('public');
    expect(shareStatus({ isPublic: true, shareExpiresAt: '2030-01-02T00:00:00.000Z' }, now)).toBe('public');
    expect(shareStatus({ isPublic: true, shareExpiresAt: '2030-01-01T00:00:00.000Z' }, now)).toBe('expired');
    expect(shareStatus({ isPublic: false, shareExpiresAt: '2029-01-01T00:00:00.000Z' }, now)).toBe('private');
  });

  it('returns from sign-in to console pages only', () => {
    expect(safeRedirect('/console/reports')).toBe('/console/reports');
    expect(safeRedirect('/console')).toBe('/console');
    for (const bad of [
      'https://evil.example/console',
      '//evil.example',
      '/shared/reports/x',
      '/console?x=1',
      7,
    ]) {
      expect(safeRedirect(bad), String(bad)).toBe('/console');
    }
  });

  it('says what went wrong in Chinese, keeping the API’s message for anything unknown', () => {
    const error = (code: string, extra = {}) => new ConsoleApiError(400, code, 'The API said so.', extra);
    expect(describeError(error('unauthenticated'), 'login')).toBe('邮箱或密码不正确。');
    expect(describeError(error('unauthenticated'))).toBe('登录已过期，请重新登录。');
    expect(describeError(error('email_taken'))).toBe('该邮箱已注册，请直接登录。');
    expect(describeError(error('too_many_requests', { retryAfter: 600 }))).toBe(
      '尝试次数过多，请在 10 分钟后重试。',
    );
    expect(
      describeError(
        error('validation_failed', { fieldErrors: [{ path: 'password', message: 'too short' }] }),
      ),
    ).toBe('密码长度需为 10–200 个字符。');
    // A code this console does not know yet (a newer server): still Chinese, with the code for support.
    expect(describeError(error('something_new'))).toBe(
      '请求未能完成（错误代码 something_new），请稍后重试。',
    );
  });
});
