// Headless Debian Chromium through playwright-core for the web interface's browser tests, with
// axe-core's checks and a keyboard walk to run on any page.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export const DESKTOP = { viewport: { width: 1280, height: 900 } } as const;
/** An iPhone 13/14-sized screen. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } as const;

let axeSource: Promise<string> | undefined;

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * axe-core's violations of serious or critical impact on the page as it is. The script is
 * evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not
 * govern, so the page is checked under its real policy.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${await axeSource};0`);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Walks the page with Tab from its start; the controls (links, buttons, fields) that are
 * visible and enabled but were never focused. Empty when every control is reachable by keyboard.
 */
export async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const count = await page.evaluate(() => {
    const controls = Array.from(document.querySelectorAll<HTMLElement>('a[href], button, input:not([type=hidden]), select, textarea'))
      .filter((el) => !el.matches(':disabled') && el.offsetParent !== null && !el.hidden);
    controls.forEach((el, i) => el.setAttribute('data-kbd', String(i)));
    (document.activeElement as HTMLElement | null)?.blur();
    // A date field is three Tab stops in Chromium (day, month, year); scrolling regions one more.
    const dates = controls.filter((el) => (el as HTMLInputElement).type === 'date').length;
    return controls.length + 2 * dates + document.querySelectorAll('[tabindex="0"]').length;
  });
  const reached = new Set<string>();
  // Radio groups take one Tab stop; a few spare presses cover the browser's own stops.
  for (let i = 0; i < count + 5; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-kbd') ?? null);
    if (id !== null) reached.add(id);
  }
  return page.evaluate((seen) => Array.from(document.querySelectorAll<HTMLElement>('[data-kbd]'))
    .filter((el) => !seen.includes(el.getAttribute('data-kbd') as string))
    // The other buttons of a radio group are reached with the arrow keys, as browsers mean it.
    .filter((el) => !((el as HTMLInputElement).type === 'radio' && document.querySelector(`input[type=radio][name="${(el as HTMLInputElement).name}"][data-kbd]`) !== el))
    .map((el) => el.outerHTML.slice(0, 120)), [...reached]);
}

/** Whether the page is wider than its viewport (content to scroll sideways on a phone). */
export function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}
