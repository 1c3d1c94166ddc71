// The golden reward outputs (test/fixtures/golden/score-plan.json): /score-plan requests over honest plans of the
// corpus, plans written to game the reward and a plan that does not parse, each scored under both reward
// profiles, with and without a reference; test/scoring/golden.test.ts holds the scorer to them.
//
//   npx tsx scripts/golden.ts          (checks, exit 1 on a difference)
//   npx tsx scripts/golden.ts --write  (after a change to the rewards that is meant; say why in the commit)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../src/common/rng.js';
import type { ScorePlanRequest } from '../src/contracts/score-plan.js';
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { adversaryFamilies } from '../src/redteam/families.js';
import { DEFAULT_SCORING, scoreGroups } from '../src/scoring/score-groups.js';

const FILE = fileURLToPath(new URL('../test/fixtures/golden/score-plan.json', import.meta.url));
const CORPUS = fileURLToPath(new URL('../test/fixtures/plans/honest-corpus.json', import.meta.url));

interface Golden {
  requests: { name: string; request: ScorePlanRequest }[];
  responses: unknown[];
}

/** The requests: made once from the corpus and the adversary families, then kept as written. */
function requests(): Golden['requests'] {
  const { groups } = JSON.parse(readFileSync(CORPUS, 'utf8')) as {
    groups: { id: string; split: string; source: string; query: string; profile: unknown; reference: string[]; plans: { plan: unknown }[] }[];
  };
  const evaluation = groups.filter((g) => g.split === 'evaluation');
  const code = evaluation.find((g) => g.source === 'coding-tutor')!;
  const math = evaluation.find((g) => g.source === 'mathdial')!;
  const gamed = (g: typeof code) => {
    const rand = mulberry32(74);
    const others = evaluation.filter((o) => o.id !== g.id) as never[];
    return [adversaryFamilies.fluent_hollow(g as never, others, rand)[0]!, adversaryFamilies.transplanted(g as never, others, rand)[0]!, 'not a plan'];
  };
  const group = (g: typeof code, reference: boolean) => ({
    id: g.id,
    query: g.query,
    profile: g.profile as ScorePlanRequest['groups'][number]['profile'],
    ...(reference ? { reference: g.reference } : {}),
    completions: [...g.plans.map((p) => JSON.stringify(p.plan)), ...gamed(g)],
  });
  return (['paper', 'guarded'] as const).flatMap((reward_profile) =>
    [false, true].map((reference) => ({
      name: `${reward_profile}, ${reference ? 'with' : 'without'} references`,
      request: { groups: [group(code, reference), group(math, reference)], run_id: null, options: { reward_profile } },
    })),
  );
}

const responses = (rs: Golden['requests']) =>
  rs.map(({ request }) => JSON.parse(JSON.stringify(scoreGroups(request, DEFAULT_PLAN_LIMITS, DEFAULT_SCORING).response)));

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--write')) {
    const rs = requests();
    writeFileSync(FILE, `${JSON.stringify({ requests: rs, responses: responses(rs) } satisfies Golden)}\n`);
    console.log(`wrote ${FILE}`);
  } else {
    const golden = JSON.parse(readFileSync(FILE, 'utf8')) as Golden;
    const same = JSON.stringify(responses(golden.requests)) === JSON.stringify(golden.responses);
    console.log(same ? 'the scorer gives the golden responses' : 'the scorer differs from the golden responses');
    process.exit(same ? 0 : 1);
  }
}

export { responses, type Golden };
