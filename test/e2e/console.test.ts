/**
 * The console in a real browser (Debian's Chromium via playwright-core) against the real server: sign up,
 * create a test key in the UI and read it from its one-time display, submit a report over REST with it, find
 * the report in the console, make its link private and public again, set and clear an expiry, replace the
 * link, revoke the key — and see the next REST call with it refused. Then the same pages on a 375 px phone,
 * the mode switch, an expired session and signing out. Screenshots land in test/artifacts/ (git-ignored).
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../server/db/entities/session.entity.ts';
import { ARTIFACTS, launchChromium, requireChromium } from '../helpers/browser.ts';
import { freePort } from '../helpers/process.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const PERMISSIONS = ['clipboard-read', 'clipboard-write'];
const DESKTOP: BrowserContextOptions = {
  viewport: { width: 1366, height: 900 },
  deviceScaleFactor: 1,
  permissions: PERMISSIONS,
};
const PHONE: BrowserContextOptions = {
  viewport: { width: 375, height: 812 },
  deviceScaleFactor: 1,
  isMobile: true,
  hasTouch: true,
  permissions: PERMISSIONS,
};
const PASSWORD = 'correct horse battery staple';
const ENTERPRISE = '杭州控制台测试科技有限公司';

describe('the console in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let desktop: BrowserContext;
  let page: Page;
  const email = `console-e2e-${Date.now()}@example.com`;
  const problems: string[] = [];
  const requests: string[] = [];
  /** Filled in as the flow goes. */
  let key: string;
  let reportId: string;
  let token: string;

  const shared = (t: string) => service.request(`/api/v1/shared/reports/${t}`);
  const restReport = async () =>
    (await service.request(`/api/v1/developer/reports/${reportId}`, { key })).body;
  const row = () => page.locator(`[data-report-id="${reportId}"]`);
  const clipboard = (on: Page) => on.evaluate(() => navigator.clipboard.readText());
  const noHorizontalScroll = (on: Page) =>
    on.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  function watch(on: Page) {
    on.on('request', (request) => requests.push(request.url()));
    on.on('pageerror', (error) => problems.push(String(error)));
    on.on('console', (message) => {
      // Expected API answers Chromium logs as failed loads: the session before signing in (401), a wrong
      // password (401), a short one (422).
      if (message.type() === 'error' && !/status of (401|422)/.test(message.text()))
        problems.push(message.text());
    });
  }

  beforeAll(async () => {
    requireChromium();
    // APP_URL is where the server listens, so the share links the console copies and opens work here.
    const port = await freePort();
    service = await startTestService('postgres', { port, appUrl: `http://127.0.0.1:${port}` });
    browser = await launchChromium();
    desktop = await browser.newContext(DESKTOP);
    page = await desktop.newPage();
    watch(page);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('sends a visitor to sign in, refuses a wrong password, and signs up', async () => {
    await page.goto(`${service.url}/console/reports`);
    await page.waitForSelector('[data-testid=auth-form]');
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(await page.title()).toBe('登录 · 开发者控制台');

    await page.fill('#auth-email', email);
    await page.fill('#auth-password', PASSWORD);
    await page.click('[data-testid=auth-form] button[type=submit]');
    expect(await page.textContent('[data-testid=auth-error]')).toBe('邮箱或密码不正确。');

    await page.click('.auth-switch >> text=注册');
    await page.waitForURL('**/console/signup**');
    await page.fill('#auth-email', email);
    await page.fill('#auth-password', 'too short');
    await page.click('[data-testid=auth-form] button[type=submit]');
    // At the field, which has the focus.
    expect(await page.textContent('[data-testid=password-error]')).toContain('10 个字符');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('auth-password');
    await page.fill('#auth-password', PASSWORD);
    await page.click('[data-testid=auth-form] button[type=submit]');
    // Back where the visitor was going.
    await page.waitForSelector('[data-testid=reports-page]');
    expect(new URL(page.url()).pathname).toBe('/console/reports');
    expect(await page.textContent('[data-testid=console-email]')).toBe(email);

    // The session cookie: HttpOnly (page scripts cannot read it), SameSite=Strict, not Secure over http.
    const cookie = (await desktop.cookies()).find((c) => c.name === 'fra_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('fra_session');
  });

  it('creates a test key and shows it exactly once, with a copy button', async () => {
    await page.click('.console-tab >> text=API 密钥');
    await page.waitForSelector('[data-testid=keys-page] .empty');
    await page.click('[data-testid=create-key]');
    await page.fill('#key-name', 'CI 流水线');
    expect(await page.isChecked('input[name=mode][value=test]')).toBe(true);
    await page.click('dialog[open] button[type=submit]');

    await page.waitForSelector('[data-testid=new-key]');
    key = await page.inputValue('[data-testid=new-key]');
    expect(key).toMatch(/^ek_test_[A-Za-z0-9_-]{43}$/);
    expect(await page.textContent('[data-testid=new-key-panel]')).toContain(
      '关闭此窗口后将无法再次查看完整密钥',
    );
    await page.click('[data-testid=copy-key]');
    expect(await clipboard(page)).toBe(key);
    expect(await page.textContent('[data-testid=copy-key]')).toContain('已复制');
    // Esc does not dismiss the one-time display by accident.
    await page.keyboard.press('Escape');
    expect(await page.isVisible('[data-testid=new-key]')).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}console-keys-new-key-desktop.png` });

    await page.click('[data-testid=close-new-key]');
    await page.waitForSelector('dialog[open]', { state: 'detached' }).catch(() => undefined);
    expect(await page.isVisible('[data-testid=new-key]')).toBe(false);
    const listed = page.locator('[data-testid=keys-table] tbody tr');
    expect(await listed.count()).toBe(1);
    const text = await listed.first().textContent();
    expect(text).toContain('CI 流水线');
    expect(text).toContain('测试');
    expect(text).toContain(`${key.slice(0, 12)}…${key.slice(-4)}`);
    expect(text).toContain('从未使用');
    expect(text).toContain('有效');
    // The full key is nowhere in the page any more.
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: `${ARTIFACTS}console-keys-desktop.png`, fullPage: true });
  });

  it('lists the report the key submits over REST, and opens and copies its share link', async () => {
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: { ...fixture('general_new-3y'), enterprise_name: ENTERPRISE },
    });
    expect(submitted.status).toBe(202);
    reportId = submitted.body.report_id;
    const report = (await waitForReport(service, key, reportId)).body;
    token = report.share.share_token;

    await page.click('.console-tab >> text=报告');
    await row().waitFor();
    const text = await row().textContent();
    expect(text).toContain(ENTERPRISE);
    expect(text).toContain('第 1 版');
    expect(text).toContain('已完成');
    expect(text).toContain('长期有效');
    expect(await row().getAttribute('data-share')).toBe('public');
    await page.screenshot({ path: `${ARTIFACTS}console-reports-desktop.png`, fullPage: true });

    const [popup] = await Promise.all([
      desktop.waitForEvent('page'),
      row().locator('[data-testid=open-share]').click(),
    ]);
    await popup.waitForSelector('[data-testid=enterprise-name]');
    expect(popup.url()).toBe(`${service.url}/shared/reports/${token}`);
    expect(await popup.textContent('[data-testid=enterprise-name]')).toBe(ENTERPRISE);
    await popup.close();

    await row().locator('[data-testid=copy-share]').click();
    expect(await clipboard(page)).toBe(`${service.url}/shared/reports/${token}`);
    // The key was used: the keys page says when.
    await page.click('.console-tab >> text=API 密钥');
    await page.waitForSelector('[data-testid=keys-table]');
    expect(await page.textContent('[data-testid=keys-table] tbody tr')).not.toContain('从未使用');
    await page.click('.console-tab >> text=报告');
    await row().waitFor();
  });

  it('makes the link private (404) and public again, and sets and clears an expiry', async () => {
    await row().locator('[data-testid=toggle-public]').click();
    // Making it private asks first.
    expect(await page.textContent('dialog[open]')).toContain('持有链接的人将无法打开报告');
    await page.click('dialog[open] [data-testid=confirm-button]');
    await page.waitForSelector(`[data-report-id="${reportId}"][data-share=private]`);
    expect((await shared(token)).status).toBe(404);
    expect((await service.request(`/shared/reports/${token}`)).status).toBe(404);
    expect(await row().getAttribute('data-share')).toBe('private');
    expect(await row().locator('[data-testid=open-share]').getAttribute('aria-disabled')).toBe('true');

    await row().locator('[data-testid=toggle-public]').click();
    await page.waitForSelector(`[data-report-id="${reportId}"][data-share=public]`);
    expect((await shared(token)).status).toBe(200);

    // The picker is in Beijing time, whatever the browser's zone: 18:00 there is 10:00 UTC.
    await row().locator('[data-testid=edit-expiry]').click();
    await page.fill('#expiry-input', '2030-01-01T18:00');
    await page.click('[data-testid=save-expiry]');
    await expect
      .poll(() => row().locator('[data-testid=share-expiry]').textContent())
      .toContain('2030-01-01 18:00');
    expect((await restReport()).share.share_expires_at).toBe('2030-01-01T10:00:00.000Z');

    await row().locator('[data-testid=edit-expiry]').click();
    expect(await page.inputValue('#expiry-input')).toBe('2030-01-01T18:00');
    await page.click('[data-testid=clear-expiry]');
    await expect.poll(() => row().locator('[data-testid=share-expiry]').textContent()).toContain('长期有效');
    expect((await restReport()).share.share_expires_at).toBeNull();
  });

  it('replaces the link after confirming: the old one stops working', async () => {
    await row().locator('[data-testid=rotate-share]').click();
    await page.waitForSelector('[data-testid=confirm-dialog]');
    expect(await page.textContent('dialog[open]')).toContain('原链接将立即失效');
    await page.click('dialog[open] [data-testid=confirm-button]');
    await expect
      .poll(() => row().locator('[data-testid=open-share]').getAttribute('href'))
      .not.toContain(token);
    const fresh = (await restReport()).share.share_token as string;
    expect(fresh).not.toBe(token);
    expect(await row().locator('[data-testid=open-share]').getAttribute('href')).toBe(
      `${service.url}/shared/reports/${fresh}`,
    );
    expect((await shared(token)).status).toBe(404);
    expect((await shared(fresh)).status).toBe(200);
    token = fresh;
  });

  it('revokes the key after confirming: the next REST call answers 401', async () => {
    expect((await service.request(`/api/v1/developer/reports/${reportId}`, { key })).status).toBe(200);
    await page.click('.console-tab >> text=API 密钥');
    await page.click('[data-testid=revoke-key]');
    expect(await page.textContent('dialog[open]')).toContain('吊销立即生效');
    await page.click('dialog[open] [data-testid=confirm-button]');
    await page.waitForSelector('[data-testid=keys-table] tr[data-status=revoked]');
    expect(await page.isVisible('[data-testid=revoke-key]')).toBe(false);
    const refused = await service.request(`/api/v1/developer/reports/${reportId}`, { key });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/revoked/);
  });

  it('works on a 375 px phone: the one-time key dialog and the reports list', async () => {
    const phone = await browser.newContext({ ...PHONE, storageState: await desktop.storageState() });
    const mobile = await phone.newPage();
    watch(mobile);
    await mobile.goto(`${service.url}/console`);
    await mobile.waitForSelector('[data-testid=keys-table]');
    expect(await noHorizontalScroll(mobile)).toBeLessThanOrEqual(0);
    await mobile.screenshot({ path: `${ARTIFACTS}console-keys-mobile.png`, fullPage: true });

    await mobile.tap('[data-testid=create-key]');
    await mobile.fill('#key-name', '手机上创建');
    await mobile.tap('dialog[open] button[type=submit]');
    await mobile.waitForSelector('[data-testid=new-key]');
    expect(await mobile.inputValue('[data-testid=new-key]')).toMatch(/^ek_test_/);
    const box = await mobile.locator('dialog[open]').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await mobile.screenshot({ path: `${ARTIFACTS}console-keys-new-key-mobile.png` });
    await mobile.tap('[data-testid=close-new-key]');

    await mobile.tap('.console-tab >> text=报告');
    await mobile.locator(`[data-report-id="${reportId}"]`).waitFor();
    expect(await noHorizontalScroll(mobile)).toBeLessThanOrEqual(0);
    await mobile.screenshot({ path: `${ARTIFACTS}console-reports-mobile.png`, fullPage: true });
    await phone.close();
  });

  it('switches mode: live mode has its own (empty) reports list', async () => {
    await page.click('.console-tab >> text=报告');
    await row().waitFor();
    await page.click('[data-testid=mode-live]');
    await page.waitForSelector('[data-testid=no-reports]');
    expect(await page.isVisible('[data-testid=test-mode-strip]')).toBe(false);
    await page.click('[data-testid=mode-test]');
    await row().waitFor();
    expect(await page.isVisible('[data-testid=test-mode-strip]')).toBe(true);
  });

  it('returns to sign-in when the session has expired, and back afterwards; signs out', async () => {
    await service.services.db.orm.em.fork().nativeDelete(Session, {});
    await page.click('[data-testid=mode-live]');
    await page.waitForSelector('[data-testid=auth-form]');
    expect(await page.textContent('.auth-card')).toContain('登录已过期，请重新登录');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/console/reports');
    await page.fill('#auth-email', email);
    await page.fill('#auth-password', PASSWORD);
    await page.click('[data-testid=auth-form] button[type=submit]');
    await page.waitForSelector('[data-testid=reports-page]');
    expect(new URL(page.url()).pathname).toBe('/console/reports');

    await page.click('[data-testid=sign-out]');
    await page.waitForSelector('[data-testid=auth-form]');
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(await page.textContent('.auth-card')).not.toContain('登录已过期');
    const status = await page.evaluate(async () => (await fetch('/api/v1/console/session')).status);
    expect(status).toBe(401);
    await page.goto(`${service.url}/console`);
    await page.waitForSelector('[data-testid=auth-form]');
    await page.screenshot({ path: `${ARTIFACTS}console-login-desktop.png` });

    // Nothing from the internet, no script errors.
    for (const url of requests)
      expect(url.startsWith(service.url) || url.startsWith('data:'), url).toBe(true);
    expect(problems).toEqual([]);
  });
});
