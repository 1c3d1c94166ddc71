// The README's and the guides' shell blocks, run as a reader pastes them, against a fresh service, so they
// cannot rot. A block fenced ```sh run (or ```bash run) is run; ```sh start (`VAR=… npm start`) is where the
// reader restarts the service, and the test restarts its own with those variables; any other block is
// shown only (GitHub takes the first word of the info string as the language, so every one renders alike).
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tempStateDir } from '../support/app.js';
import { ROOT } from '../support/children.js';
import { startService, type Service } from '../support/service.js';
import { tempDir } from '../support/temp.js';

interface Block {
  doc: string;
  line: number;
  kind: 'run' | 'start';
  code: string;
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${doc}:${i + 1}: unclosed fence`);
    const kind = open[2]!.trim();
    if (['sh', 'bash'].includes(open[1]!) && (kind === 'run' || kind === 'start')) {
      blocks.push({ doc, line: i + 1, kind, code: lines.slice(i + 1, end).join('\n') });
    }
    i = end;
  }
  return blocks;
}

/** What a block is there to show, checked on its output; each must find its block (by a line it contains). */
const SHOWS: Array<{ doc: string; contains: string; check: (t: Test, out: string) => void }> = [
  {
    doc: 'docs/quick-starts.md',
    contains: "history?format=csv'",
    check: (t, out) => t.match(out, /step,plans,.*\n\d+,4,/, 'the CSV history has a finalized step'),
  },
  {
    doc: 'docs/quick-starts.md',
    contains: '--data @examples/verify-turn.json',
    check: (t, out) => {
      const { candidates, ranking } = JSON.parse(out) as {
        candidates: Array<{ reveals: { kind: string } | null; dimensions: { reveals_answer: number } }>;
        ranking: number[];
      };
      t.match(candidates[0], { reveals: { kind: 'stated_answer' } }, 'the stated answer is flagged');
      t.match(candidates[2], { reveals: { kind: 'reference_code' } }, 'the pasted solution is flagged');
      t.ok(candidates[0]!.dimensions.reveals_answer >= 0.5 && candidates[2]!.dimensions.reveals_answer >= 0.5, 'reveals_answer ≥ 0.5');
      t.equal(candidates[1]!.reveals, null, 'the guiding question reveals nothing');
      t.equal(ranking[0], 1, 'the guiding question ranks first');
    },
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'previous_turns: last.turns_total',
    check: (t, out) => {
      const answer = JSON.parse(out) as { turns_read: number; turns_total: number; kcs: Array<{ id: string; p_before: number; p_after: number }> };
      t.match(answer, { turns_read: 2, turns_total: 4 }, 'only the new turns are read');
      const fetch = answer.kcs.find((kc) => kc.id === 'step:2');
      t.ok(fetch && fetch.p_after > fetch.p_before, 'step:2 rises from where the first call left it');
    },
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'from tutor_reward import PlanReward',
    check: (t, out) => t.match(out, /^\[-?[\d.]+, -[\d.]+\]$/m, 'two rewards, as TRL gets them'),
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'npx plan-reward audit examples/plans.jsonl',
    check: (t, out) => {
      t.match(out, /^Static gate: rejections by reason \(T3\)$/m, 'the summary, printed');
      t.notMatch(out, /^## /m, 'once: not also as Markdown');
      t.match(out, /"id":"gamed-keyword-lists".*"score":1,/, 'the keyword list scores 1.0 on the paper’s rewards');
    },
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'npx plan-reward keys new --scope admin --file keys.txt',
    check: (t, out) => t.match(out, /^[\w-]{43}$/m, 'the key, printed once'),
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'Authorization: Bearer',
    check: (t, out) => t.match(JSON.parse(out), { id: 'quickstart' }, 'the keyed service answers with the key'),
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'localhost:8080/evaluate-dialogue',
    check: (t, out) => t.match(JSON.parse(out), { metrics: {} }, 'the dialogue’s metrics'),
  },
  {
    doc: 'docs/quick-starts.md',
    contains: 'curl -s localhost:8080/\n',
    check: (t, out) => t.match(JSON.parse(out), { dashboard: '/dashboard/', docs: '/docs' }, 'the addresses to start from'),
  },
  {
    doc: 'docs/scoring-and-runs.md',
    contains: '"run_id": null',
    check: (t, out) =>
      t.match(
        JSON.parse(out),
        { run: null, groups: [{ plans: [{ gate: { failed: false } }, { gate: { failed: true } }, { gate: { failed: true } }] }] },
        'stateless; the first plan passes, the others are gated',
      ),
  },
];

/** A directory to paste in: the repository's files linked, examples/ copied (the audit writes beside them). */
function workDir(): string {
  const dir = tempDir('shell-blocks-');
  for (const f of ['package.json', 'bin', 'dist', 'node_modules', 'clients', 'src', 'tsconfig.json']) symlinkSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  return dir;
}

async function ready(svc: Service): Promise<void> {
  // The reader's first request would wait for the models; waiting here keeps the blocks' deadlines to their own work.
  for (const name of ['verify_turn', 'trace_knowledge', 'meteor']) await svc.waitForLine((l) => l.capability === name);
}

/** `VAR=value … npm start`: the variables, with paths made absolute in `cwd`; HOST and PORT stay the test's. */
function startEnv(code: string, cwd: string): Record<string, string> {
  const line = code.split('\n').find((l) => /\bnpm start\b/.test(l));
  if (!line) throw new Error(`a start block without npm start: ${code}`);
  const env: Record<string, string> = {};
  for (const [, k, v] of line.matchAll(/\b([A-Z_]+)=(\S+)/g))
    if (k !== 'HOST' && k !== 'PORT') env[k!] = k!.endsWith('_FILE') || k === 'STATE_DIR' ? join(cwd, v!) : v!;
  return env;
}

function runBlock(code: string, cwd: string): Promise<{ status: number | null; out: string; err: string }> {
  // curl answers 0 to a 4xx or 5xx unless told otherwise; a block must get what it asked for.
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${code}\n`;
  return new Promise((resolve, reject) => {
    // Outside tap's coverage hooks, as a reader's shell would be: tap adds them back to a child's environment,
    // so they are removed inside it (`env -u`). A block's node processes would otherwise report coverage of
    // the sources through their own transforms, which tap's merge turns into uncovered functions.
    const sh = spawn('env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', 'bash', '-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    sh.stdout.on('data', (d: Buffer) => (out += d.toString()));
    sh.stderr.on('data', (d: Buffer) => (err += d.toString()));
    sh.on('error', reject);
    sh.on('close', (status) => resolve({ status, out, err }));
  });
}

t.test('the shell blocks of the README and the guides run in order against a started service', async (t) => {
  t.setTimeout(900_000);
  for (const tool of ['curl', 'python3']) t.equal((await runBlock(`command -v ${tool}`, ROOT)).status, 0, `${tool} is installed`);
  const used = new Set<(typeof SHOWS)[number]>();
  let ran = 0;
  for (const doc of DOCS) {
    const blocks = blocksOf(doc);
    if (blocks.length === 0) continue;
    const cwd = workDir();
    const stateDir = tempStateDir();
    let svc = await startService({ STATE_DIR: stateDir });
    await ready(svc);
    t.teardown(() => svc.child.kill('SIGKILL'));
    for (const block of blocks) {
      const where = `${doc}:${block.line}`;
      if (block.kind === 'start') {
        svc.child.kill('SIGTERM');
        t.equal(await svc.exited, 0, `${where}: the service stops for the restart`);
        svc = await startService({ STATE_DIR: stateDir, ...startEnv(block.code, cwd) });
        await ready(svc);
        continue;
      }
      const code = block.code.replaceAll('localhost:8080', new URL(svc.base).host);
      const { status, out, err } = await runBlock(code, cwd);
      ran++;
      t.equal(status, 0, `${where} runs`, { stdout: out.slice(-2000), stderr: err.slice(-2000) });
      t.not(out.trim(), '', `${where} prints something`);
      for (const show of SHOWS.filter((s) => s.doc === doc && `${block.code}\n`.includes(s.contains))) {
        used.add(show);
        t.test(`${where} shows what it is there for`, async (t) => show.check(t, out));
      }
      if (block.code.includes('Authorization: Bearer')) {
        // The key must be what let the block in: the same request without it is refused.
        const anonymous = await fetch(`${svc.base}/runs/quickstart`);
        t.equal(anonymous.status, 401, `${where}: without the key, 401`);
      }
    }
  }
  t.ok(ran > 0, `${ran} blocks ran`);
  for (const show of SHOWS) t.ok(used.has(show), `${show.doc} has the block with ${show.contains}`);
});
