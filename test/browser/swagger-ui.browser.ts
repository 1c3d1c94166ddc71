// `npm run test:browser`: Swagger UI in a real headless Chromium (Debian's /usr/bin/chromium, installed by
// .ci/run). A researcher's first visit: open /docs, expand POST /score-plan, "Try it out", execute the
// built-in example, read the scored response; then the OpenRLHF route's. Neither touches a run.
import t from 'tap';
import { pageErrors, serviceAndBrowser } from '../support/browser.js';

t.test('Swagger UI scores the example request', async (t) => {
  const { base, browser } = await serviceAndBrowser(t);
  const page = await browser.newPage();
  const errors = pageErrors(page);
  const docs = await page.goto(`${base}/docs`);
  t.match(docs?.headers()['content-security-policy'], /default-src 'self'/, 'served with a CSP');
  const operation = page.locator('#operations-PersonalPlan-scorePlan');
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 15_000 });
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  t.equal((await status.innerText()).trim(), '200');
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  const body = await operation.locator('.live-responses-table .microlight').first().innerText();
  const parsed = JSON.parse(body) as { groups: Array<{ plans: Array<{ gate: { failed: boolean; reasons: string[] } }> }> };
  t.same(
    parsed.groups[0]!.plans.map((p) => p.gate.reasons),
    [[], ['cycle'], ['parse_error']],
    'the example group comes back scored: clean, cyclic, truncated',
  );
  t.same(errors, [], 'no console errors: nothing blocked by the CSP');
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: false });

  // Trying the API writes to no run: the example is stateless, and the OpenRLHF one is scored uncounted.
  const openrlhf = page.locator('#operations-trainers-openrlhfReward');
  await openrlhf.locator('.opblock-summary').click();
  await openrlhf.getByRole('button', { name: 'Try it out' }).click();
  t.equal(await openrlhf.locator('tr[data-param-name="run_id"] input').inputValue(), 'swagger-example', 'run_id: the example run');
  t.equal(await openrlhf.locator('tr[data-param-name="count"] select').inputValue(), 'false', 'count=false');
  await openrlhf.getByRole('button', { name: 'Execute' }).click();
  const rlhfStatus = openrlhf.locator('.live-responses-table .response .response-col_status').first();
  await rlhfStatus.waitFor({ timeout: 15_000 });
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  t.equal((await rlhfStatus.innerText()).trim(), '200');
  const runs = (await (await fetch(`${base}/runs`)).json()) as { runs: { id: string }[] };
  t.same(
    runs.runs.map((r) => r.id),
    [],
    'no run was created or advanced',
  );
});
