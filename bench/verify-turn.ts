// `npm run bench`, turn verification: POST /verify-turn with N = 1, 5, 10, 20 candidates and a dialogue
// context of 1,500 tokens (counted with the default encoder's tokenizer), against the service running as
// `npm start` runs it. Every round sends a new task, a new context and new candidates, so the encoder's
// cache never answers for the model. Reports the server's own latency (latency_ms) and the client's round trip,
// and after each round the floor: the same texts, as the verifier prepares them, embedded by the served
// encoder in this process on one thread (as a worker runs it), with nothing else of the request.
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { SentenceEncoder } from '../src/text/encoder.js';
import { fitContext, taskText, turnLine } from '../src/verify/format.js';
import { ConfigSchema } from '../src/config.js';
import { MODELS_AT_START, startBuiltService } from './service.js';
import { writeResult } from './results.js';

const ROUNDS = Number(process.env.BENCH_VERIFY_ROUNDS ?? 60);
const WARM_UP = 5;
const CONTEXT_TOKENS = 1500;
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
const fmt = (x: number) => x.toFixed(1);

const tokenizer = new Tokenizer(JSON.parse(readFileSync(new URL('../models/use-lite/tokenizer.json', import.meta.url), 'utf8')) as object, {});
const count = (text: string) => tokenizer.tokenize(text).length;

const task = (round: number) => ({
  description: `def moving_average_${round}(values: list[float], window: int) -> list[float]: """Return the mean of each run of \`window\` consecutive values."""`,
  dependencies: ['statistics.mean', 'collections.deque'],
  solution_steps: [
    'Check that the window is positive and not longer than the list',
    'Keep a running sum of the current window',
    'Slide the window one value at a time and append sum / window',
  ],
  // The reference solution: every candidate is also read against it (answer revealing).
  reference_code: [
    `def moving_average_${round}(values, window):`,
    '    if window <= 0 or window > len(values):',
    '        raise ValueError("window")',
    '    total = sum(values[:window])',
    '    out = [total / window]',
    '    for i in range(window, len(values)):',
    '        total += values[i] - values[i - window]',
    '        out.append(total / window)',
    '    return out',
  ].join('\n'),
});
const tutorLines = [
  'What should moving_average([1, 2, 3, 4], 2) return, step by step?',
  'Good start. Which values fall into the first window when the window size is {n}?',
  'Look at your loop bounds: how many windows fit into a list of {n} values?',
  'Can you explain why the running sum avoids adding the same values again?',
  'What happens to the sum when the window moves one position to the right?',
  'Try printing the window and its sum inside the loop for the first {n} iterations.',
];
const studentLines = [
  'I think it returns [1.5, 2.5, 3.5] but my code gives one value fewer.',
  'I loop from 0 to len(values) - window and take values[i:i+window], then divide by {n}.',
  'I am not sure why deque is in the dependencies, I just used a list slice.',
  'The last window is missing, so maybe the range should end at len(values) - window + 1?',
  'When the window moves I subtract the value that leaves and add the value that enters, which gives {n}.',
];
function context(round: number): { role: 'tutor' | 'student'; text: string }[] {
  const turns: { role: 'tutor' | 'student'; text: string }[] = [];
  let tokens = 0;
  for (let i = 0; tokens < CONTEXT_TOKENS; i++) {
    const role = i % 2 ? 'student' : 'tutor';
    const lines = role === 'tutor' ? tutorLines : studentLines;
    // The round in every turn, so that no round's latest 600 characters repeat an earlier one's.
    const text = `${lines[(i + round) % lines.length]!.replace('{n}', String(round * 100 + i))} [${round}]`;
    turns.push({ role, text });
    tokens += count(`${turnLine({ role, text })}\n`);
  }
  return turns;
}
// The round in every candidate: three of the six lines have no {n}, and as they were, half the
// candidates were the same texts every round and came from the encoder's cache.
const candidates = (n: number, round: number) =>
  Array.from({ length: n }, (_, i) => `${tutorLines[i % tutorLines.length]!.replace('{n}', String(round * 1000 + i))} (${round}.${i + 1})`);

