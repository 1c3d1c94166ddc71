import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { REWARD_PROFILES, type RewardProfile } from '../contracts/gaming.js';
import { COMPLETION_FIELDS } from '../audit/record.js';
import { ProfileSchema } from '../contracts/profile.js';
import { ScorePlanGroupSchema } from '../contracts/score-plan.js';
import type { Plan } from '../contracts/plan.js';
import { loadConfig, planLimits } from '../config.js';
import { resolvePalette } from '../plan/palette.js';
import { evaluatePlan, groupContext } from '../scoring/evaluate-plan.js';
import { renderRedTeam } from '../redteam/render.js';
import { groupsOf, redTeam, type RealPlanRecord } from '../redteam/search.js';
import { commandArgs, UsageError } from './usage.js';

export const REDTEAM_USAGE = `Usage: plan-reward redteam <plans.json> [--profile paper|guarded|both] [--budget N] [--seed S] [--out FILE]

Starts from the real plans of each query and profile and hill-climbs with edits a policy could learn (duplicate,
insert and delete steps, paste profile or query text, add cue words, drop agents or tools, rewire edges,
replace content with off-topic text), hunting for plans the reward pays more than every real plan.

  <plans.json>     a JSON array (or JSONL) of {"query", "profile", "completion", "id"?, "reference"?}, as
                   \`plan-reward audit\` reads them (the plan may also be named "plan" or "output"); plans of
                   one query and profile form one group (scored with its first record's reference, if any); a
                   plan that does not pass the gate is left out
  --profile P      reward profile to attack: paper, guarded or both (default both)
  --budget N       plans evaluated per group (default 1000)
  --seed S         seed of the search (default 1)
  --out FILE       also write the full report, exploits included, as JSON
`;

const RecordSchema = z.object({
  id: z.string().optional(),
  query: z.string(),
  profile: ProfileSchema,
  reference: ScorePlanGroupSchema.shape.reference,
});

/** A record's plan, under whichever of the audit's names it has. */
function planOf(raw: unknown, i: number): unknown {
  const field = COMPLETION_FIELDS.find((f) => typeof raw === 'object' && raw !== null && Object.hasOwn(raw, f));
  if (field === undefined) throw new UsageError(`record ${i + 1}: no plan (expected a ${COMPLETION_FIELDS.map((f) => `"${f}"`).join(', ')} field)`);
  return (raw as Record<string, unknown>)[field];
}

const args = (argv: readonly string[]) =>
  commandArgs(argv, {
    profile: { type: 'string', default: 'both' },
    budget: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });

async function readRecords(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`input file not found: ${file}`);
  }
  try {
    const trimmed = text.trimStart();
    return trimmed.startsWith('[')
      ? (JSON.parse(trimmed) as unknown[])
      : trimmed
          .split('\n')
          .filter((l) => l.trim().length > 0)
          .map((l) => JSON.parse(l) as unknown);
  } catch (err) {
    throw new UsageError(`${file} is not a JSON array or JSONL: ${(err as Error).message}`);
  }
}

export async function redteamCommand(argv: readonly string[], out: { write(s: string): unknown }): Promise<void> {
  const { values, positionals } = args(argv);
  if (values.help) {
    out.write(REDTEAM_USAGE);
    return;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one input file, got ${positionals.length}`);
  const profiles: RewardProfile[] = values.profile === 'both' ? [...REWARD_PROFILES] : [values.profile as RewardProfile];
  if (!profiles.every((p) => REWARD_PROFILES.includes(p))) throw new UsageError(`--profile must be paper, guarded or both, not "${values.profile}"`);
  const budget = Number(values.budget);
  const seed = Number(values.seed);
  if (!Number.isInteger(budget) || budget < 1) throw new UsageError(`--budget must be a positive integer, not "${values.budget}"`);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, not "${values.seed}"`);

  const config = loadConfig();
  const limits = planLimits(config);
  const palette = resolvePalette(undefined);
  const records: RealPlanRecord[] = [];
  let left = 0;
  for (const [i, raw] of (await readRecords(positionals[0]!)).entries()) {
    const r = RecordSchema.safeParse(raw);
    if (!r.success) throw new UsageError(`record ${i + 1}: ${r.error.issues[0]!.path.join('.') || '(root)'}: ${r.error.issues[0]!.message}`);
    const plan = planOf(raw, i);
    const e = evaluatePlan(plan, groupContext(r.data.query, r.data.profile), palette, limits, {
      strict: false,
      lambda_hard: config.LAMBDA_HARD,
      reward_profile: 'paper',
    });
    if (e.gate.failed || !e.plan) left++;
    else records.push({ ...r.data, plan: e.plan as Plan });
  }
  if (records.length === 0) throw new UsageError('no plan of the input passes the gate');
  const groups = groupsOf(records);
  const reports = profiles.map((profile) => redTeam(groups, { profile, budget, seed, palette, limits }));
  for (const r of reports) out.write(`${renderRedTeam(r)}\n`);
  if (left > 0) out.write(`${left} plan(s) that do not pass the gate were left out\n`);
  if (values.out) await writeFile(values.out, `${JSON.stringify(reports, null, 2)}\n`);
}
