// The adversary families (src/redteam/families.ts) on the real plans' groups: each family writes ten distinct
// valid plans or more per group, none gated, the same ones for the same seed; transplanted plans carry another
// group's text; invented words are in no dictionary.
import t from 'tap';
import { mulberry32 } from '../../src/common/rng.js';
import type { Plan } from '../../src/contracts/plan.js';
import { getWordNet } from '../../src/metrics/text/wordnet.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { groupsFromRecords } from '../../src/redteam/evaluation.js';
import { adversaryFamilies, CUE_VERBS, FAMILY_NAMES, type HonestGroup, INVENTED, inventedWord, materialOf, queryClause } from '../../src/redteam/families.js';
import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
import { evaluatePlan, groupContext } from '../../src/scoring/evaluate-plan.js';
import { realPlans } from '../support/real-plans.js';

const groups = groupsFromRecords(realPlans());
const others = (g: HonestGroup) => groups.filter((o) => o !== g);
const generate = (name: (typeof FAMILY_NAMES)[number], g: HonestGroup, seed: number) => adversaryFamilies[name](g, others(g), mulberry32(seed));
const words = (text: string) => text.toLowerCase().match(/[a-z0-9+#]+(?:'[a-z]+)?/g) ?? [];
const stepText = (p: Plan) => p.steps.map((s) => s.instruction);

t.test('every family: ten distinct valid plans or more per group, none gated, no violation', async (t) => {
  for (const name of FAMILY_NAMES) {
    let checked = 0;
    for (const [gi, g] of groups.entries()) {
      const plans = generate(name, g, 100 + gi);
      t.ok(plans.length >= 10, `${name} on ${g.id}: ${plans.length} variants`);
      t.equal(new Set(plans.map((p) => JSON.stringify(p))).size, plans.length, `${name} on ${g.id}: distinct`);
      const context = groupContext(g.query, g.profile);
      for (const p of plans) {
        const e = evaluatePlan(p, context, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, {
          strict: false,
          lambda_hard: DEFAULT_SCORING.lambda_hard,
          reward_profile: 'guarded',
        });
        checked++;
        if (!e.parsed || e.gate.failed || e.violations.length > 0)
          t.fail(`${name} on ${g.id}: ${e.gate.reasons.join(', ')} ${e.violations.map((v) => `${v.code} ${v.message}`).join('; ')}`);
        // Consistent plan: every step's agent and subtask exist, every tool is its agent's, the order names every step once.
        const agents = new Map(p.agents.map((a) => [a.id, a]));
        for (const s of p.steps) {
          if (!agents.has(s.agent) || !p.subtasks.some((x) => x.id === s.subtask)) t.fail(`${name}: step ${s.id} names a missing agent or subtask`);
          if (s.tool && !agents.get(s.agent)!.tools.includes(s.tool)) t.fail(`${name}: step ${s.id} uses a tool its agent lacks`);
        }
        if (
          [...p.execution_order].sort().join() !==
          p.steps
            .map((s) => s.id)
            .sort()
            .join()
        )
          t.fail(`${name}: execution order`);
      }
    }
    t.ok(checked >= 10 * groups.length, `${name}: ${checked} plans checked`);
  }
});

t.test('a seed fixes the variants; another seed changes them', async (t) => {
  for (const name of FAMILY_NAMES) {
    for (const g of groups.slice(0, 3)) {
      t.same(generate(name, g, 7), generate(name, g, 7), `${name} on ${g.id}: same seed`);
      t.notSame(generate(name, g, 7), generate(name, g, 8), `${name} on ${g.id}: other seed`);
    }
  }
});

t.test('paper pays fluent_hollow variants in full: every profile signal named, all four phases cued', async (t) => {
  for (const g of groups) {
    const context = groupContext(g.query, g.profile);
    for (const p of generate('fluent_hollow', g, 3)) {
      const e = evaluatePlan(p, context, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, { strict: false, lambda_hard: 1, reward_profile: 'paper' });
      if (e.raw.pers !== 1 || e.raw.ped !== 1) t.fail(`${g.id}: pers ${e.raw.pers}, ped ${e.raw.ped}: ${stepText(p).join(' | ')}`);
      if (!p.steps[0]!.human_input || !p.steps[0]!.instruction.endsWith('?')) t.fail(`${g.id}: the first step asks the learner`);
    }
  }
});

t.test("transplanted plans are another group's honest plan, with this group's tags", async (t) => {
  const jaccard = (a: readonly string[], b: readonly string[]) => {
    const x = new Set(a);
    const y = new Set(b);
    const inter = [...x].filter((w) => y.has(w)).length;
    return inter / Math.max(1, new Set([...x, ...y]).size);
  };
  // Mean word overlap of aligned steps, this group's tag words left out.
  const overlap = (variant: Plan, donor: Plan, skip: Set<string>) => {
    if (variant.steps.length !== donor.steps.length) return 0;
    const ws = (s: string) => words(s).filter((w) => !skip.has(w));
    return variant.steps.reduce((n, s, i) => n + jaccard(ws(s.instruction), ws(donor.steps[i]!.instruction)), 0) / variant.steps.length;
  };
  for (const [gi, g] of groups.entries()) {
    const m = materialOf(g);
    const skip = new Set(m.tags.flatMap(words));
    for (const v of generate('transplanted', g, 40 + gi)) {
      const best = Math.max(...others(g).map((o) => overlap(v, o.plans[0]!.plan, skip)));
      const own = overlap(v, g.plans[0]!.plan, skip);
      t.ok(best >= 0.6 && best > own, `${g.id}: overlap with a donor ${best.toFixed(2)}, with its own plan ${own.toFixed(2)}`);
      const text = JSON.stringify(v).toLowerCase();
      for (const tag of m.tags) t.ok(text.includes(tag.toLowerCase()), `${g.id}: names ${tag}`);
    }
  }
});

t.test('invented words are in no dictionary', async (t) => {
  const wordnet = getWordNet();
  const rand = mulberry32(11);
  for (let i = 0; i < 500; i++) {
    const w = inventedWord(rand);
    t.equal(wordnet.synsets(w).length, 0, `${w} is not a WordNet word`);
  }
  // In the variants: every word that is not the templates', a tag's or a cue verb's is invented.
  const known = new Set([...Object.values(INVENTED).flat().flatMap(words), ...Object.values(CUE_VERBS).flat()]);
  for (const [gi, g] of groups.entries()) {
    const tagWords = new Set(materialOf(g).tags.flatMap(words));
    for (const p of generate('invented_words', g, 60 + gi)) {
      const invented = new Set(
        stepText(p)
          .flatMap(words)
          .filter((w) => !known.has(w) && !tagWords.has(w)),
      );
      t.ok(invented.size >= 2, `${g.id}: ${[...invented].join(', ')}`);
      for (const w of invented) if (wordnet.synsets(w).length > 0) t.fail(`${g.id}: ${w} is a WordNet word`);
    }
  }
});

t.test('the query as a clause', async (t) => {
  t.equal(queryClause('How do I squash my last five commits into one?'), 'how to squash their last five commits into one');
  t.equal(queryClause('How do Kotlin coroutines replace AsyncTask?'), 'how Kotlin coroutines replace AsyncTask');
  t.equal(queryClause('Why does my loop never end?'), 'why does their loop never end');
  t.equal(
    queryClause('Marie makes 12 eggs. She packs them in 4 boxes. What is the total weight of the eggs left?'),
    'what is the total weight of the eggs left',
  );
});
