/// <reference lib="dom" />
// `npm run test:browser`: the dashboard's runs pages in a real headless Chromium (Debian's /usr/bin/chromium).
// A run is scored through the API for 64 finalized steps; the runs list shows it; its page draws the seven
// charts over every step, follows the run live (a new step appears without a reload), stops polling in a
// hidden tab, downloads the CSV; with API keys the pages ask for a key and work once a read key is entered.
// SCREENSHOT_DIR=dir saves dashboard-runs.png and dashboard-run.png (1400×900, the run page in full).
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from '../../src/contracts/examples.js';
import { GAMING_SIGNAL_CODES } from '../../src/contracts/gaming.js';
import { pageErrors, serviceAndBrowser, waitForValue } from '../support/browser.js';

// Scoring 65 steps, two browsers and 30 s of following a run: more than the suite's 120 s on a busy machine.
t.setTimeout(300_000);

const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;
const RUN = 'grpo-demo';
const STEPS = 64; // steps 0..63 finalized, step 64 left open

// A group of five plans that changes with the step, so the charts have something to show: the example plan
// cut short by a varying number of steps, without its human input, now and then cyclic or truncated; in the
// second half, every other step, one step said twelve times by one agent (a plan that games the rewards).
function completions(step: number): unknown[] {
  const cut = (n: number) => {
    const kept = EXAMPLE_PLAN.steps.slice(0, EXAMPLE_PLAN.steps.length - n);
    return { ...EXAMPLE_PLAN, steps: kept };
  };
  const repeated = {
    ...EXAMPLE_PLAN,
    steps: Array.from({ length: 12 }, (_, i) => ({ ...EXAMPLE_PLAN.steps[2]!, id: `r${i}`, depends_on: i === 0 ? [] : [`r${i - 1}`] })),
  };
  const plans: unknown[] = [
    EXAMPLE_PLAN,
    cut(step % 5),
    step >= STEPS / 2 && step % 2 === 0 ? repeated : cut((step * 3) % 7),
    { ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map((s) => ({ ...s, human_input: false })) },
    step % 3 === 0
      ? { ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map((s) => (s.id === 'st1' ? { ...s, depends_on: ['st10'] } : s)) }
      : step % 4 === 0
        ? 'Here is the plan: {"agents": ['
        : cut(step % 3),
  ];
  return step % 2 === 0 ? plans : plans.slice(0, 4);
}

async function call(base: string, method: string, path: string, body?: unknown, key?: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

const score = (base: string, run: string, step: number, key?: string) =>
  call(
    base,
    'POST',
    '/score-plan',
    { run_id: run, step, groups: [{ id: `s${step}`, query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, completions: completions(step) }] },
    key,
  );

/** Pixels of the canvas of chart `id` in the CSS colour `rgb(r, g, b)`, exactly. */
const colourPixels = (page: Page, id: string, colour: string) =>
  page.locator(`#${id} canvas`).evaluate((c: HTMLCanvasElement, rgb) => {
    const [r, g, b] = rgb.match(/\d+/g)?.map(Number) ?? [];
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] === r && data[i + 1] === g && data[i + 2] === b && data[i + 3] === 255) n++;
    return n;
  }, colour);

// The run page exposes how many finalized steps it draws on #charts (data-steps) and each chart's x points
// on its figure (data-points).
const stepsShown = (page: Page, n: number, timeout: number) => page.waitForSelector(`#charts[data-steps="${n}"]`, { timeout });
const points = (page: Page) => page.locator('#charts figure').evaluateAll((fs) => fs.map((f) => f.getAttribute('data-points')));

// The page's visibility as the page sees it (headless Chromium keeps a page visible).
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate(
    `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event('visibilitychange'))`,
  );

