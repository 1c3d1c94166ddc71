// `npm run test:browser`: the dashboard's plan page in a real headless Chromium. Paste or load a plan,
// validate it, read the drawn dependency graph: one node per step and one edge per depends_on edge, the
// cycle's edges marked, a dangling reference drawn as a missing node, no graph for an unparseable plan.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import type { ValidatePlanResponse } from '../../src/contracts/validate-plan.js';
import { pageErrors, serviceAndBrowser } from '../support/browser.js';

const withDeps = (changes: Record<string, string[]>) => ({
  ...EXAMPLE_PLAN,
  steps: EXAMPLE_PLAN.steps.map((s) => (s.id in changes ? { ...s, depends_on: changes[s.id]! } : s)),
});
const edgesOf = (plan: typeof EXAMPLE_PLAN) => plan.steps.flatMap((s) => s.depends_on.map((d) => `${d}→${s.id}`)).sort();

const attrs = (page: Page, selector: string, name: string) => page.locator(selector).evaluateAll((els, n) => els.map((e) => e.getAttribute(n) ?? ''), name);

t.test('the plan page draws the dependency graph of a validated plan', async (t) => {
  const started = Date.now();
  const { app, base, browser } = await serviceAndBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = pageErrors(page);
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${new URL(r.url()).pathname}`);
  });
  // Bytes over the wire, per path (bodies and headers, as Chromium counts them).
  const sizes: Array<Promise<[string, number]>> = [];
  page.on('requestfinished', (req) => {
    sizes.push(req.sizes().then((s) => [new URL(req.url()).pathname, s.responseBodySize + s.responseHeadersSize]));
  });
  const validate = async (payload: unknown) =>
    (await app.inject({ method: 'POST', url: '/validate-plan', payload: { plan: payload } })).json() as ValidatePlanResponse;

  /** Clicks Validate and waits until the answer is drawn (the button is disabled until then). */
  const submit = async () => {
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/validate-plan')), page.click('#validate')]);
    await page.waitForSelector('#validate:enabled');
  };

  /** Picks an example of the OpenAPI document and waits until it is in the text area. */
  const loadExample = async (value: string, label: string) => {
    await page.selectOption('#example', value);
    await page.click('#load-example');
    await page.locator('#status', { hasText: label }).waitFor();
  };

  const response = await page.goto(`${base}/dashboard/plan.html`);
  t.equal(response?.status(), 200);
  await page.waitForLoadState('networkidle');
  const pageBytes = (await Promise.all(sizes)).reduce((n, [, b]) => n + b, 0);
  t.comment(`page load: ${pageBytes} bytes in ${sizes.length} responses`);

  await t.test('(a) the example plan: a node per step, an edge per depends_on edge, nothing red', async (t) => {
    await loadExample('validate', 'ValidatePlanRequest');
    t.same(JSON.parse(await page.inputValue('#plan-text')), EXAMPLE_PLAN, 'the example is the OpenAPI document’s');
    t.not(await page.inputValue('#profile'), '', 'with its profile');
    await submit();
    t.equal(await page.getAttribute('#gate', 'data-failed'), 'false', 'the gate passes');
    t.same((await attrs(page, 'svg.plan-graph [data-step]', 'data-step')).sort(), EXAMPLE_PLAN.steps.map((s) => s.id).sort(), 'one node per step');
    t.same((await attrs(page, 'svg.plan-graph [data-edge]', 'data-edge')).sort(), edgesOf(EXAMPLE_PLAN), 'one edge per depends_on edge');
    t.equal(await page.locator('[data-cycle="true"]').count(), 0, 'no cycle edge');
    t.equal(await page.locator('svg.plan-graph [data-missing]').count(), 0, 'no missing node');
    t.equal(await page.locator('svg.plan-graph [data-loop="practice"]').count(), 1, 'the loop is outlined');
    t.same([...new Set(await attrs(page, 'svg.plan-graph [data-step]', 'tabindex'))], ['0'], 'every node is focusable');
    t.match(await page.getAttribute('[data-step="st3"]', 'aria-label'), /Explain how GROUP BY/, 'and labelled');
    const legend = await page.locator('#legend').textContent();
    for (const a of EXAMPLE_PLAN.agents) t.match(legend, a.id, `the legend names agent ${a.id}`);

    // Keyboard: from the layout control, Tab walks the steps in execution order and shows each in full.
    await page.focus('#direction');
    await page.keyboard.press('Tab');
    t.equal(await page.locator(':focus').getAttribute('data-step'), 'st1');
    await page.keyboard.press('Tab');
    t.equal(await page.locator(':focus').getAttribute('data-step'), 'st2');
    t.match(await page.locator('#node-detail').textContent(), /Retrieve the pandas documentation/, 'the focused step is shown in full');

    // Colour by Merrill phase: the phases are the service's (components.ped.steps).
    const api = await validate(EXAMPLE_PLAN);
    await page.check('input[name="colour-by"][value="phase"]');
    for (const s of api.components!.ped.steps) {
      t.equal(await page.getAttribute(`[data-step="${s.step}"]`, 'data-phases'), s.phases.join(' '), `${s.step}: the service's phases`);
    }
    t.match(await page.locator('#legend').textContent(), /demonstration/, 'the legend switches to phases');
    await page.check('input[name="colour-by"][value="agent"]');
  });

  await t.test('(b) a cycle: its edges are marked, the gate names it', async (t) => {
    const cyclic = withDeps({ st1: ['st10'] });
    await loadExample('score:1', 'completion 2');
    t.same(JSON.parse(await page.inputValue('#plan-text')), cyclic, 'the score example’s second completion: st1 depends on st10');
    await submit();
    const api = await validate(JSON.stringify(cyclic));
    t.same(api.gate.reasons, ['cycle']);
    t.equal(await page.getAttribute('#gate', 'data-failed'), 'true', 'the gate is closed');
    t.same(await attrs(page, '#gate [data-reason]', 'data-reason'), api.gate.reasons, 'with the reasons the service gives');
    const named = api.violations.find((v) => v.code === 'cycle')!.cycle!;
    for (let i = 0; i + 1 < named.length; i++) {
      t.equal(await page.getAttribute(`[data-edge="${named[i]}→${named[i + 1]}"]`, 'data-cycle'), 'true', `${named[i]} → ${named[i + 1]} is marked`);
    }
    // Every step lies on st1 → … → st10 → st1, so every edge is inside the cyclic component.
    t.same((await attrs(page, '[data-cycle="true"]', 'data-edge')).sort(), edgesOf(cyclic), 'every edge of the component, no other');
    t.equal(await page.locator('svg.plan-graph [data-step]').count(), cyclic.steps.length);
    if (process.env.SCREENSHOT_DIR) {
      mkdirSync(process.env.SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(process.env.SCREENSHOT_DIR, 'dashboard-plan.png'), fullPage: true });
    }
  });

  await t.test('(c) a dangling depends_on: a missing node', async (t) => {
    const dangling = withDeps({ st3: ['st2', 'st99'] });
    await page.fill('#plan-text', JSON.stringify(dangling, null, 2));
    await submit();
    t.equal(await page.getAttribute('#gate', 'data-failed'), 'false', 'a warning, not a gate');
    const missing = page.locator('svg.plan-graph [data-missing="st99"]');
    t.equal(await missing.count(), 1, 'one missing node');
    t.match(await missing.textContent(), /missing: st99/);
    t.equal(await page.getAttribute('[data-edge="st99→st3"]', 'data-kind'), 'dangling', 'its edge is drawn to the step');
    t.same((await attrs(page, 'svg.plan-graph [data-edge]', 'data-edge')).sort(), edgesOf(dangling), 'every declared edge');
    t.equal(await page.locator('#violations-body tr[data-code="unknown_dependency"]').count(), 1, 'the violation is listed');
    t.match(await page.locator('#violations-body').textContent(), /\$\.steps\[2\]\.depends_on\[1\]/, 'with its path');
  });

  await t.test('(d) unparseable text: the gate reason, no graph', async (t) => {
    await page.fill('#plan-text', 'Here is the plan: {"agents": [');
    await submit();
    t.same(await attrs(page, '#gate [data-reason]', 'data-reason'), ['parse_error']);
    t.match(await page.locator('#gate').textContent(), /no candidate \{\.\.\.\} in the completion is valid JSON/, 'with the service’s message');
    t.equal(await page.locator('svg.plan-graph').count(), 0, 'no graph');
    t.notOk(await page.isVisible('#graph-section'), 'the graph panel is hidden');
  });

  await t.test('a completion in a ```json fence is sent as written and drawn', async (t) => {
    await loadExample('score:0', 'completion 1');
    t.match(await page.inputValue('#plan-text'), /^```json\n/, 'the fence kept as written');
    await submit();
    t.equal(await page.getAttribute('#gate', 'data-failed'), 'false');
    t.equal(await page.locator('svg.plan-graph [data-step]').count(), EXAMPLE_PLAN.steps.length);
  });

  const all = await Promise.all(sizes);
  const byPath = new Map<string, number>();
  for (const [path, bytes] of all) byPath.set(path, (byPath.get(path) ?? 0) + bytes);
  t.comment(`bytes by path: ${JSON.stringify(Object.fromEntries(byPath))}`);
  t.same(errors, [], 'no console errors');
  t.comment(`run time ${Date.now() - started} ms`);
});
