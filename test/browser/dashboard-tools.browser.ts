/// <reference lib="dom" />
// `npm run test:browser`: the dashboard's verifier playground and knowledge-trace view in a real headless
// Chromium. Each page is filled as a researcher would, from a Coding-Tutor dialogue, and what it shows is
// checked against a direct call of the same API with the same body. SCREENSHOT_DIR=… saves both pages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pageErrors, serviceAndBrowser, waitForValue } from '../support/browser.js';

const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;

type Turn = { role: 'tutor' | 'student'; text: string };
type VerifyAnswer = {
  ranking: number[];
  scores: number[];
  best: { index: number; score: number };
  candidates: {
    features?: Record<string, number>;
    dimensions?: Record<string, number>;
    reveals: { kind: string } | null;
    misdirects: number[] | null;
    guides: number[] | null;
  }[];
};
type TraceAnswer = { kcs: { id: string; status: string; p_before: number; evidence: { turn: number; p_after: number }[] }[]; turns_total: number };
type Pair = {
  task: string;
  dependency_all: string;
  reference_steps: string;
  model_1: { conversation: Record<string, string>[] };
  model_2: { conversation: Record<string, string>[] };
};
const pairs = JSON.parse(readFileSync(new URL('../fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Pair[];
const turnsOf = (c: Pair['model_1']) => c.conversation.map((m): Turn => ({ role: Object.keys(m)[0] as Turn['role'], text: Object.values(m)[0]! }));
const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
// The playground separates candidates by blank lines: one inside a candidate is dropped when it is typed.
const oneBlock = (s: string) => s.replace(/\n[ \t]*\n+/g, '\n').trim();

const jax = pairs[1]!; // plus_eps: 1 dependency, 8 solution steps, 12 turns
const dialogue = turnsOf(jax.model_1);

// (a) The dialogue up to the student's question about `jnp.where`; the candidates for the next tutor turn:
// what each of the two tutor models said, a curt reply, and one that gives the whole solution away.
const verifyBody = {
  task: { description: jax.task.trim(), dependencies: lines(jax.dependency_all), solution_steps: lines(jax.reference_steps) },
  context: dialogue.slice(0, 6), // typed as JSON: the texts go as they are
  candidates: [
    oneBlock(turnsOf(jax.model_1)[6]!.text),
    oneBlock(turnsOf(jax.model_2)[6]!.text),
    'Try again.',
    'Just write `return jnp.where(jnp.abs(x) < tiny_val, tiny_val, jnp.nextafter(jnp.float32(x), jnp.inf))` and you are done.',
  ],
};

// (b) The whole dialogue against the task's KCs, the Coding-Tutor text fields as they are.
const traceBody = {
  task: { dependencies: jax.dependency_all, solution_steps: jax.reference_steps },
  context: dialogue.map((m) => ({ role: m.role, text: m.text.trim() })), // typed as lines: each turn trimmed
};

t.test('dashboard: verifier playground and knowledge trace', async (t) => {
  const { base, browser } = await serviceAndBrowser(t);
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.equal(res.status, 200, `direct POST ${path}`);
    return (await res.json()) as T;
  };
  const newPage = () => browser.newPage({ viewport: { width: 1400, height: 900 } });

  await t.test('verifier playground: the ranked list is the API ranking', async (t) => {
    const page = await newPage();
    const errors = pageErrors(page);
    await page.goto(`${base}/dashboard/verify.html`);

    // The API's own example, read from /docs/json, scores as it is.
    await page.getByRole('button', { name: 'Load example' }).click();
    await t.resolves(waitForValue(page, '#candidates', (v) => v !== ''));
    await page.getByRole('button', { name: 'Score candidates' }).click();
    await page.locator('#ranking li').nth(2).waitFor();
    t.equal(await page.locator('#ranking li').count(), 3, 'the example: 3 candidates ranked');

    // The fixture dialogue, typed as Coding-Tutor's own JSON ([{"tutor": …}, …]).
    await page.fill('#task-description', verifyBody.task.description);
    await page.fill('#task-dependencies', jax.dependency_all);
    await page.fill('#task-steps', jax.reference_steps);
    await page.fill('#dialogue', JSON.stringify(jax.model_1.conversation.slice(0, 6), null, 1));
    await page.fill('#candidates', verifyBody.candidates.join('\n\n'));
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url() === `${base}/verify-turn` && r.method() === 'POST'),
      page.getByRole('button', { name: 'Score candidates' }).click(),
    ]);
    t.same(request.postDataJSON(), verifyBody, 'the form sends the task, the dialogue and the candidates as typed');
    await page.locator('#ranking li').nth(3).waitFor();
    const shown = await page.$$eval('#ranking li', (items) =>
      items.map((li) => ({
        index: Number(li.getAttribute('data-index')),
        rank: li.querySelector('.rank')?.textContent,
        score: li.querySelector('.score')?.textContent,
        text: li.querySelector('.cand-text')?.textContent,
        label: li.querySelector('.cand-head .note')?.textContent,
        features: li.querySelectorAll('.features:not(.dimensions) .feature').length,
        dimensions: Array.from(li.querySelectorAll('.dimensions .feature dd'), (d) => d.textContent),
      })),
    );

    const direct = await post<VerifyAnswer>('/verify-turn', verifyBody);
    t.same(
      shown.map((s) => s.index),
      direct.ranking,
      `same order as the API: ${direct.ranking.join(', ')}`,
    );
    t.same(
      shown.map((s) => s.rank),
      ['#1', '#2', '#3', '#4'],
    );
    t.same(
      shown.map((s) => s.text),
      direct.ranking.map((i) => verifyBody.candidates[i]),
      'each rank shows its candidate',
    );
    t.same(
      shown.map((s) => s.label?.replace(/ ·.*/, '')),
      direct.ranking.map((i) => `candidate ${i}`),
      "each card names its candidate by the API's index",
    );
    t.equal(await page.locator('#status').textContent(), `Best: candidate ${direct.best.index} (${direct.best.score.toFixed(3)}).`);
    t.same(
      shown.map((s) => s.score),
      direct.ranking.map((i) => direct.scores[i]!.toFixed(3)),
      'and its score',
    );
    t.same(
      shown.map((s) => s.features),
      direct.ranking.map((i) => Object.keys(direct.candidates[i]!.features ?? {}).length),
      'one bar per feature the API explains the candidate with',
    );
    t.same(
      shown.map((s) => s.dimensions),
      direct.ranking.map((i) => Object.values(direct.candidates[i]!.dimensions!).map((p) => p.toFixed(2))),
      "and one per predicted quality, with the API's probability",
    );
    t.ok(shown.every((s) => s.dimensions.length === 8));
    t.same(errors, [], 'no console errors');
    if (SCREENSHOT_DIR) await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-verify.png'), fullPage: true });

    // With the reference code: each card says what the service read in its candidate, as the API does.
    const reference_code = 'def sum_to(n):\n    total = 0\n    for i in range(n + 1):\n        total += i\n    return total';
    const codeBody = {
      task: { description: 'def sum_to(n): return 0 + 1 + ... + n', reference_code },
      context: [{ role: 'student', text: `Mine is one short:\n\`\`\`python\n${reference_code.replace('range(n + 1)', 'range(n)')}\n\`\`\`` }],
      candidates: [
        'By the way, have you set up version control for this project yet?',
        'What values does `for i in range(n):` give i when n is 3?',
        'The bug is on line 2: `total = 0`. Can you see why?',
        'Line 3 should read `for i in range(n + 1):`.',
      ],
    };
    await page.fill('#task-description', codeBody.task.description);
    await page.fill('#task-dependencies', '');
    await page.fill('#task-steps', '');
    await page.fill('#task-reference', reference_code);
    await page.fill('#dialogue', JSON.stringify(codeBody.context));
    await page.fill('#candidates', codeBody.candidates.join('\n\n'));
    const [codeRequest] = await Promise.all([
      page.waitForRequest((r) => r.url() === `${base}/verify-turn` && r.method() === 'POST'),
      page.getByRole('button', { name: 'Score candidates' }).click(),
    ]);
    t.same(codeRequest.postDataJSON(), codeBody, 'the reference code goes as task.reference_code');
    // The cards of the run before stay until this answer is shown: wait for the status it sets (the click set "Scoring…").
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Best:'));
    const cards = await page.$$eval('#ranking li', (items) =>
      items.map((li) => ({ index: Number(li.getAttribute('data-index')), findings: Array.from(li.querySelectorAll('.finding'), (p) => p.textContent) })),
    );
    const answer = await post<VerifyAnswer>('/verify-turn', codeBody);
    t.same(
      cards.map((c) => c.index),
      answer.ranking,
      'same order as the API',
    );
    t.same(
      answer.ranking.map((i) => [answer.candidates[i]!.guides, answer.candidates[i]!.misdirects, answer.candidates[i]!.reveals?.kind ?? null]),
      [
        [[3], null, null],
        [null, null, null],
        [null, [2], null],
        [null, null, 'fix'],
      ],
      'the API: the question at the buggy line first, the remark, the wrong pointer, the fix given last',
    );
    t.same(
      cards.map((c) => c.findings),
      [['points at line 3, where the fix is'], [], ['points at line 2, which the fix does not change'], ['reveals the answer: fix']],
      'and each card says why',
    );

    // A 400 names the field: a candidate past the length limit.
    await page.fill('#candidates', 'x'.repeat(20_001));
    await page.getByRole('button', { name: 'Score candidates' }).click();
    await page.locator('#error').waitFor();
    t.match(await page.locator('#error').textContent(), /^400 invalid_request: .*\$\.candidates\[0\].*\(field: Candidate tutor turns\)$/);
    t.equal(await page.locator('#candidates').getAttribute('aria-invalid'), 'true', 'the field is marked');
    t.ok(await page.locator('#candidates').evaluate((node) => node === node.ownerDocument.activeElement), 'and focused');
    t.equal(errors.length, 1, 'one console error after the refused request');
    t.match(errors[0], /status of 400/, 'Chromium logging the 400');
    await page.close();
  });

  await t.test('knowledge trace: one chart series per KC, evidence under the cursor', async (t) => {
    const page = await newPage();
    const errors = pageErrors(page);
    await page.goto(`${base}/dashboard/trace.html`);
    // The fixture dialogue, typed as `role: text` lines (its turns span several lines).
    await page.fill('#task-dependencies', jax.dependency_all);
    await page.fill('#task-steps', jax.reference_steps);
    await page.fill('#dialogue', dialogue.map((m) => `${m.role}: ${m.text}`).join('\n'));
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url() === `${base}/trace-knowledge` && r.method() === 'POST'),
      page.getByRole('button', { name: 'Trace knowledge' }).click(),
    ]);
    t.same(request.postDataJSON(), traceBody, 'the form sends the task fields and the dialogue as typed');
    await page.locator('#trace-chart .u-legend').waitFor();

    const direct = await post<TraceAnswer>('/trace-knowledge', traceBody);
    const kcs = direct.kcs;
    t.equal(kcs.length, 9, 'the fixture task has 9 KCs');
    const chart = page.locator('#trace-chart');
    t.equal(await chart.getAttribute('data-series'), String(kcs.length), 'data-series: one per KC');
    // uPlot's legend: the x series (Turn) first, then one entry per plotted series.
    t.equal((await chart.locator('.u-legend .u-series').count()) - 1, kcs.length, 'one legend entry per KC');
    t.equal(await chart.getAttribute('data-turns'), String(direct.turns_total));
    const final = await page.$$eval('#final tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-kc'), r.getAttribute('data-status')]));
    t.same(
      final,
      kcs.map((k) => [k.id, k.status]),
      'the final table: every KC with its status',
    );
    // Every KC's line shows, even where KCs share a trajectory: its colour is on the plot.
    // (No named function inside: the page would not know tsx's __name helper.)
    const visible = await chart.evaluate((host) => {
      const canvas = host.querySelector('canvas')!;
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      return Array.from(host.querySelectorAll('.u-legend .u-series'))
        .slice(1)
        .map((row) => {
          const [r, g, b] = getComputedStyle(row.querySelector('.u-marker')!).borderTopColor.match(/\d+/g)!.slice(0, 3).map(Number);
          let pixels = 0;
          for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 12) pixels++;
          return pixels;
        });
    });
    // p(known) after each turn, as the chart draws it.
    const trajectory = (k: TraceAnswer['kcs'][number]) =>
      JSON.stringify(Array.from({ length: direct.turns_total + 1 }, (_, x) => k.evidence.filter((e) => e.turn + 1 <= x).at(-1)?.p_after ?? k.p_before));
    const twins = kcs.filter((k) => kcs.some((o) => o !== k && trajectory(o) === trajectory(k))).length;
    t.ok(twins >= 2, `${twins} KCs share their trajectory with another (drawn on one line but for the offsets)`);
    t.ok(
      visible.every((n) => n >= 50),
      `every KC's colour is on the plot (pixels: ${visible.join(', ')})`,
    );
    const evidence = kcs.flatMap((k) => k.evidence);
    t.equal(await page.locator('#evidence tbody tr').count(), evidence.length, 'every evidence step is listed');

    // Hover turn 10 (the API's turn 9): exactly its evidence is highlighted.
    await chart.locator('.u-over').scrollIntoViewIfNeeded();
    const over = await chart.locator('.u-over').boundingBox();
    t.ok(over);
    await page.mouse.move(over!.x + (over!.width * 10) / direct.turns_total, over!.y + over!.height / 2);
    await waitForValue(page, '#turn', (v) => v === '10');
    const highlighted = await page.$$eval('#evidence tr.current', (rows) => rows.map((r) => r.getAttribute('data-turn')));
    const atTurn = evidence.filter((e) => e.turn === 9).length;
    t.ok(atTurn > 0, 'the fixture has evidence at turn 10');
    t.same(highlighted, Array(atTurn).fill('10'), 'the hovered turn’s evidence is highlighted');
    // The same from the keyboard: the turn slider moves the cursor.
    await page.mouse.move(0, 0);
    await page.locator('#turn').focus();
    await page.keyboard.press('ArrowLeft');
    t.equal(await page.locator('#turn').inputValue(), '9');
    t.equal(await page.locator('#evidence tr.current').count(), evidence.filter((e) => e.turn === 8).length, 'the slider highlights turn 9');
    t.match(await page.locator('#turn-value').textContent(), /^9 — tutor: /);
    t.same(errors, [], 'no console errors');
    if (SCREENSHOT_DIR) {
      await page.keyboard.press('ArrowRight');
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-trace.png'), fullPage: true });
    }
    await page.close();
  });
});
