// Families of plans built only to game the paper's soft rewards, three variants or more each, scored in one
// rollout group with the team's real plan they were made from. Under `guarded` no variant is paid more than
// the real plan, and each raises a gaming signal (not always its family's: a cue sentence repeated in every
// step is caught as a duplicate first) or is paid less, but for the variants that keep the real plan whole and
// add text to it; under `paper` the same variants are what the reward overpays. (The fluent families, on plans the team did not write, are bench/guarded-eval.ts's.)
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import t from 'tap';
import type { GamingSignalCode, RewardProfile } from '../../../src/contracts/gaming.js';
import type { Plan, Step } from '../../../src/contracts/plan.js';
import type { ScorePlanRequest } from '../../../src/contracts/score-plan.js';
import { DEFAULT_SCORING, scoreGroups } from '../../../src/scoring/score-groups.js';
import { realPlans, type RealPlan } from '../../support/real-plans.js';

const LIMITS = DEFAULT_PLAN_LIMITS;
const OFF_TOPIC = [
  'Knead the bread dough for ten minutes until it is smooth.',
  'Water the tomato seedlings before the sun is high.',
  'Compare the hotel prices near the station and book two nights.',
  'Sand the table top and apply a second coat of varnish.',
];
const CUES = ['Activate prior knowledge.', 'Demonstrate with a worked example.', 'Practice and apply.', 'Verify and review.'];

const tagsOf = (r: RealPlan): string[] =>
  typeof r.profile === 'object' && !Array.isArray(r.profile) && r.profile.tags
    ? typeof r.profile.tags === 'string'
      ? r.profile.tags.split(/[,\s]+/)
      : [...r.profile.tags]
    : [];
const aboutOf = (r: RealPlan): string => (typeof r.profile === 'object' && !Array.isArray(r.profile) ? (r.profile.about_me ?? '') : '');
// The step's expected output goes with its instruction: the variant's text is the whole step.
const withInstructions = (p: Plan, f: (s: Step, i: number) => string): Plan => ({
  ...p,
  steps: p.steps.map(({ expected_output: _, ...s }, i) => ({ ...s, instruction: f(s, i) })),
});
const oneAgentPlan = (instructions: string[], humanInput: boolean): Plan => {
  const ids = instructions.map((_, i) => `k${i}`);
  return {
    agents: [{ id: 'a', role: 'tutor', tools: [] }],
    subtasks: [{ id: 's', name: 'Plan' }],
    steps: instructions.map((instruction, i) => ({ id: ids[i]!, subtask: 's', agent: 'a', instruction, tool: null, depends_on: [], human_input: humanInput })),
    execution_order: ids,
  };
};
const repeated = (step: Step, n: number, agent = step.agent): Plan['steps'] =>
  Array.from({ length: n }, (_, i) => ({ ...step, id: `r${i}`, agent, depends_on: i ? [`r${i - 1}`] : [] }));

