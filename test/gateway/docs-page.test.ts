// The docs page (/docs, Swagger UI over the generated document) rendered in headless Chromium:
// every tag of openapi.json is visible, the Authorize dialog offers the contract's four security
// schemes, and a key entered there works: "Try it out" on GET /projects answers 200 through the
// gateway from the real service. A screenshot is written and checked non-empty.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { artefactsOf, startTestGateway } from '../helpers/gateway.js';

const kind = testDatabases[0] as (typeof testDatabases)[number];

describe('the /docs page in headless Chromium', () => {
  let t: TestGateway;
  let browser: Browser;
  let folder: string;

  beforeAll(async () => {
    t = await startTestGateway(kind, { features: [] });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    folder = await mkdtemp(path.join(tmpdir(), 'timegate-docs-'));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('shows every tag, offers the security schemes, and calls the API with an authorized key', async () => {
    const document = (await artefactsOf()).openapi;
    const tags = (document.tags ?? []).map((tag) => tag.name);
    expect(tags.length).toBeGreaterThanOrEqual(8);
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    await page.goto(`${t.origin}/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    for (const tag of tags) {
      await expect.poll(() => page.locator(`.opblock-tag[data-tag="${tag}"]`).isVisible(), { timeout: 10_000 }).toBe(true);
    }
    await expect.poll(() => page.locator('.info .title').innerText()).toContain(document.info.title);

    await page.locator('.btn.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    const schemes = await dialog.locator('.auth-container h4').allInnerTexts();
    expect(schemes.map((s) => s.replace(/\s*\(.*\)$/, '').trim()).sort()).toEqual(Object.keys(document.components?.securitySchemes ?? {}).sort());
    const headerScheme = dialog.locator('.auth-container').filter({ hasText: 'apiKeyHeader' });
    await headerScheme.locator('input').fill(t.service.jana.apiKey);
    await headerScheme.locator('button.authorize').click();
    await dialog.locator('button.btn-done').first().click();

    const operation = page.locator('#operations-Projects-listProjects');
    await operation.locator('.opblock-summary').click();
    // The page opens operations in "Try it out" mode (tryItOutEnabled).
    await operation.locator('button.execute').waitFor({ timeout: 10_000 });
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('200');
    await expect.poll(() => operation.locator('.live-responses-table .microlight').first().innerText()).toContain('"items"');

    const file = path.join(folder, 'docs.png');
    await page.screenshot({ path: file, fullPage: false });
    expect((await stat(file)).size).toBeGreaterThan(10_000);
  }, 90_000);
});
