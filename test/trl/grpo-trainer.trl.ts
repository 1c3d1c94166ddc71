// `npm run test:trl`: a real trl.GRPOTrainer (trl 1.13.0, CPU, a tiny random Llama) rewarded by the Python
// client's PlanReward against the live service (issue 48). The harness is
// clients/python/tests/real_trl/grpo_run.py; TRL_PYTHON is a python with trl installed (scripts/trl-venv.sh).
// Written from trl 1.13.0 trl/trainer/grpo_trainer.py: _calculate_rewards calls each reward function on every
// rank with trainer_state, log_extra and log_metric, then _generate_and_score_completions gathers each logged
// column and metric across ranks, one collective per key (sorted), so every rank must log the same keys.
// The fetched huggingface/trl mirror (f2cd577, 1.10.0.dev0) has the same flush; its _calculate_rewards lacks
// only 1.13.0's check that a reward function returns one reward per sample.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tempStateDir } from '../support/app.js';
import { ROOT } from '../support/children.js';
import { loadScaled } from '../support/load.js';
import { type Service, startService } from '../support/service.js';
import { tempDir } from '../support/temp.js';

// Eight harness processes of ~7–25 s each (importing torch is most of it) and a hung run's limit: more than
// tap's 120 s per file.
t.setTimeout(loadScaled(900_000));

const PYTHON = process.env.TRL_PYTHON;
const HARNESS = join(ROOT, 'clients/python/tests/real_trl/grpo_run.py');
const NAME = 'personalplan_reward';
const PER_RANK = 4; // num_generations = per_device_train_batch_size: one rollout group per rank and step

interface Call {
  /** false inside transformers' evaluation_loop (the harness reads the stack). */
  training: boolean;
  /** What the model said then. */
  model_training: boolean | null;
  step: number | null;
  n: number;
  rewards: Array<number | null>;
}
interface RankResult {
  rank: number;
  world_size: number;
  global_step: number;
  calls: Call[];
  metric_keys: string[];
  seconds: number;
}
interface Finished {
  code: number | null;
  hung: boolean;
  seconds: number;
  output: string;
  /** Each rank's stack, printed shortly before a hung run was killed. */
  stacks: string;
  ranks: RankResult[];
}
interface HistoryRow {
  step: number;
  plans: number;
  requests: number;
  late_plans: number;
}
interface RunView {
  finalized_steps: number;
  last_finalized_step: number | null;
  open_step: { step: number; plans: number } | null;
}

// A run's limit is 4× the first good run with as many ranks (2× the one-process run before there is one):
// a loaded machine slows them alike, and a hang costs little more than a run. The 45 s floor is not
// load-scaled: the load average counts these runs themselves, and the 4× already carries the load.
const firstGood = new Map<number, number>();
function limitMs(ranks: number): number {
  const base = firstGood.get(ranks) ?? (firstGood.has(1) ? 2 * firstGood.get(1)! : undefined);
  return base === undefined ? loadScaled(300_000) : Math.max(45_000, 4 * base);
}

let svc: Service | undefined;
async function service(): Promise<Service> {
  if (!svc) {
    svc = await startService({ STATE_DIR: tempStateDir() });
    t.teardown(() => svc?.child.kill('SIGKILL'));
  }
  return svc;
}