/** The files a page loaded (itself, scripts, styles: every /dashboard/ URL) and their bytes, uncompressed. */
async function assets(page: Page, base: string): Promise<{ files: number; bytes: number }> {
  const urls = (await page.evaluate(
    "[location.href, ...performance.getEntriesByType('resource').map((e) => e.name)].filter((u) => new URL(u).pathname.startsWith('/dashboard/'))",
  )) as string[];
  const unique = [...new Set(urls.map((u) => new URL(u).pathname))];
  const sizes = await Promise.all(unique.map(async (p) => (await (await fetch(`${base}${p}`)).arrayBuffer()).byteLength));
  return { files: unique.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

t.test('runs list and run page follow a run live', async (t) => {
  const { base, browser } = await serviceAndBrowser(t);

  // Refreshes every 10 steps from step 10, so the weights chart has markers to explain; the guarded profile,
  // whose credit every plan's aboutness comes from.
  await call(base, 'PUT', `/runs/${RUN}`, { t_warm: 10, t_refresh: 10, eta_w: 2, reward_profile: 'guarded' });
  await call(base, 'PUT', '/runs/grpo-baseline', {});
  let started = performance.now();
  for (let step = 0; step <= STEPS; step++) await score(base, RUN, step);
  await score(base, 'grpo-small', 0);
  await score(base, 'grpo-small', 1);
  await call(base, 'POST', '/runs/grpo-small/finalize');
  t.comment(`scored ${STEPS + 1} steps in ${Math.round(performance.now() - started)} ms`);
  const run = (await call(base, 'GET', `/runs/${RUN}`)) as { finalized_steps: number };
  t.equal(run.finalized_steps, STEPS, `${STEPS} finalized steps, one open`);

  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = pageErrors(page);

  // The list.
  started = performance.now();
  const list = await page.goto(`${base}/dashboard/`);
  t.match(list?.headers()['content-security-policy'], /script-src 'self'/, 'served with a CSP');
  const link = page.locator(`#runs a[href="run.html?id=${RUN}"]`);
  await link.waitFor({ timeout: 10_000 });
  t.comment(`runs list shown in ${Math.round(performance.now() - started)} ms`);
  t.equal(await page.locator('#runs').getAttribute('data-count'), '3', 'three runs on the first page');
  const cells = await page
    .locator('#runs tbody tr', { has: page.locator(`a[href="run.html?id=${RUN}"]`) })
    .locator('td')
    .allTextContents();
  t.equal(cells[0], String(STEPS), 'finalized steps');
  t.match(cells.at(-1), /%.*open step 64/, 'gate rate of the open step');
  const baseline = await page.locator('#runs tbody tr', { hasText: 'grpo-baseline' }).locator('td').allTextContents();
  t.same(baseline.slice(2, 5), ['0.333', '0.333', '0.333'], 'a new run has its initial weights');
  t.match(await page.locator('#runs tbody tr', { hasText: 'grpo-small' }).locator('td').last().textContent(), /%step 1$/, 'no open step: the last history row');
  const listAssets = await assets(page, base);
  t.comment(`runs list assets: ${listAssets.files} files, ${listAssets.bytes} bytes`);
  if (SCREENSHOT_DIR) await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboard-runs.png` });

  // The run page.
  started = performance.now();
  await link.click();
  await page.waitForURL(/run\.html\?id=grpo-demo$/);
  await stepsShown(page, STEPS, 10_000);
  t.comment(`run page drawn in ${Math.round(performance.now() - started)} ms`);
  const runAssets = await assets(page, base);
  t.comment(`run page assets: ${runAssets.files} files, ${runAssets.bytes} bytes`);
  const figures = page.locator('#charts figure');
  t.equal(await figures.count(), 7, 'seven charts');
  t.equal(await page.locator('#charts figure canvas').count(), 7, 'each a canvas');
  t.same(await points(page), Array(7).fill(String(STEPS)), 'every chart has one x point per step');
  t.equal(await page.locator('#chart-gaming').getAttribute('data-points'), String(STEPS), 'the gaming signals chart too');
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  const legend = await page.locator('#chart-reward .u-legend').innerText();
  for (const name of ['struct mean', 'pers mean', 'ped mean', 'struct EMA', 'pers EMA', 'ped EMA']) t.match(legend, name, `legend names ${name}`);
  // Mean and EMA are told apart in the legend as on the plot: a solid swatch and a dashed one.
  const swatch = (name: string) =>
    page
      .locator('#chart-reward .u-legend .u-series', { hasText: name })
      .locator('.u-marker')
      .evaluate((m) => getComputedStyle(m).borderTopStyle);
  t.same([await swatch('pers mean'), await swatch('pers EMA')], ['solid', 'dashed'], 'mean and EMA have distinct swatches');
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  const weightsLegend = await page.locator('#chart-weights .u-legend').innerText();
  t.match(
    weightsLegend,
    /struct weight[\s\S]*pers weight[\s\S]*ped weight[\s\S]*w_max[\s\S]*0\.70[\s\S]*w_min[\s\S]*0\.05[\s\S]*refresh/,
    'the bounds in the legend',
  );
  t.match(await page.locator('#bounds').textContent(), /within \[w_min, w_max\] = \[0\.05, 0\.70\]/, 'and beside the weights table');
  // η_w = 2 drives a weight to a bound: it stays there, where clipping before normalizing let it past.
  const rows = ((await call(base, 'GET', `/runs/${RUN}/history?limit=${STEPS}`)) as { rows: { weights_after: Record<string, number> }[] }).rows;
  const weights = rows.flatMap((r) => Object.values(r.weights_after));
  t.ok(
    weights.every((w) => w >= 0.05 && w <= 0.7),
    'every weight within [w_min, w_max]',
  );
  t.ok(
    weights.some((w) => w === 0.05 || w === 0.7),
    'some weight sits on a bound',
  );
  const shown = await page.locator('#weights td.num').allTextContents();
  t.ok(
    shown.filter((_, i) => i % 3 === 0).every((w) => Number(w) >= 0.05 && Number(w) <= 0.7),
    `the weights table: ${shown.join(' ')}`,
  );
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  t.match(await page.locator('#chart-gates .u-legend').innerText(), /gated/);
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  const gamingLegend = await page.locator('#chart-gaming .u-legend').innerText();
  for (const name of [...GAMING_SIGNAL_CODES, 'any signal']) t.match(gamingLegend, name, `gaming legend names ${name}`);
  // Each signal a plan raised is seen, however many others share its values: its colour is on the canvas.
  const raised = new Set<string>();
  for (const r of ((await call(base, 'GET', `/runs/${RUN}/history?limit=${STEPS}`)) as { rows: { gaming: Record<string, number> }[] }).rows) {
    for (const [code, n] of Object.entries(r.gaming)) if (n > 0) raised.add(code);
  }
  // A series' colour is its legend marker's fill, or its border for a line without one.
  const signalColours = await page.locator('#chart-gaming .u-legend .u-series .u-marker').evaluateAll((ms) =>
    ms.map((m) => {
      const style = getComputedStyle(m);
      return [m.parentElement?.textContent?.trim() ?? '', style.backgroundColor === 'rgba(0, 0, 0, 0)' ? style.borderTopColor : style.backgroundColor] as const;
    }),
  );
  t.comment(`signals raised: ${[...raised].join(', ')}`);
  t.ok(raised.size >= 2, 'the run raises two signals or more');
  for (const code of raised) {
    const colour = signalColours.find(([label]) => label.startsWith(code))?.[1];
    const pixels = await colourPixels(page, 'chart-gaming', colour ?? '');
    t.ok(pixels > STEPS / 4, `${code} is drawn: ${pixels} pixels of its colour ${colour}`);
  }
  // Honest axes: every chart's y axis starts at 0, and one labelled (0–1) ends at 1.
  for (const figure of await page.locator('#charts figure').all()) {
    const [min, max] = ((await figure.getAttribute('data-y')) ?? '').split(',').map(Number);
    const label = await figure.getAttribute('data-y-label');
    t.equal(min, 0, `${await figure.getAttribute('id')}: "${label}" starts at 0`);
    if (label?.includes('(0–1)')) t.equal(max, 1, `"${label}" ends at 1`);
  }
  const last = ((await call(base, 'GET', `/runs/${RUN}/history?offset=${STEPS - 2}`)) as { rows: { plans: number; flagged: number }[] }).rows.reverse();
  t.ok(last[1]!.flagged > 0, 'step 62 has a plan flagged: its repeated-step plan');
  t.same(
    await page.locator('#steps tr').evaluateAll((trs) => trs.slice(1, 3).map((tr) => tr.children[4]?.textContent)),
    last.map((r) => `${((100 * r.flagged) / r.plans).toFixed(1)} %`),
    'the latest steps table has the share of plans flagged',
  );
  // Aboutness: its mean per step drawn beside the gaming signals, on a 0–1 axis, and in the table.
  const abouts = ((await call(base, 'GET', `/runs/${RUN}/history?limit=${STEPS}`)) as { rows: { aboutness: number | null }[] }).rows.map((r) => r.aboutness);
  t.ok(
    abouts.every((a) => a !== null && a >= 0 && a <= 1),
    'every step has a mean aboutness in [0, 1]',
  );
  t.ok(
    abouts.some((a) => a! > 0),
    'and some above 0',
  );
  t.equal(await page.locator('#chart-aboutness').getAttribute('data-points'), String(STEPS), 'the aboutness chart has every step');
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text, not the DOM property
  t.match(await page.locator('#chart-aboutness .u-legend').innerText(), 'aboutness (mean of parsed plans)', 'its legend names the series');
  // The series is drawn: its colour (#00798c) is on the plot's canvas, and on no other chart's.
  const seriesPixels = (chart: string) =>
    page.locator(`#${chart} canvas`).evaluate((c: HTMLCanvasElement) => {
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] === 0x00 && data[i + 1] === 0x79 && data[i + 2] === 0x8c && data[i + 3] === 255) n++;
      return n;
    });
  const drawn = await seriesPixels('chart-aboutness');
  t.ok(drawn > STEPS, `the aboutness line is drawn: ${drawn} pixels of its colour`);
  t.equal(await seriesPixels('chart-gaming'), 0, 'a colour of its own');
  t.same(
    await page.locator('#steps tr').evaluateAll((trs) => trs.slice(1, 3).map((tr) => tr.children[5]?.textContent)),
    abouts
      .slice(-2)
      .reverse()
      .map((a) => a!.toFixed(3)),
    'the latest steps table has the mean aboutness',
  );
  const refreshRows = await page.locator('#refreshes tr').count();
  t.equal(refreshRows, 1 + 6, 'six refreshes (after steps 10, 20, … 60), each with its lagging axis');
  t.match(await page.locator('#refreshes tr').nth(1).textContent(), /^60.*(struct|pers|ped) \d\.\d{3} vs ρ 0\.40/);
  t.match(await page.locator('#config').textContent(), /T_refresh.*10/, 'the configuration');
  t.match(await page.locator('#open-step').textContent(), /Step 64 is open/);
  t.match(await page.locator('#updated').textContent(), /checked/);

  // Downloads: the CSV of every finalized step.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  t.equal(csv.suggestedFilename(), `${RUN}-history.csv`);
  const text = await readFile(await csv.path(), 'utf8');
  t.equal(text.trim().split('\n').length, STEPS + 1, 'CSV: a header and a line per step');
  t.match(text, /^step,plans,gated,gated_fraction/);

  // Live: one more step through the API shows up without a reload.
  const requests: string[] = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
  await page.evaluate('window.marker = true');
  started = performance.now();
  await score(base, RUN, STEPS + 1);
  await stepsShown(page, STEPS + 1, 3000);
  const lag = Math.round(performance.now() - started);
  t.ok(lag < 3000, `the new step is drawn ${lag} ms after it was finalized`);
  t.equal(await page.evaluate('window.marker'), true, 'without a reload');
  t.same(await points(page), Array(7).fill(String(STEPS + 1)));
  t.equal(await page.locator('#steps tr').nth(1).locator('td').first().textContent(), String(STEPS), 'the latest steps table starts with the new step');
  t.ok(
    requests.some((r) => r.startsWith(`/runs/${RUN}/history?offset=${STEPS - 5}&`)),
    'only the new rows (and the last few again, for late plans) are read',
  );

  // Following a run for 30 s while a trainer finalizes a step every 3 s: requests per minute.
  requests.length = 0;
  started = performance.now();
  let step = STEPS + 2;
  while (performance.now() - started < 30_000) {
    await score(base, RUN, step++);
    await new Promise((r) => setTimeout(r, 3000));
  }
  const runCalls = requests.filter((r) => r.startsWith(`/runs/${RUN}`) && !r.includes('/history')).length;
  const historyCalls = requests.filter((r) => r.includes('/history')).length;
  t.comment(
    `following for 30 s (${step - STEPS - 2} new steps): ${requests.length} requests (${runCalls} run, ${historyCalls} history) ≈ ${requests.length * 2}/min`,
  );
  t.ok(requests.length <= 2 * 32, 'at most a run and a history request a second');
  await stepsShown(page, step - 1, 3000);

  // A hidden tab stops polling; shown again it catches up at once.
  await setHidden(page, true);
  await new Promise((r) => setTimeout(r, 1500)); // a request in flight may finish
  requests.length = 0;
  await score(base, RUN, step++);
  await new Promise((r) => setTimeout(r, 3000));
  t.equal(requests.length, 0, 'no request while hidden');
  await setHidden(page, false);
  await stepsShown(page, step - 1, 3000);
  t.pass('shown again, the page catches up');

  if (SCREENSHOT_DIR) {
    await page.mouse.move(10, 10);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboard-run.png`, fullPage: true });
  }
  t.same(errors, [], 'no console errors: nothing blocked by the CSP');
});

t.test('the gaming chart: a signal that every flagged plan raises is not hidden under "any signal"', async (t) => {
  const { base, browser } = await serviceAndBrowser(t);
  const repeated = {
    ...EXAMPLE_PLAN,
    steps: Array.from({ length: 12 }, (_, i) => ({ ...EXAMPLE_PLAN.steps[2]!, id: `r${i}`, depends_on: i === 0 ? [] : [`r${i - 1}`] })),
  };
  // duplicate_steps is the only signal raised: its share equals the share flagged at every step.
  for (let step = 0; step <= 8; step++) {
    const completions = [EXAMPLE_PLAN, repeated, ...(step % 2 ? [EXAMPLE_PLAN] : [])];
    await call(base, 'POST', '/score-plan', {
      run_id: 'overlap',
      step,
      groups: [{ id: `s${step}`, query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, completions }],
    });
  }
  const rows = ((await call(base, 'GET', '/runs/overlap/history')) as { rows: { flagged: number; gaming: Record<string, number> }[] }).rows;
  t.ok(
    rows.every((r) => r.flagged === 1 && r.gaming.duplicate_steps === 1 && Object.values(r.gaming).reduce((a, b) => a + b) === 1),
    'one signal, raised by the one flagged plan of each step',
  );
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/dashboard/run.html?id=overlap`);
  await stepsShown(page, 8, 10_000);
  const marker = (label: string) =>
    page
      .locator('#chart-gaming .u-legend .u-series', { hasText: label })
      .locator('.u-marker')
      .evaluate((m) => {
        const style = getComputedStyle(m);
        return style.backgroundColor === 'rgba(0, 0, 0, 0)' ? style.borderTopColor : style.backgroundColor;
      });
  for (const label of ['duplicate_steps', 'any signal']) {
    const pixels = await colourPixels(page, 'chart-gaming', await marker(label));
    t.ok(pixels > 100, `${label}: ${pixels} pixels of its colour`);
  }
});