const verifierManifest = JSON.parse(readFileSync(new URL('../models/verifier/manifest.json', import.meta.url), 'utf8')) as {
  encoder: string;
  context_chars: number;
};
const config = ConfigSchema.parse({});
const floorEncoder = await SentenceEncoder.fromDirectory(new URL(`../models/verifier/${verifierManifest.encoder}`, import.meta.url).pathname, {
  cacheSize: 1,
  batchSize: config.ENCODER_BATCH_SIZE,
  intraOpThreads: 1,
});
/** The encoder's share of a request: its texts tokenized once and embedded, none from a cache. */
async function floorMs(request: { task: ReturnType<typeof task>; context: ReturnType<typeof context>; candidates: string[] }): Promise<number> {
  const t = performance.now();
  const encode = floorEncoder.encodeOnce();
  const ctx = fitContext(request.context, verifierManifest.context_chars, (text) => !encode(text).truncated);
  await floorEncoder.embed([taskText(request.task), ctx.text, ...request.candidates], (text) => encode(text).ids);
  return performance.now() - t;
}

const { base, child } = await startBuiltService(MODELS_AT_START);
/** The encoder cache's hits so far, from /metrics. */
async function cacheHits(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^tutor_encoder_cache_lookups_total\{result="hit"\} (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}
const results: Record<string, unknown>[] = [];
try {
  const contextTokens = context(0).reduce((n, t) => n + count(`${turnLine(t)}\n`), 0);
  let round = 0;
  for (const n of [1, 5, 10, 20]) {
    const server: number[] = [];
    const client: number[] = [];
    const floor: number[] = [];
    const ratios: number[] = [];
    let hits = 0;
    for (let i = 0; i < ROUNDS + WARM_UP; i++, round++) {
      const request = { task: task(round), context: context(round), candidates: candidates(n, round) };
      const body = JSON.stringify(request);
      const t = performance.now();
      const res = await fetch(`${base}/verify-turn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const json = (await res.json()) as { latency_ms: number; scores: number[] };
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
      if (json.scores.length !== n) throw new Error(`expected ${n} scores`);
      if (i === WARM_UP - 1) hits = await cacheHits();
      const clientMs = performance.now() - t;
      const floorOf = await floorMs(request);
      if (i >= WARM_UP) {
        client.push(clientMs);
        server.push(json.latency_ms);
        floor.push(floorOf);
        ratios.push(json.latency_ms / floorOf);
      }
    }
    results.push({
      candidates: n,
      context_tokens: contextTokens,
      rounds: ROUNDS,
      // The measured rounds' encoder cache hits: 0 when every text was new.
      cache_hits: (await cacheHits()) - hits,
      server_ms: { p50: q(server, 0.5), p99: q(server, 0.99) },
      client_ms: { p50: q(client, 0.5), p99: q(client, 0.99) },
      encoder_floor_ms: { p50: q(floor, 0.5) },
      // Each round's server time over its own floor, measured right after it: the median of those.
      server_over_floor: q(ratios, 0.5),
    });
  }
} finally {
  child.kill('SIGTERM');
}
console.log(JSON.stringify({ verify_turn: results }, null, 2));
writeResult('verify-turn', { verify_turn: results });
for (const r of results as Array<{
  candidates: number;
  cache_hits: number;
  server_ms: { p50: number; p99: number };
  client_ms: { p50: number; p99: number };
  encoder_floor_ms: { p50: number };
  server_over_floor: number;
}>) {
  console.log(
    `verify-turn N=${String(r.candidates).padStart(2)} (${r.cache_hits} cache hits): server p50 ${fmt(r.server_ms.p50)} ms, p99 ${fmt(r.server_ms.p99)} ms; round trip p50 ${fmt(r.client_ms.p50)} ms, p99 ${fmt(r.client_ms.p99)} ms; encoder floor p50 ${fmt(r.encoder_floor_ms.p50)} ms, server ÷ floor ${r.server_over_floor.toFixed(2)}` +
      (r.candidates === 20 ? ' (targets: p50 < 60 ms, ÷ floor ≤ 1.15)' : ''),
  );
}
