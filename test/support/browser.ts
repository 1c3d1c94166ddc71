// A real headless Chromium for the browser tests (Debian's /usr/bin/chromium, installed by .ci/run).
import { type Page, chromium } from 'playwright-core';
import type { Test } from 'tap';
import type { Config } from '../../src/config.js';
import { testApp } from './app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A test app listening on a free loopback port, and a browser; both closed when `t` ends. */
export async function serviceAndBrowser(t: Test, overrides: Partial<Config> = {}) {
  const app = await testApp({ HOST: '127.0.0.1', ...overrides });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // No sandbox (tests run as root in CI); nothing that reaches the network on its own.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(async () => {
    await browser.close();
    await app.close();
  });
  return { app, base, browser };
}

/**
 * Console errors (with the resource at fault) and uncaught page errors, collected as they happen; those
 * matching `ignore` are expected. Under the Content-Security-Policy a blocked script or style is one.
 */
export function pageErrors(page: Page, ignore?: RegExp): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !ignore?.test(m.text())) errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/**
 * Waits until the form field's value passes `accept`. Polled through Playwright's own channel: the
 * dashboard's Content-Security-Policy (script-src 'self') refuses the eval that `page.waitForFunction`
 * uses whenever its condition is not already true.
 */
export async function waitForValue(page: Page, selector: string, accept: (value: string) => boolean, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await page.inputValue(selector);
    if (accept(value)) return value;
    if (Date.now() > until) throw new Error(`${selector} still has value ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