const runId = (what: string) => `trl-${what}-${randomBytes(4).toString('hex')}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs the harness (under torchrun when `ranks` > 1) to its end or to the limit. At the limit every rank
 * prints its stack (faulthandler) and then it is killed: torchrun gives each rank a session of its own, so
 * the ranks are killed by the pids they wrote, torchrun by its process group.
 */
async function train(t: Test, harnessArgs: string[], { ranks = 1, out, slower = 1 }: { ranks?: number; out: string; slower?: number }): Promise<Finished> {
  const limit = limitMs(ranks) * slower;
  // The stacks are printed a little before the kill, counted from now: importing torch takes seconds.
  const dumpAt = (Date.now() + Math.max(limit * 0.85, limit - 15_000)) / 1000;
  const args = [...harnessArgs, '--out-dir', out, '--dump-at', dumpAt.toFixed(1)];
  const launch =
    ranks === 1
      ? [HARNESS, ...args]
      : [
          '-m',
          'torch.distributed.run',
          '--nproc_per_node',
          String(ranks),
          '--master_addr',
          '127.0.0.1',
          '--master_port',
          String(await freePort()),
          HARNESS,
          ...args,
        ];
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TUTOR_REWARD_') && k !== 'NODE_OPTIONS')) as Record<string, string>),
    // TRL_CLIENT_DIR: another copy of the client (an older release, say) to hold to the same tests.
    PYTHONPATH: process.env.TRL_CLIENT_DIR ?? join(ROOT, 'clients/python'),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    // Nothing from a hub: the model and tokenizer are built in the harness.
    HF_HUB_OFFLINE: '1',
    HF_DATASETS_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    HF_HUB_DISABLE_TELEMETRY: '1',
    HF_HOME: tempDir('trl-hf-home-'),
    ACCELERATE_USE_CPU: 'true',
    // Two ranks on two cores: one thread each, or they fight over the cores.
    OMP_NUM_THREADS: ranks > 1 ? '1' : (process.env.OMP_NUM_THREADS ?? '2'),
  };
  const started = Date.now();
  const child = spawn(PYTHON!, launch, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  let hung = false;
  let grace: NodeJS.Timeout | undefined;
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
    grace = setTimeout(() => {
      hung = true;
      killAll(child, out);
      // A process we do not know of that holds the output open must not hold the test too.
      grace = setTimeout(() => resolve(null), loadScaled(15_000));
    }, limit);
  });
  clearTimeout(grace);
  child.stdout!.destroy();
  child.stderr!.destroy();
  killAll(child, out); // a rank left behind by a launcher that died
  const ms = Date.now() - started;
  if (code === 0 && !hung && slower === 1 && !firstGood.has(ranks)) firstGood.set(ranks, ms);
  const ranksOut = existsSync(out)
    ? readdirSync(out)
        .filter((f) => /^rank-\d+\.json$/.test(f))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as RankResult)
    : [];
  const stacks = existsSync(out)
    ? readdirSync(out)
        .filter((f) => /^stack-\d+\.txt$/.test(f))
        .sort()
        .map((f) => `${f}:\n${readFileSync(join(out, f), 'utf8')}`)
        .join('\n')
    : '';
  t.comment(
    `grpo_run ${ranks === 1 ? '' : `x${ranks} `}${harnessArgs.filter((a) => a.startsWith('--')).join(' ')}: ${(ms / 1000).toFixed(1)} s (limit ${Math.round(limit / 1000)} s)`,
  );
  return { code, hung, seconds: ms / 1000, output, stacks, ranks: ranksOut };
}

function killAll(child: ChildProcess, out: string) {
  const pids = existsSync(out) ? readdirSync(out).filter((f) => /^pid-\d+$/.test(f)) : [];
  for (const f of pids) {
    const pid = Number(readFileSync(join(out, f), 'utf8'));
    try {
      // Only while that pid is still this run's rank, not a process that got the number since.
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(out)) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  try {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The part of the output that says what went wrong: each rank's stack when it hung, else the end. */
function why(r: Finished): string {
  if (r.hung) {
    const frames = r.stacks
      .split('\n')
      .filter((l) => /^stack-|Thread 0x|grpo_trainer\.py|accelerate\/utils\/operations\.py|distributed(_c10d)?\.py|tutor_reward/.test(l));
    return `killed after ${r.seconds.toFixed(0)} s, still training; where each rank waited:\n${frames.join('\n')}`;
  }
  return `exit ${r.code} after ${r.seconds.toFixed(0)} s:\n${r.output.slice(-4000)}`;
}

async function view(base: string, run: string) {
  const res = await fetch(`${base}/runs/${run}`);
  if (res.status !== 200) throw new Error(`GET /runs/${run}: ${res.status} ${await res.text()}`);
  const hist = (await (await fetch(`${base}/runs/${run}/history?limit=10000`)).json()) as { rows: HistoryRow[] };
  const v = (await res.json()) as RunView;
  // Plans per step as the run counted them: the finalized rows, then the open step.
  const steps = new Map<number, number>(hist.rows.map((r) => [r.step, r.plans]));
  if (v.open_step) steps.set(v.open_step.step, (steps.get(v.open_step.step) ?? 0) + v.open_step.plans);
  return { view: v, rows: hist.rows, steps };
}

const trainingCalls = (r: RankResult) => r.calls.filter((c) => c.training === true);
const stepPlans = (calls: Call[]) => {
  const m = new Map<number, number>();
  for (const c of calls) m.set(c.step!, (m.get(c.step!) ?? 0) + c.n);
  return m;
};
const allFinite = (calls: Call[]) => calls.every((c) => c.rewards.length === c.n && c.rewards.every((r) => typeof r === 'number' && Number.isFinite(r)));
const sorted = (m: Map<number, number>) => [...m.entries()].sort((a, b) => a[0] - b[0]);

if (!PYTHON) {
  t.fail('TRL_PYTHON is not set: TRL_PYTHON=$(bash scripts/trl-venv.sh) npm run test:trl');
} else {
  t.test('GRPOTrainer, one process: each training step is one step of the run', async (t) => {
    const { base } = await service();
    const run = runId('single');
    const r = await train(t, ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3'], { out: tempDir('trl-res-') });
    if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 1, 'trained to the end', { diagnostic: true, why: why(r) })) return;
    const rank = r.ranks[0]!;
    t.equal(rank.global_step, 3);
    t.same(
      rank.calls.map((c) => [c.training, c.step, c.n]),
      [0, 1, 2].map((s) => [true, s, PER_RANK]),
      'one reward call per step, with trainer_state.global_step',
    );
    t.ok(allFinite(rank.calls), `every reward a number: ${JSON.stringify(rank.calls.map((c) => c.rewards))}`);
    const { view: v, rows } = await view(base, run);
    t.same(
      rows.map((row) => [row.step, row.plans]),
      [
        [0, PER_RANK],
        [1, PER_RANK],
      ],
      'steps 0 and 1 finalized, each with its plans',
    );
    t.equal(v.finalized_steps, 2);
    t.same(v.open_step && [v.open_step.step, v.open_step.plans], [2, PER_RANK], 'the last step is open');
    for (const key of ['struct_mean', 'pers_mean', 'ped_mean', 'gated_mean', 'flagged_mean'])
      t.ok(rank.metric_keys.includes(`${NAME}/${key}`), `logged ${NAME}/${key}`);
    t.ok(
      rank.metric_keys.some((k) => k.startsWith(`${NAME}/gaming/`)),
      'gaming signal shares logged',
    );
    t.ok(rank.metric_keys.includes(`rewards/${NAME}/mean`), 'TRL logged the reward under the function’s __name__');
  });

  // trl 1.13.0 _calculate_rewards: a reward function for which inspect.iscoroutinefunction is true is awaited on
  // TRL's event loop thread, concurrently with the other async ones.
  t.test('GRPOTrainer with AsyncPlanReward: the async path counts each training step once', async (t) => {
    const { base } = await service();
    const run = runId('async');
    const r = await train(t, ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3', '--async'], {
      out: tempDir('trl-res-'),
    });
    if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 1, 'trained to the end', { diagnostic: true, why: why(r) })) return;
    const rank = r.ranks[0]!;
    t.same(
      rank.calls.map((c) => [c.training, c.step, c.n]),
      [0, 1, 2].map((s) => [true, s, PER_RANK]),
    );
    t.ok(allFinite(rank.calls), 'every reward a number');
    const { rows } = await view(base, run);
    t.same(
      rows.map((row) => [row.step, row.plans]),
      [
        [0, PER_RANK],
        [1, PER_RANK],
      ],
    );
    t.ok(rank.metric_keys.includes(`rewards/${NAME}/mean`), 'TRL logged it under the function’s __name__');
  });

  // Evaluation (eval_strategy steps, eval_steps 2, 3 training steps: evaluations at steps 2 and 3) is scored
  // but must not enter the run: it would add plans to step 2 and open a step 3 no training step made.
  for (const watch of [true, false]) {
    const title = watch
      ? 'GRPOTrainer with evaluation and reward.watch(trainer): evaluation batches are not counted'
      : 'GRPOTrainer with evaluation, no watch(): the reward finds the trainer through log_extra.__self__ and does not count evaluation';
    t.test(title, async (t) => {
      const { base } = await service();
      const run = runId(watch ? 'eval-watch' : 'eval');
      const r = await train(
        t,
        ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3', '--eval', ...(watch ? ['--watch'] : [])],
        {
          out: tempDir('trl-res-'),
        },
      );
      if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 1, 'trained to the end', { diagnostic: true, why: why(r) })) return;
      const rank = r.ranks[0]!;
      const evalCalls = rank.calls.filter((c) => c.training === false);
      t.ok(evalCalls.length >= 2, `the reward was called in evaluation (${evalCalls.length} calls)`);
      t.ok(allFinite(evalCalls), 'evaluation batches were scored');
      t.ok(rank.metric_keys.includes(`eval_${NAME}/struct_mean`), 'evaluation metrics logged under eval_');
      const { steps } = await view(base, run);
      t.same(
        sorted(steps),
        sorted(stepPlans(trainingCalls(rank))),
        `the run holds the training plans only (${evalCalls.reduce((n, c) => n + c.n, 0)} evaluation plans left out)`,
      );
    });
  }

  // trl 1.13.0 grpo_trainer.py L1865: with use_transformers_continuous_batching generation ends with
  // unwrapped_model.train(), so model.training says training when the rewards of an evaluation batch are asked for.
  t.test('GRPOTrainer with evaluation and continuous batching: model.training says training, evaluation is still not counted', async (t) => {
    const { base } = await service();
    const run = runId('eval-cb');
    // Continuous batching's generator thread polls: on this CPU a run took 48 s where the plain one took 4 s.
    const r = await train(t, ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3', '--eval', '--continuous-batching'], {
      out: tempDir('trl-res-'),
      slower: 15,
    });
    if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 1, 'trained to the end', { diagnostic: true, why: why(r) })) return;
    const rank = r.ranks[0]!;
    const evalCalls = rank.calls.filter((c) => !c.training);
    t.ok(evalCalls.length >= 2, `the reward was called in evaluation (${evalCalls.length} calls)`);
    t.ok(
      evalCalls.every((c) => c.model_training === true),
      'in every evaluation call the model said it was training (the case model.training alone gets wrong)',
    );
    const { steps } = await view(base, run);
    t.same(
      sorted(steps),
      sorted(stepPlans(trainingCalls(rank))),
      `the run holds the training plans only (${evalCalls.reduce((n, c) => n + c.n, 0)} evaluation plans left out)`,
    );
  });

  // A run resumed from checkpoint-2 after reaching step 3 redoes step 2: the same seed and restored RNG
  // give the same completions, so the client's Idempotency-Key (process index, step, the call's place in the
  // step, body) makes it a replay.
  t.test('GRPOTrainer resumed from a checkpoint: each step counted once, none lost', async (t) => {
    const { base } = await service();
    const run = runId('resume');
    const ckpt = tempDir('trl-out-');
    const common = ['--url', base, '--run-id', run, '--output-dir', ckpt, '--save-steps', '2'];
    const first = await train(t, [...common, '--max-steps', '3'], { out: tempDir('trl-res-') });
    if (!t.ok(first.code === 0 && !first.hung, 'first process trained to step 3', { diagnostic: true, why: why(first) })) return;
    t.ok(existsSync(join(ckpt, 'checkpoint-2')), 'checkpoint-2 saved');
    const second = await train(t, [...common, '--max-steps', '4', '--resume', join(ckpt, 'checkpoint-2')], { out: tempDir('trl-res-') });
    if (!t.ok(second.code === 0 && !second.hung, 'second process resumed and trained to step 4', { diagnostic: true, why: why(second) })) return;
    t.same(
      second.ranks[0]!.calls.map((c) => c.step),
      [2, 3],
      'the resumed trainer redid step 2, then step 3',
    );
    const { steps, rows } = await view(base, run);
    t.same(
      sorted(steps),
      [0, 1, 2, 3].map((s) => [s, PER_RANK]),
      'steps 0–3, each with one group of plans: step 2 not counted twice, nothing lost',
    );
    t.same(
      rows.map((row) => row.step),
      [0, 1, 2],
      'one history row per finalized step',
    );
    t.ok(allFinite([...first.ranks[0]!.calls, ...second.ranks[0]!.calls]), 'every reward a number');
  });

  t.test('GRPOTrainer on 2 ranks (torchrun, gloo): both ranks count into one step', async (t) => {
    const { base } = await service();
    const run = runId('ddp');
    const r = await train(t, ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3'], { ranks: 2, out: tempDir('trl-res-') });
    if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 2, 'both ranks trained to the end', { diagnostic: true, why: why(r) })) return;
    for (const rank of r.ranks) {
      t.equal(rank.world_size, 2);
      t.equal(rank.global_step, 3, `rank ${rank.rank}: 3 steps`);
      t.ok(allFinite(rank.calls), `rank ${rank.rank}: every reward a number`);
      t.ok(
        rank.metric_keys.some((k) => k.startsWith(`${NAME}/`)),
        `rank ${rank.rank}: ${NAME}/* logged`,
      );
    }
    t.same(r.ranks[0]!.metric_keys, r.ranks[1]!.metric_keys, 'both ranks logged the same keys');
    const { steps } = await view(base, run);
    t.same(
      sorted(steps),
      [0, 1, 2].map((s) => [s, 2 * PER_RANK]),
      'each step holds both ranks’ groups',
    );
  });

  // The rank whose service is unreachable must still make TRL's collectives: its reward returns None (NaN,
  // advantage 0) but TRL then gathers each log_extra column and log_metric name the ranks logged, one
  // collective per key. A rank that logged nothing leaves the other waiting in gather_object for ever.
  t.test('GRPOTrainer on 2 ranks, one rank’s service unreachable with on_error="none": training still finishes', async (t) => {
    const { base } = await service();
    const run = runId('ddp-dead');
    const r = await train(
      t,
      ['--url', base, '--run-id', run, '--output-dir', tempDir('trl-out-'), '--max-steps', '3', '--on-error', 'none', '--dead-rank', '1'],
      {
        ranks: 2,
        out: tempDir('trl-res-'),
      },
    );
    if (!t.ok(r.code === 0 && !r.hung && r.ranks.length === 2, 'both ranks trained to the end', { diagnostic: true, why: why(r) })) return;
    const [live, dead] = [r.ranks.find((x) => x.rank === 0)!, r.ranks.find((x) => x.rank === 1)!];
    t.equal(live.global_step, 3);
    t.equal(dead.global_step, 3);
    t.ok(allFinite(live.calls), 'rank 0: every reward a number');
    t.ok(dead.calls.length === 3 && dead.calls.every((c) => c.rewards.every((x) => x === null)), 'rank 1: None for every sample');
    t.same(live.metric_keys, dead.metric_keys, 'both ranks logged the same keys');
    const { steps } = await view(base, run);
    t.same(
      sorted(steps),
      [0, 1, 2].map((s) => [s, PER_RANK]),
      'the run holds rank 0’s plans only',
    );
  });
}