t.test('with API keys the pages ask for a key, and a read key is enough', async (t) => {
  const readKey = 'read-key-0123456789abcdef';
  const scoreKey = 'score-key-0123456789abcdef';
  const { base, browser } = await serviceAndBrowser(t, { API_KEYS: `read:${readKey},score:${scoreKey}` });
  for (let step = 0; step < 3; step++) await score(base, 'keyed-run', step, scoreKey);

  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // The browser reports each refused call on the console; those are expected here.
  const errors = pageErrors(page, /status of 401/);
  await page.goto(`${base}/dashboard/`);
  const error = page.locator('#error');
  await error.waitFor({ state: 'visible', timeout: 10_000 });
  t.match(await error.textContent(), /^401 .*Enter a key above/, 'without a key: the 401 and what to do');
  t.equal(await page.locator('#runs tr').count(), 0, 'no list');

  await page.getByLabel('API key').fill(readKey);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.locator('#runs a[href="run.html?id=keyed-run"]').waitFor({ timeout: 10_000 });
  t.ok(await error.isHidden(), 'the error is gone');

  await page.locator('#runs a[href="run.html?id=keyed-run"]').click();
  await stepsShown(page, 2, 10_000);
  t.pass('the run page works with the key kept for the tab');

  // A new tab of its own has no key: the run page says so too.
  const other = await browser.newPage();
  const otherErrors = pageErrors(other, /status of 401/);
  await other.goto(`${base}/dashboard/run.html?id=keyed-run`);
  await other.locator('#error').waitFor({ state: 'visible', timeout: 10_000 });
  t.match(await other.locator('#error').textContent(), /^401 /);

  // The verifier and tracer need a score key: with the read key, the 403 shows where the button is, on a
  // window too short to show the top of the form beside it.
  const short = await browser.newPage({ viewport: { width: 1000, height: 500 } });
  const shortErrors = pageErrors(short, /status of 403/);
  await short.goto(`${base}/dashboard/verify.html`);
  await short.getByLabel('API key').fill(readKey);
  await short.getByRole('button', { name: 'Use key' }).click();
  for (const [html, button] of [
    ['verify.html', 'Score candidates'],
    ['trace.html', 'Trace knowledge'],
  ] as const) {
    await short.goto(`${base}/dashboard/${html}`);
    await short.getByRole('button', { name: 'Load example' }).click();
    await t.resolves(
      waitForValue(short, '#dialogue', (v) => v !== ''),
      `${html}: example loaded`,
    );
    await short.getByRole('button', { name: button }).click();
    const refused = short.locator('#error');
    await refused.waitFor({ state: 'visible', timeout: 10_000 });
    t.match(await refused.textContent(), /^403 /, `${html}: the 403`);
    const box = await refused.boundingBox();
    t.ok(box && box.y >= 0 && box.y + box.height <= 500, `${html}: the error is inside the window (top at ${box?.y})`);
  }
  t.same([...errors, ...otherErrors, ...shortErrors], [], 'no other console errors');
});

t.test('a run that does not exist: the page says so and stops saying "loading…"', async (t) => {
  const { base, browser } = await serviceAndBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = pageErrors(page, /status of 404/);
  await page.goto(`${base}/dashboard/run.html?id=no-such-run`);
  await page.locator('#error').waitFor({ state: 'visible', timeout: 10_000 });
  t.match(await page.locator('#error').textContent(), /No run "no-such-run" on this service/);
  t.equal(await page.locator('#summary').textContent(), 'no such run');

  // A trainer creates it meanwhile: the page keeps checking and shows it.
  await call(base, 'PUT', '/runs/no-such-run', {});
  await page.locator('#summary', { hasText: '0 finalized steps' }).waitFor({ timeout: 15_000 });
  t.ok(await page.locator('#error').isHidden(), 'the error is gone once the run exists');
  t.same(errors, [], 'no other console errors');
});
