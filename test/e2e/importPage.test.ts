/**
 * The console's 导入报表 page in Chromium against the real server: sign up, choose a LibreOffice-saved workbook
 * of a real filing, read it (GraphQL multipart upload with the session), see the matched count and the rows
 * that need a decision, submit, and land on the report's share page; the page fits a 375 px phone.
 */
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireChromium } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const WORKBOOK = fileURLToPath(
  new URL('../fixtures/import/gree-2016-2019.libreoffice.xlsx', import.meta.url),
);

describe('the console’s import page in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    requireChromium();
    service = await startTestService('postgres');
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    page.on('pageerror', (error) => problems.push(String(error)));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('reads a workbook, shows the mapping, submits and lands on the report, on a phone', async () => {
    await page.goto(`${service.url}/console/signup`);
    await page.fill('#auth-email', `import-e2e-${Date.now()}@example.com`);
    await page.fill('#auth-password', 'correct horse battery staple');
    await page.click('[data-testid=auth-form] button[type=submit]');
    await page.waitForSelector('[data-testid=keys-page]');

    await page.click('[data-testid=nav-import]');
    await page.waitForSelector('[data-testid=import-page]');
    expect(await page.title()).toBe('导入报表 · 开发者控制台');
    // The template link works without an API key.
    const href = await page.getAttribute('[data-testid=template-general_new]', 'href');
    const template = await page.request.get(`${service.url}${href}`);
    expect(template.status()).toBe(200);
    expect((await template.body()).subarray(0, 2).toString()).toBe('PK');

    await page.setInputFiles('[data-testid=import-files]', WORKBOOK);
    await page.click('[data-testid=import-read]');
    await page.waitForSelector('[data-testid=import-summary]');
    expect(await page.textContent('[data-testid=import-matched]')).toBe('178');
    expect(await page.inputValue('[data-testid=import-name]')).toBe('珠海格力电器股份有限公司');
    expect(await page.inputValue('[data-testid=import-standard]')).toBe('general_new');
    // The four 其中：应收利息 rows (no general-format key) wait for a decision, with the catalogue's names.
    expect(await page.locator('[data-testid=import-attention-row]').count()).toBe(4);
    const options = await page
      .locator('[data-testid=import-attention-row] select')
      .first()
      .locator('option')
      .allTextContents();
    expect(options).toContain('其他应收款');
    // Fits the phone: the import page's own content is no wider than its box.
    expect(
      await page.evaluate(() => {
        const section = document.querySelector('[data-testid=import-page]')!;
        return section.scrollWidth - section.clientWidth;
      }),
    ).toBeLessThanOrEqual(0);

    await page.fill('[data-testid=import-name]', '格力电器（导入）');
    await page.click('[data-testid=import-submit]');
    await page.waitForURL(/\/shared\/reports\//, { timeout: 60_000 });
    await page.waitForSelector('text=格力电器（导入）');
    expect(problems).toEqual([]);
  });
});
