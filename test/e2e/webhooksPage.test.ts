/**
 * The console's Webhooks page in Chromium against the real server: sign up, add an endpoint (the secret shown
 * once), send a test event to a receiver on loopback — which verifies its signature with `standardwebhooks` —
 * and read the delivery in the page's log.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyByValue } from '../../server/services/apiKeys.ts';
import { ARTIFACTS, launchChromium, requireChromium } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('the console’s Webhooks page in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const problems: string[] = [];

  beforeAll(async () => {
    requireChromium();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    service = await startTestService('pglite', { webhookAllowPrivate: true });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('pageerror', (error) => problems.push(String(error)));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    receiver?.close();
  });

  const email = `webhooks-e2e-${Date.now()}@example.com`;

  it('adds an endpoint, shows its secret once, sends a test event and shows the delivery', async () => {
    await page.goto(`${service.url}/console/signup`);
    await page.fill('#auth-email', email);
    await page.fill('#auth-password', 'correct horse battery staple');
    await page.click('[data-testid=auth-form] button[type=submit]');
    await page.waitForSelector('[data-testid=keys-page]');

    await page.click('.console-tab >> text=Webhooks');
    await page.waitForSelector('[data-testid=webhooks-page] .empty');
    expect(await page.title()).toBe('Webhooks · 开发者控制台');
    await page.fill('[data-testid=webhook-create] input[type=url]', receiverUrl);
    await page.click('[data-testid=webhook-create] button[type=submit]');
    const secret = (await page.textContent('[data-testid=webhook-secret] code'))!.trim();
    expect(secret).toMatch(/^whsec_/);
    await page.click('[data-testid=webhook-secret] >> text=已保存');
    expect(await page.locator('[data-testid=webhook-secret]').count()).toBe(0);
    expect(await page.textContent('[data-testid=webhooks-table]')).toContain(receiverUrl);

    await page.click('[data-testid=webhooks-table] >> text=发送测试');
    for (let i = 0; i < 100 && received.length === 0; i++) await page.waitForTimeout(50);
    const [delivery] = received;
    const event = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
      type: string;
    };
    expect(event.type).toBe('webhook.test');

    let log = '';
    for (let i = 0; i < 40 && !log.includes('已送达'); i++) {
      await page.click('[data-testid=webhooks-table] >> text=投递记录');
      await page.waitForSelector('[data-testid=webhook-deliveries]');
      log = (await page.textContent('[data-testid=webhook-deliveries]')) ?? '';
      if (!log.includes('已送达')) await page.waitForTimeout(100);
    }
    expect(log).toContain('webhook.test');
    expect(log).toContain('已送达');
    expect(log).toContain('200');
    await page.screenshot({ path: `${ARTIFACTS}/console-webhooks.png`, fullPage: true });
    expect(problems).toEqual([]);
  });

  it('says why an endpoint was disabled when the key that created it is revoked', async () => {
    const key = await service.newKey('test', email);
    const created = await service.request('/api/v1/developer/webhook-endpoints', {
      method: 'POST',
      key,
      body: { url: `${receiverUrl}/from-key` },
    });
    expect(created.status).toBe(201);
    expect(await revokeApiKeyByValue(service.services.db.orm.em.fork(), key)).toBe(true);
    await page.reload();
    await page.waitForSelector('[data-testid=webhook-disabled-reason]');
    const row = page.locator(`[data-endpoint-id="${created.body.id}"]`);
    expect(await row.textContent()).toContain('创建它的 API 密钥已吊销，已自动停用');
    expect(problems).toEqual([]);
  });
});
