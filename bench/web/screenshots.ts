// `npm run screenshots`: the README's pictures of the web interface, made afresh from the demo
// data in headless Chromium: the timesheet and the stopwatch, on a desktop and on a phone-sized
// screen, and the employee's report, into docs/web/. Run it after changing a page.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { DEMO_SIGN_IN, ensureDemoSignIn, seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { DEFAULT_SERVICE_CONFIG } from '../../service/config.js';
import { buildService } from '../../service/server.js';
import { openDatabase } from '../../service/storage/database.js';
import { CHROMIUM_ARGS, DESKTOP, PHONE } from '../../test/helpers/browser.js';

const OUT = new URL('../../docs/web/', import.meta.url);

const database = await openDatabase(':memory:');
await seedDemoAccount(database.db);
await database.db.updateTable('account_settings').set({ time_zone: 'Europe/Berlin' }).execute();
await ensureDemoSignIn(database.db);
const app = buildService({ ...DEFAULT_SERVICE_CONFIG, port: 0 }, database, { logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
await mkdir(OUT, { recursive: true });
try {
  for (const [name, device] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    const context = await browser.newContext({ ...device, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${origin}/sign-in`);
    await page.getByLabel('E-Mail').fill(DEMO_SIGN_IN.email);
    await page.getByLabel('Passwort').fill(DEMO_SIGN_IN.password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${origin}/stopwatch`);
    if (name === 'desktop') {
      await page.getByLabel('Projekt').selectOption({ label: 'Website-Relaunch' });
      await page.getByLabel('Tätigkeit').selectOption({ label: 'Entwicklung' });
      await page.getByLabel('Kommentar').fill('Startseite: neues Raster');
      await page.getByRole('button', { name: 'Starten' }).click();
      await page.waitForSelector('#elapsed');
    }
    await page.waitForTimeout(1500);
    await page.screenshot({ path: fileURLToPath(new URL(`stopwatch-${name}.png`, OUT)) });
    await page.goto(`${origin}/timesheet`);
    await page.getByRole('link', { name: 'Vorige Woche' }).click();
    await page.waitForURL(/week=/);
    await page.screenshot({ path: fileURLToPath(new URL(`timesheet-${name}.png`, OUT)) });
    if (name === 'desktop') {
      await page.goto(`${origin}/reports`);
      await page.waitForSelector('#report-chart');
      await page.screenshot({ path: fileURLToPath(new URL('report-desktop.png', OUT)) });
    }
    await context.close();
  }
  process.stdout.write(`screenshots written to ${OUT.pathname}\n`);
} finally {
  await browser.close();
  await app.close();
  await database.close();
}