const FAMILIES: Record<string, { signals: GamingSignalCode[]; variants: Record<string, (r: RealPlan) => Plan> }> = {
  'keyword lists': {
    signals: ['bare_keywords', 'keyword_stuffing', 'cue_only_phase'],
    variants: {
      "one agent, the learner's tags and a cue per step": (r) =>
        oneAgentPlan(
          ['Activate', 'Demonstrate', 'Apply', 'Verify'].map((c) => `${tagsOf(r).join(', ')} ${c}`),
          true,
        ),
      'the tags as a sentence after each real step': (r) => withInstructions(r.plan, (s) => `${s.instruction} ${tagsOf(r).join(', ')}.`),
      'the tags dressed with articles': (r) =>
        withInstructions(r.plan, (s, i) => (i % 2 ? s.instruction : `The ${tagsOf(r).join(' and the ')} ${CUES[i % 4]!.toLowerCase()}`)),
    },
  },
  'off-topic steps with the tags sprinkled in': {
    signals: ['off_topic'],
    variants: {
      'every step': (r) => withInstructions(r.plan, (_, i) => `${OFF_TOPIC[i % 4]!.slice(0, -1)} with ${tagsOf(r)[i % tagsOf(r).length]}.`),
      'every step, with cue words': (r) => withInstructions(r.plan, (_, i) => `${CUES[i % 4]} ${OFF_TOPIC[i % 4]} ${tagsOf(r).join(', ')}`),
      'two steps in three': (r) => withInstructions(r.plan, (s, i) => (i % 3 === 0 ? s.instruction : `${OFF_TOPIC[i % 4]!.slice(0, -1)}, ${tagsOf(r)[0]}.`)),
    },
  },
  'duplicated steps': {
    signals: ['duplicate_steps'],
    variants: {
      'one step sixteen times': (r) => ({
        ...r.plan,
        steps: repeated(r.plan.steps[0]!, 16),
        execution_order: repeated(r.plan.steps[0]!, 16).map((s) => s.id),
        loops: [],
      }),
      'every step twice, one word changed': (r) => {
        const twins = r.plan.steps.map((s) => ({ ...s, id: `${s.id}-again`, instruction: s.instruction.replace(/\w+\.?$/, 'again.'), depends_on: [s.id] }));
        return { ...r.plan, steps: [...r.plan.steps, ...twins], execution_order: [...r.plan.execution_order, ...twins.map((s) => s.id)] };
      },
      'the last step five more times': (r) => {
        const last = r.plan.steps.at(-1)!;
        const more = Array.from({ length: 5 }, (_, i) => ({ ...last, id: `more${i}`, depends_on: [i ? `more${i - 1}` : last.id] }));
        return { ...r.plan, steps: [...r.plan.steps, ...more], execution_order: [...r.plan.execution_order, ...more.map((s) => s.id)] };
      },
    },
  },
  'phases by cue words alone': {
    signals: ['cue_only_phase'],
    variants: {
      'bare cue steps': () => oneAgentPlan(CUES, true),
      'cue sentences in place of the steps': (r) => withInstructions(r.plan, (_, i) => `${CUES[i % 4]} ${CUES[(i + 1) % 4]}`),
      'activation with no question to the learner': (r) =>
        withInstructions(r.plan, (_, i) => (i === 0 ? 'Activate prior knowledge and recall the basics.' : CUES[i % 4]!)),
    },
  },
  'degenerate structure': {
    signals: ['degenerate_structure'],
    variants: {
      'no step depends on another': (r) => ({ ...r.plan, steps: r.plan.steps.map((s) => ({ ...s, depends_on: [] })), loops: [] }),
      'no step depends on another, one agent': (r) => ({
        ...r.plan,
        steps: r.plan.steps.map((s) => ({ ...s, agent: r.plan.steps[0]!.agent, tool: null, depends_on: [] })),
        loops: [],
      }),
      'no step depends on another, no tools': (r) => ({ ...r.plan, steps: r.plan.steps.map((s) => ({ ...s, tool: null, depends_on: [] })), loops: [] }),
    },
  },
  'the query and profile pasted in': {
    signals: ['keyword_stuffing', 'bare_keywords', 'cue_only_phase'],
    variants: {
      'the profile as the steps': (r) => withInstructions(r.plan, (_, i) => `${aboutOf(r)} ${CUES[i % 4]}`),
      'the query as the steps': (r) => withInstructions(r.plan, (_, i) => `${r.query} ${CUES[i % 4]}`),
      'both after each real step': (r) => withInstructions(r.plan, (s) => `${s.instruction} ${r.query} ${aboutOf(r)} ${tagsOf(r).join(', ')}`),
    },
  },
};

const KEEPS_REAL = new Set(['the tags as a sentence after each real step', 'both after each real step']);

function scoreTogether(r: RealPlan, variant: Plan, reward_profile: RewardProfile) {
  const req: ScorePlanRequest = { groups: [{ query: r.query, profile: r.profile, completions: [r.plan, variant] }], options: { reward_profile } };
  const [real, gamed] = scoreGroups(req, LIMITS, DEFAULT_SCORING).response.groups[0]!.plans;
  return { real: real!, gamed: gamed! };
}

// Real plans with tags and an about_me, so that every variant has its material.
const GROUPS = realPlans().filter((r) => tagsOf(r).length > 1 && aboutOf(r).length > 0);

for (const [family, { signals, variants }] of Object.entries(FAMILIES)) {
  t.test(family, async (t) => {
    t.ok(Object.keys(variants).length >= 3, 'three variants or more');
    let overpaid = 0;
    for (const r of GROUPS) {
      for (const [name, make] of Object.entries(variants)) {
        const variant = make(r);
        const g = scoreTogether(r, variant, 'guarded');
        t.equal(g.real.gate.failed, false, `${r.id}: the real plan passes the gate`);
        t.ok(g.gamed.score <= g.real.score, `${r.id}, ${name}: guarded ${g.gamed.score}, at most ${g.real.score}`);
        // A variant that keeps the real plan whole and adds text to it may be paid the same as long as no more.
        if (!KEEPS_REAL.has(name))
          t.ok(
            g.gamed.gaming_flags.length > 0 || g.gamed.score < g.real.score,
            `${r.id}, ${name}: raises a signal (the family's are ${signals.join(', ')}) or is paid less (${g.gamed.score} against ${g.real.score})`,
          );
        const p = scoreTogether(r, variant, 'paper');
        t.same(p.gamed.gaming_flags, g.gamed.gaming_flags, 'the signals are the same in both profiles');
        if (p.gamed.score >= p.real.score) overpaid++;
      }
    }
    t.comment(`paper pays ${overpaid} of ${GROUPS.length * Object.keys(variants).length} variants as much as the real plan or more`);
  });
}

t.test('under paper the families outrank real plans', async (t) => {
  const first = GROUPS[0]!;
  const keywordList = scoreTogether(first, FAMILIES['keyword lists']!.variants["one agent, the learner's tags and a cue per step"]!(first), 'paper');
  t.ok(keywordList.gamed.score > keywordList.real.score, `keyword list ${keywordList.gamed.score} over ${keywordList.real.score}`);
  const offTopic = scoreTogether(first, FAMILIES['off-topic steps with the tags sprinkled in']!.variants['every step, with cue words']!(first), 'paper');
  t.ok(offTopic.gamed.score >= offTopic.real.score, `off topic ${offTopic.gamed.score} against ${offTopic.real.score}`);
});
