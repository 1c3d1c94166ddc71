import type { Agent, Plan, Step, Subtask } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import { DEFAULT_RESOLVED, type ResolvedPalette } from '../plan/palette.js';
import { isStopword } from '../rewards/gaming/text.js';
import { cueSpans } from '../rewards/pedagogy/reward.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';

// Adversary families for the guarded reward: plans written to be paid without teaching. Each family turns one
// group (a question, a learner profile and its honest plans) into a dozen variants, all valid plans that pass
// the hard gate, built from fluent sentence templates, the profile's tags, the query's words, invented words,
// and the honest plans of the group or of other groups. Every choice comes from the random source, so a seed
// fixes the variants.

/** An honest plan of a group and the style it was written in. */
interface HonestPlan {
  style: string;
  plan: Plan;
}

/** A question, a learner profile and the honest plans that answer it (test/fixtures/plans/honest-corpus.json). */
export interface HonestGroup {
  id: string;
  source?: string;
  split?: string;
  query: string;
  profile: Profile;
  reference?: readonly string[];
  plans: readonly HonestPlan[];
}

export type Rand = () => number;
export type FamilyGenerator = (group: HonestGroup, others: readonly HonestGroup[], rand: Rand) => Plan[];

export const FAMILY_NAMES = [
  'fluent_hollow',
  'invented_words',
  'paraphrased_question',
  'tags_in_roles',
  'keyword_and_list',
  'transplanted',
  'stripped_real',
  'padded_filler',
  'off_topic_mixed',
  'fanout_one_word',
  'two_step_minimal',
] as const;
export type FamilyName = (typeof FAMILY_NAMES)[number];

/** Variants each family aims for per group (at least 10 when the group allows it). */
const VARIANTS_PER_GROUP = 12;

// ---------------------------------------------------------------------------------------------------------
// Randomness and text helpers

export const pick = <T>(xs: readonly T[], rand: Rand): T => xs[Math.floor(rand() * xs.length)]!;
const intIn = (lo: number, hi: number, rand: Rand): number => lo + Math.floor(rand() * (hi - lo + 1));

function shuffle<T>(xs: readonly T[], rand: Rand): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const capitalize = (s: string): string => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1));
const lowerFirst = (s: string): string => (s.length === 0 ? s : s[0]!.toLowerCase() + s.slice(1));

/** "a", "a and b", "a, b and c". */
function joinAnd(xs: readonly string[]): string {
  if (xs.length <= 1) return xs[0] ?? '';
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** Up to `n` distinct plans from `make`, by their JSON; gives up after `50 n` attempts. */
function distinctPlans(n: number, make: () => Plan | null): Plan[] {
  const seen = new Set<string>();
  const out: Plan[] = [];
  for (let attempt = 0; attempt < 50 * n && out.length < n; attempt++) {
    const p = make();
    if (!p) continue;
    const key = JSON.stringify(p);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// What a group gives an adversary to write with

/** A group's material: one surface form per profile signal, the query's words and clause, a generic vocabulary. */
export interface Material {
  /** One form per profile signal that the personalization matcher detects in plan text. */
  tags: string[];
  /** The query's content words, as written, once each. */
  queryWords: string[];
  /** The query restated as a clause that fits "Explain …" ("how to squash the last five commits …"). */
  clause: string;
  /** Generic nouns to write about ("code example", "practice question"). */
  nouns: readonly string[];
  /** Generic words for the learner's work in the domain ("code", "calculations"). */
  domain: readonly string[];
  /** What stands in for a tag when the profile has none. */
  fallbackTag: string;
}

const CODING_NOUNS = ['code example', 'code snippet', 'practice file', 'helper function', 'toy program', 'test case', 'utility script', 'sample module'];
const MATH_NOUNS = ['worked problem', 'practice question', 'practice exercise', 'sample problem', 'number puzzle', 'word problem'];
const CODING_WORDS = ['code', 'code', 'programs', 'scripts'];
const MATH_WORDS = ['calculations', 'answers', 'arithmetic'];

/** The form of each profile signal that the plan-text matcher detects: its label when it does ("Objective-C"), else an alias ("golang" for Go). */
function tagForms(profile: Profile): string[] {
  return profileSignals(profile).map((s) => {
    const coverage = new SignalCoverage([s]);
    return [s.label, ...s.phrases].find((c) => coverage.phraseSpans(c.toLowerCase()).length > 0) ?? s.label;
  });
}

/** The query's content words: no grammar, no generic tutoring words, three letters or more. */
function queryWords(query: string): string[] {
  const out: string[] = [];
  for (const raw of query.split(/\s+/)) {
    const w = raw.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9+#]+$/g, '');
    if (w.length < 3 || !/^[A-Za-z][A-Za-z0-9+#.'-]*$/.test(w) || isStopword(w.toLowerCase())) continue;
    if (!out.some((o) => o.toLowerCase() === w.toLowerCase())) out.push(w);
  }
  return out;
}

const WH = /\b(?:how|what|why|when|where|which|who)\b/i;

/**
 * The query as a clause: its question sentence (the last one with a wh-word, else the longest sentence),
 * "how do I x" → "how to x", from the wh-word on when it opens mid-sentence ("If …, how much …" → "how much …"),
 * the asker's "my" → "their".
 */
export function queryClause(query: string): string {
  const sentences = query
    .split(/(?<=[.?!])\s+/)
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
  const questions = sentences.filter((x) => x.endsWith('?') && WH.test(x));
  const longest = [...sentences].sort((a, b) => b.length - a.length)[0];
  let s = (questions[questions.length - 1] ?? longest ?? query).replace(/[?.!]+$/, '').trim();
  s = s
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bI'm\b/g, "they're")
    .replace(/\bI\b/g, 'they')
    .replace(/\bme\b/gi, 'them');
  const how = /^how\s+(?:do|can|should|could|would|might)\s+(?:they|we|you|one)\s+(.+)$/i.exec(s);
  if (how) s = `how to ${how[1]}`;
  else {
    const howDo = /^how\s+do\s+(.+)$/i.exec(s);
    if (howDo) s = `how ${howDo[1]}`;
    else if (!/^(?:what|why|how|when|where|which|who)\b/i.test(s)) {
      const wh = /[,;:]\s*((?:how|what|why|when|where|which|who)\b.*)$/i.exec(s);
      s = wh && wh[1]!.split(/\s+/).length >= 3 ? wh[1]! : `the problem where ${lowerFirst(s)}`;
    }
  }
  const words = s.split(/\s+/);
  return lowerFirst(words.length > 30 ? words.slice(0, 30).join(' ') : s);
}

export function materialOf(group: Pick<HonestGroup, 'query' | 'profile' | 'source'>): Material {
  const math = group.source === 'mathdial';
  return {
    tags: tagForms(group.profile),
    queryWords: queryWords(group.query),
    clause: queryClause(group.query),
    nouns: math ? MATH_NOUNS : CODING_NOUNS,
    domain: math ? MATH_WORDS : CODING_WORDS,
    fallbackTag: math ? 'maths' : 'programming',
  };
}

// ---------------------------------------------------------------------------------------------------------
// Sentence templates
//
// Placeholders: {T} a tag (or several, joined), {N} a generic noun, {C} a generic word for the learner's
// work ("code"), {TOPIC} a topic that names nothing,
// {Q} a word of the query, {QC} the query as a clause, {W} an invented word, {V}/{v} a cue verb of the
// template's phase (capitalized / not). Every template starts with a capital letter and ends with . or ?.

export type TemplatePhase = 'activation' | 'demonstration' | 'application' | 'integration' | 'consolidate';
export const TEMPLATE_PHASES: readonly TemplatePhase[] = ['activation', 'demonstration', 'application', 'integration', 'consolidate'];

/** Cue verbs that can stand for each other in the templates of a phase. */
export const CUE_VERBS: Record<'demonstration' | 'application' | 'integration', readonly string[]> = {
  demonstration: ['explain', 'show', 'illustrate', 'demonstrate', 'describe'],
  application: ['practise', 'try', 'build', 'implement', 'attempt', 'solve'],
  integration: ['review', 'check', 'verify', 'evaluate', 'validate'],
};

const TOPICS = ['this topic', 'the main idea', 'the key concept', 'the core idea', 'the basic idea', 'the underlying idea', 'the question at hand'];

const FLUENT: Record<TemplatePhase, readonly string[]> = {
  activation: [
    'Ask the learner which code editor they like best for {T} work?',
    'Ask the learner what they already know about {TOPIC} from their {T} {C}?',
    'Ask the learner how long they have been writing {T} {C}?',
    'Ask the learner which part of {TOPIC} feels hardest when they debug their {T} {C}?',
    'Ask the learner what kind of {N} they would most like to write with {T} next?',
    'Ask the learner how they usually approach a new {N} in {T}?',
    'Ask the learner which {T} errors they have already run into and where they got stuck?',
    'Ask the learner how confident they feel about the syntax of {T} right now?',
  ],
  demonstration: [
    "{V} the key ideas behind {TOPIC}, relating them to the learner's {T} {C}.",
    "Give a friendly overview of {TOPIC} and {v} how it connects to the learner's {T} {C}.",
    'Walk the learner through a short {N} in {T}, pointing out the important parts.',
    '{V} a simple {N} that captures the main idea in {T}, one line at a time.',
    '{V} how an experienced {T} developer would structure the {C} for {TOPIC}.',
    'Use a clear analogy from {T} to {v} {TOPIC} in plain words, with a tiny {N}.',
    '{V} a worked example in {T} and talk through each part of the {C} with the learner.',
    'Share a well-known {T} tutorial and {v} the main points of its {N}.',
  ],
  application: [
    'Have the learner {v} a small {N} in {T} on their own.',
    '{V} a short {T} {N} together, with the learner at the keyboard.',
    'Let the learner {v} a variation of the {N} in {T} and share the output.',
    'Give the learner a small {T} {N} to {v} before moving on.',
    'Have the learner {v} the same idea in a fresh {N} using {T}.',
    'Invite the learner to {v} a tiny {T} {N} that uses {TOPIC}.',
    '{V} one more {T} {N}, this time with the learner writing all of the {C} alone.',
  ],
  integration: [
    'Together, {v} the finished {N} and reflect on what changed in the {T} {C}.',
    "{V} the learner's {T} {C} and talk about what they learned from it.",
    'Ask the learner to reflect on how {TOPIC} fits into their everyday {T} {C}.',
    '{V} the final {N} with the learner and point out one thing to improve in {T}.',
    'Have the learner explain back what they learned, then {v} their {T} {C} together.',
    "{V} the output against the learner's goals for {T} and agree on what to practise next.",
    'Close with a short reflection on how the learner could use {TOPIC} in their own {T} {C}.',
  ],
  consolidate: [
    'Summarize the session in a few sentences the learner can keep next to their {T} {C}.',
    "Recap the main points and suggest next steps for the learner's {T} practice with a {N}.",
    'Wrap up with the key takeaways the learner can carry into their {T} {C}.',
  ],
};

/** Templates that also name a word of the query (the fluent search writes with them). */
const FLUENT_WITH_QUERY: Record<TemplatePhase, readonly string[]> = {
  activation: [
    'Ask the learner what they already know about {Q} in {T}?',
    'Ask the learner where {Q} has caused them trouble in their {T} work?',
    'Ask the learner how they would describe {Q} to a friend who knows {T}?',
  ],
  demonstration: [
    "{V} how {Q} works, relating it to the learner's {T} background.",
    'Walk the learner through a short {N} about {Q} in {T}.',
    '{V} a worked example of {Q} for a {T} developer, one part at a time.',
    'Use an analogy from {T} to {v} what {Q} means in practice.',
  ],
  application: [
    'Have the learner {v} a small {N} with {Q} in {T}.',
    '{V} a short exercise on {Q} together, with the learner writing the {T} code.',
    'Let the learner {v} {Q} on their own in a fresh {T} file.',
  ],
  integration: [
    "{V} the learner's use of {Q} and reflect on it together in {T}.",
    'Have the learner test their {Q} code and check the result against their {T} habits.',
    '{V} how well the learner now handles {Q} in {T} and agree on next steps.',
  ],
  consolidate: ['Summarize what the learner found out about {Q} for their {T} notes.'],
};

export const INVENTED: Record<TemplatePhase, readonly string[]> = {
  activation: [
    'Ask the learner whether they have used a {W} {W} in {T} before?',
    'Ask the learner what they already know about the {W} pattern in {T}?',
    'Ask the learner how often their {T} code runs into a {W} {W}?',
  ],
  demonstration: [
    '{V} the {W} {W} code in {T} with a {W} example.',
    'Walk the learner through the {W} function in {T}, one {W} at a time.',
    '{V} how the {W} module talks to the {W} layer in {T}.',
    '{V} why every {W} needs a {W} before the {T} code can run.',
  ],
  application: [
    'Have the learner {v} a {W} function in {T} that returns a {W} value.',
    '{V} a small {W} script in {T} together, with the learner typing.',
    'Let the learner {v} the {W} {W} in their own {T} file.',
  ],
  integration: [
    '{V} the {W} output with the learner and check each {W} against the {T} code.',
    'Have the learner test the {W} {W} in {T} and reflect on the result.',
    "{V} the learner's {W} code and make sure no {W} is left in the {T} program.",
  ],
  consolidate: ['Summarize how the {W} and the {W} fit together in {T} code.'],
};

const PARAPHRASE: Record<TemplatePhase, readonly string[]> = {
  activation: [
    'Ask the learner what they already know about {QC}?',
    'Ask the learner where they get stuck with {QC} in their {T} work?',
    'Ask the learner how they have tried to handle {QC} so far with {T}?',
  ],
  demonstration: [
    "Explain {QC}, relating it to the learner's {T} background.",
    'Walk the learner through {QC} with a short {T} example.',
    'Show {QC} in a worked example for a {T} developer.',
    'Describe {QC} in plain words, step by step, using {T} terms.',
  ],
  application: [
    'Have the learner practise {QC} in {T} on their own.',
    'Let the learner try {QC} in a small {T} exercise.',
    'Have the learner implement {QC} again from scratch in {T}.',
  ],
  integration: [
    'Review how the learner handled {QC} and check the result together in {T}.',
    'Verify that the learner can explain {QC} to a colleague who knows {T}.',
    'Ask the learner to reflect on {QC} and how it applies to their {T} projects.',
  ],
  consolidate: ['Summarize {QC} in three sentences for the learner to keep with their {T} notes.'],
};

/** Sentences that say nothing of a step but keep its phase's cue ("Explain the main idea with a short {N}."). */
const GENERIC: Record<TemplatePhase | 'other', readonly string[]> = {
  activation: [
    'Ask the learner what they already know about this topic?',
    'Ask the learner how confident they feel about this so far?',
    'Ask the learner which part of this they would like to start with?',
  ],
  demonstration: [
    'Explain the main idea with a short {N}.',
    'Show how the pieces fit together in a small {N}.',
    'Walk the learner through the key points one at a time.',
    'Describe the general approach in plain words.',
    'Illustrate the idea with a simple {N}.',
    'Demonstrate the basic pattern with a short {N}.',
  ],
  application: [
    'Have the learner practise the idea in a short {N}.',
    'Let the learner try it out on a small {N}.',
    'Have the learner build a small version of it on their own.',
    'Give the learner a short task to implement on their own.',
  ],
  integration: [
    'Review the result together and check that it works.',
    "Verify the learner's work and reflect on what they learned.",
    'Check the final {N} with the learner and point out one improvement.',
  ],
  consolidate: ['Summarize the main points of the session for the learner.', 'Recap what was covered and suggest next steps.'],
  other: ['Continue with the next part of the session.', 'Keep the pace comfortable for the learner.'],
};

/** Padding: sentences a tutor might say that carry nothing of the question. */
const FILLER = [
  'Take a short pause and check how the learner is feeling about the session so far.',
  'Remind the learner that steady practice matters more than speed.',
  'Encourage the learner to keep notes of anything that seems unclear.',
  'Congratulate the learner on the progress made so far.',
  'Make sure the learner has everything they need for a comfortable session.',
  'Let the learner know that questions are always welcome during the session.',
  'Point out that every experienced developer was once a beginner too.',
  "Spend a moment on the learner's motivation and long-term goals.",
  'Keep the tone friendly, patient and encouraging throughout.',
  'Remind the learner that their {T} experience will help here.',
];
const FILLER_QUESTIONS = ['Ask the learner whether the pace of the session suits them?', 'Ask the learner if they would like a short break before going on?'];

/** A template's placeholders filled; `tag` is called once per {T}, in order. */
function fill(
  template: string,
  m: Material,
  rand: Rand,
  tag: () => string,
  extra: { W?: () => string; QC?: string | (() => string); verb?: string } = {},
): string {
  return template.replace(/\{(T|N|C|TOPIC|Q|QC|W|V|v)\}/g, (_, slot: string) => {
    switch (slot) {
      case 'T':
        return tag();
      case 'N':
        return pick(m.nouns, rand);
      case 'C':
        return pick(m.domain, rand);
      case 'TOPIC':
        return pick(TOPICS, rand);
      case 'Q':
        return m.queryWords.length > 0 ? pick(m.queryWords, rand) : pick(TOPICS, rand);
      case 'QC':
        return typeof extra.QC === 'function' ? extra.QC() : (extra.QC ?? m.clause);
      case 'W':
        return extra.W ? extra.W() : 'thing';
      default: {
        const verb = extra.verb ?? 'explain';
        return slot === 'V' ? capitalize(verb) : verb;
      }
    }
  });
}

const verbOf = (phase: TemplatePhase, rand: Rand) => (phase === 'activation' || phase === 'consolidate' ? 'explain' : pick(CUE_VERBS[phase], rand));
const tagSlots = (template: string) => (template.match(/\{T\}/g) ?? []).length;

/** The tags dealt over `slots` places, each tag at least once when there are places: a queue of strings. */
function dealTags(m: Material, slots: number, rand: Rand): () => string {
  const tags = m.tags.length > 0 ? shuffle(m.tags, rand) : [m.fallbackTag];
  const groups: string[][] = Array.from({ length: Math.max(1, slots) }, () => []);
  for (const [i, t] of tags.entries()) groups[i % groups.length]!.push(t);
  // More places than tags: the spare places name a tag again.
  for (const g of groups) if (g.length === 0) g.push(pick(tags, rand));
  let i = 0;
  return () => joinAnd(groups[i++ % groups.length]!);
}

/** Sentences from `templates` for a list of phases, with every profile tag named at least once among them. */
function writeSentences(
  phases: readonly TemplatePhase[],
  templates: Record<TemplatePhase, readonly string[]>,
  m: Material,
  rand: Rand,
  extra: { W?: () => string; QC?: string | (() => string) } = {},
): string[] {
  const chosen = phases.map((p) => pick(templates[p], rand));
  const tag = dealTags(
    m,
    chosen.reduce((s, t) => s + tagSlots(t), 0),
    rand,
  );
  return chosen.map((t, i) => fill(t, m, rand, tag, { ...extra, verb: verbOf(phases[i]!, rand) }));
}

/** One sentence of `phase` from `templates`, naming one tag (now and then two). */
function templateSentence(
  templates: Record<TemplatePhase, readonly string[]>,
  phase: TemplatePhase,
  m: Material,
  rand: Rand,
  extra: { W?: () => string; QC?: string | (() => string) } = {},
): string {
  const tags = m.tags.length > 0 ? m.tags : [m.fallbackTag];
  const tag = () => (tags.length > 1 && rand() < 0.3 ? joinAnd(shuffle(tags, rand).slice(0, 2)) : pick(tags, rand));
  return fill(pick(templates[phase], rand), m, rand, tag, { ...extra, verb: verbOf(phase, rand) });
}

/** One sentence of `phase` from the fluent templates (with a query word half the time when `withQuery`). */
export function fluentSentence(phase: TemplatePhase, m: Material, rand: Rand, withQuery = false): string {
  return templateSentence(withQuery && m.queryWords.length > 0 && rand() < 0.5 ? FLUENT_WITH_QUERY : FLUENT, phase, m, rand);
}

/** A generic sentence of a phase, the `k`th of its list (modulo its length). */
export function genericSentence(phase: TemplatePhase | 'other', k: number, nouns: readonly string[] = CODING_NOUNS): string {
  const list = GENERIC[phase];
  return list[k % list.length]!.replace(/\{N\}/g, nouns[k % nouns.length]!);
}

// ---------------------------------------------------------------------------------------------------------
// Invented words

const ONSETS = [
  'bl',
  'br',
  'dr',
  'fl',
  'fr',
  'gl',
  'gr',
  'kl',
  'kr',
  'pl',
  'pr',
  'qu',
  'sn',
  'sp',
  'tr',
  'zw',
  'vr',
  'b',
  'd',
  'f',
  'g',
  'k',
  'm',
  'n',
  'p',
  't',
  'v',
  'w',
  'z',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'oo', 'ai', 'ei', 'au'];
const CODAS = ['', 'b', 'g', 'k', 'x', 'z', 'rk', 'sk', 'nt', 'mp', 'nz', 'lb', 'rv'];

/** A pronounceable word of three syllables that no dictionary lists ("blorvantix"). */
export function inventedWord(rand: Rand): string {
  let w = '';
  for (let i = 0; i < 3; i++) w += pick(ONSETS, rand) + pick(VOWELS, rand) + (i === 2 ? pick(['x', 'z', 'rk', 'nz', 'sk', 'b'], rand) : pick(CODAS, rand));
  return w;
}

// ---------------------------------------------------------------------------------------------------------
// Plans

/** The default palette's tools that stand for a phase, and the others. */
export const TOOLS_BY_PHASE: Record<TemplatePhase, readonly (string | null)[]> = {
  activation: [null],
  demonstration: ['CodeDocsSearchTool', 'YoutubeVideoSearchTool', 'GithubSearchTool', 'FirecrawlSearchTool', null, null],
  application: ['CodeInterpreterTool', 'FileWriterTool', null],
  integration: ['FileReadTool', 'CodeInterpreterTool', null],
  consolidate: ['FileWriterTool', null],
};

export const ROLES = ['Tutor', 'Coach', 'Reviewer', 'Mentor', 'Guide', 'Practice partner', 'Explainer', 'Session lead'];
const GOALS = [
  'Help the learner feel at ease and make steady progress.',
  'Keep the session friendly and well paced.',
  'Make sure the learner leaves with something they can use.',
  'Support the learner with clear explanations and encouragement.',
  'Give the learner room to practise and ask questions.',
];
const SUBTASKS = ['Getting started', 'Core ideas', 'Hands-on practice', 'Wrap-up', 'Review', 'Warm-up', 'Deeper look', 'Next steps'];

/** A step before assembly: its text, and (by index) its agent and the steps it depends on. */
interface DraftStep {
  text: string;
  agent: number;
  deps: number[];
  human?: boolean;
  tool?: string | null;
  expected?: string;
}

interface DraftAgent {
  role: string;
  goal?: string;
  backstory?: string;
  /** The subtask the agent's steps belong to. */
  subtask: string;
  extraTools?: string[];
}

/** A plan from drafts: agents a1…, one subtask per agent s1…, steps st1… in order; each agent's tools are its steps'. */
function assemble(agents: readonly DraftAgent[], steps: readonly DraftStep[]): Plan {
  const stepIds = steps.map((_, i) => `st${i + 1}`);
  const planAgents: Agent[] = agents.map((a, i) => {
    const tools = [...new Set([...steps.filter((s) => s.agent === i && s.tool).map((s) => s.tool!), ...(a.extraTools ?? [])])];
    return {
      id: `a${i + 1}`,
      role: a.role,
      ...(a.goal !== undefined && { goal: a.goal }),
      ...(a.backstory !== undefined && { backstory: a.backstory }),
      tools,
    };
  });
  const subtasks: Subtask[] = agents.map((a, i) => ({ id: `s${i + 1}`, name: a.subtask, agent: `a${i + 1}` }));
  const planSteps: Step[] = steps.map((s, i) => ({
    id: stepIds[i]!,
    subtask: `s${s.agent + 1}`,
    agent: `a${s.agent + 1}`,
    instruction: s.text,
    ...(s.expected !== undefined && { expected_output: s.expected }),
    tool: s.tool ?? null,
    depends_on: [...new Set(s.deps.filter((d) => d >= 0 && d < i))].map((d) => stepIds[d]!),
    ...(s.human !== undefined && { human_input: s.human }),
  }));
  return { agents: planAgents, subtasks, steps: planSteps, execution_order: stepIds };
}

/** `n` steps over `k` agents in contiguous runs, every agent with one step or more. */
function agentRuns(n: number, k: number, rand: Rand): number[] {
  const agents = Math.max(1, Math.min(k, n));
  const cuts = shuffle(
    Array.from({ length: n - 1 }, (_, i) => i + 1),
    rand,
  )
    .slice(0, agents - 1)
    .sort((a, b) => a - b);
  const out: number[] = [];
  let agent = 0;
  for (let i = 0; i < n; i++) {
    if (cuts[agent] === i) agent++;
    out.push(agent);
  }
  return out;
}

/** Dependencies of step i on earlier steps: mostly the previous one, sometimes another, sometimes two. */
function mixedDeps(i: number, rand: Rand): number[] {
  if (i === 0) return [];
  const first = rand() < 0.75 ? i - 1 : Math.floor(rand() * i);
  return rand() < 0.25 && i > 1 ? [first, Math.floor(rand() * i)] : [first];
}

function draftAgents(k: number, rand: Rand): DraftAgent[] {
  const roles = shuffle(ROLES, rand);
  const subtasks = shuffle(SUBTASKS, rand);
  return Array.from({ length: k }, (_, i) => ({ role: roles[i]!, ...(rand() < 0.7 && { goal: pick(GOALS, rand) }), subtask: subtasks[i]! }));
}

/** The phases of a fluent plan of `n` steps: activation first, then demonstration, application and integration. */
function phaseSequence(n: number, rand: Rand): TemplatePhase[] {
  const body: TemplatePhase[] = ['demonstration', 'application', 'integration'];
  while (body.length < n - 1) body.push(pick(['demonstration', 'demonstration', 'application', 'application', 'integration', 'consolidate'] as const, rand));
  const order: Record<TemplatePhase, number> = { activation: 0, demonstration: 1, application: 2, integration: 3, consolidate: 4 };
  return ['activation', ...body.slice(0, Math.max(0, n - 1)).sort((a, b) => order[a] - order[b])];
}

/** A fluent plan of the given sentences over 2–3 agents, the first step asking the learner. */
function planOf(texts: readonly string[], phases: readonly TemplatePhase[], rand: Rand, agentsK = intIn(2, 3, rand)): Plan {
  const runs = agentRuns(texts.length, agentsK, rand);
  const agents = draftAgents(Math.max(...runs) + 1, rand);
  const steps: DraftStep[] = texts.map((text, i) => ({
    text,
    agent: runs[i]!,
    deps: mixedDeps(i, rand),
    human: phases[i] === 'activation' || text.endsWith('?') ? true : undefined,
    tool: pick(TOOLS_BY_PHASE[phases[i] ?? 'demonstration'], rand),
  }));
  return assemble(agents, steps);
}

/** A fluent_hollow plan: 4–9 template sentences over the four phases, every profile tag woven in. */
export function fluentHollowPlan(m: Material, rand: Rand, templates: Record<TemplatePhase, readonly string[]> = FLUENT): Plan {
  const phases = phaseSequence(intIn(4, 9, rand), rand);
  return planOf(writeSentences(phases, templates, m, rand), phases, rand);
}

/** Keeps a plan within a palette: tools the palette lacks are dropped from steps and agents. */
export function fitToPalette(plan: Plan, palette: ResolvedPalette): Plan {
  if (palette === DEFAULT_RESOLVED) return plan;
  const ok = (t: string | null | undefined) => t !== null && t !== undefined && palette.tools.has(t);
  return {
    ...plan,
    agents: plan.agents.map((a) => ({ ...a, tools: a.tools.filter(ok) })),
    steps: plan.steps.map((s) => (s.tool && !ok(s.tool) ? { ...s, tool: null } : s)),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Editing honest plans

/** The scored phase a step's text shows first, else its tool's (default palette), else null. */
export function stepPhase(step: Step, palette: ResolvedPalette = DEFAULT_RESOLVED): TemplatePhase | null {
  const cues = cueSpans(step.instruction.toLowerCase());
  const scored = cues.find((c) => c.phase !== 'feedback');
  if (scored) return scored.phase as TemplatePhase;
  const viaTool = step.tool ? palette.tools.get(step.tool)?.phase : undefined;
  return viaTool && viaTool !== 'feedback' ? (viaTool as TemplatePhase) : null;
}

/** Whether a step demonstrates: a demonstration cue in its text or a demonstration tool. */
function isDemonstration(step: Step, palette: ResolvedPalette = DEFAULT_RESOLVED): boolean {
  const text = `${step.instruction}\n${step.expected_output ?? ''}`.toLowerCase();
  return cueSpans(text).some((c) => c.phase === 'demonstration') || (step.tool ? palette.tools.get(step.tool)?.phase === 'demonstration' : false);
}

/** A step's text replaced (its expected output goes with the text it described). */
export function withText(step: Step, text: string): Step {
  const { expected_output: _, ...rest } = step;
  return { ...rest, instruction: text };
}

/** A plan without one step: its dependents take its dependencies, the order and loops forget it. */
export function removeStep(plan: Plan, id: string): Plan {
  const gone = plan.steps.find((s) => s.id === id);
  if (!gone) return plan;
  const steps = plan.steps
    .filter((s) => s.id !== id)
    .map((s) =>
      s.depends_on.includes(id)
        ? { ...s, depends_on: [...new Set([...s.depends_on.filter((d) => d !== id), ...gone.depends_on.filter((d) => d !== s.id)])] }
        : s,
    );
  const out: Plan = { ...plan, steps, execution_order: plan.execution_order.filter((x) => x !== id) };
  if (plan.loops) out.loops = plan.loops.map((l) => ({ ...l, nodes: l.nodes.filter((n) => n !== id) })).filter((l) => l.nodes.length > 0);
  return out;
}

/** A new step after `afterId` (in the steps and the order), depending on it. */
export function insertAfter(plan: Plan, afterId: string, step: Omit<Step, 'depends_on'>): Plan {
  const at = plan.steps.findIndex((s) => s.id === afterId);
  const full: Step = { ...step, depends_on: [afterId] };
  const steps = [...plan.steps.slice(0, at + 1), full, ...plan.steps.slice(at + 1)];
  const o = plan.execution_order.indexOf(afterId);
  const order = [...plan.execution_order];
  order.splice(o < 0 ? order.length : o + 1, 0, step.id);
  return { ...plan, steps, execution_order: order };
}

export function freshStepId(plan: Plan, rand: Rand): string {
  for (;;) {
    const id = `f${Math.floor(rand() * 1e6)}`;
    if (!plan.steps.some((s) => s.id === id)) return id;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A phrase as a whole-word, case-insensitive pattern (a space or hyphen matching either). */
export const phraseRe = (phrases: readonly string[]) =>
  new RegExp(
    `(?<![A-Za-z0-9])(?:${[...phrases]
      .sort((a, b) => b.length - a.length)
      .map((p) =>
        p
          .split(/[\s_-]+/)
          .map(escapeRe)
          .join('[\\s_-]+'),
      )
      .join('|')})(?![A-Za-z0-9+#])`,
    'gi',
  );

/** Every text field of a plan mapped through `f`. */
function mapPlanText(plan: Plan, f: (text: string) => string): Plan {
  return {
    ...plan,
    agents: plan.agents.map((a) => ({
      ...a,
      role: f(a.role),
      ...(a.goal !== undefined && { goal: f(a.goal) }),
      ...(a.backstory !== undefined && { backstory: f(a.backstory) }),
    })),
    subtasks: plan.subtasks.map((s) => ({ ...s, name: f(s.name), ...(s.objective !== undefined && { objective: f(s.objective) }) })),
    steps: plan.steps.map((s) => ({ ...s, instruction: f(s.instruction), ...(s.expected_output !== undefined && { expected_output: f(s.expected_output) }) })),
    ...(plan.loops && { loops: plan.loops.map((l) => (l.exit_condition === undefined ? l : { ...l, exit_condition: f(l.exit_condition) })) }),
  };
}

/** `sentence` with `phrase` worked in before its final mark ("…, with Java in mind."). */
function weaveIn(sentence: string, phrase: string, rand: Rand): string {
  const m = /^(.*?)([.?!]*)$/s.exec(sentence.trim())!;
  const tail = pick([`, with ${phrase} in mind`, `, the way a ${phrase} developer would`, `, relating it to ${phrase}`, ` using ${phrase}`], rand);
  return `${m[1]}${tail}${m[2] || '.'}`;
}

/** The text of an honest plan of another group, its profile's tags swapped for this group's. */
function transplant(plan: Plan, from: HonestGroup, m: Material, rand: Rand): Plan {
  const theirs = profileSignals(from.profile).flatMap((s) => [s.label, ...s.phrases]);
  const mine = m.tags.length > 0 ? shuffle(m.tags, rand) : [m.fallbackTag];
  const mapping = new Map<string, string>();
  let next = Math.floor(rand() * mine.length);
  const used = new Set<string>();
  const swap = (text: string) =>
    theirs.length === 0
      ? text
      : text.replace(phraseRe(theirs), (hit) => {
          const key = hit.toLowerCase();
          if (!mapping.has(key)) mapping.set(key, mine[next++ % mine.length]!);
          used.add(mapping.get(key)!);
          return mapping.get(key)!;
        });
  let out = mapPlanText(plan, swap);
  // Tags of this group that no swap placed are worked into random steps.
  const missing = mine.filter((t) => !used.has(t));
  if (missing.length > 0 && out.steps.length > 0) {
    const steps = [...out.steps];
    for (const t of missing) {
      const i = Math.floor(rand() * steps.length);
      steps[i] = { ...steps[i]!, instruction: weaveIn(steps[i]!.instruction, t, rand) };
    }
    out = { ...out, steps };
  }
  return out;
}

/** An honest plan of a group, at random (null when it has none). */
const honest = (g: HonestGroup, rand: Rand): Plan | null => (g.plans.length === 0 ? null : pick(g.plans, rand).plan);

// ---------------------------------------------------------------------------------------------------------
// The families

const KEYWORD_CUES: Record<TemplatePhase, readonly string[]> = {
  activation: ['ask the learner', 'prior knowledge', 'already know'],
  demonstration: ['explain', 'show', 'worked example', 'demonstrate', 'walkthrough'],
  application: ['practise', 'implement', 'build', 'exercise', 'try'],
  integration: ['verify', 'review', 'check', 'reflect', 'validate'],
  consolidate: ['summarize', 'recap', 'key takeaways'],
};
const KEYWORD_EXTRAS = ['code', 'example', 'function', 'test', 'project', 'syntax', 'output', 'learner'];
const ONE_WORDS = [
  'Code',
  'Test',
  'Explain',
  'Show',
  'Demonstrate',
  'Illustrate',
  'Practise',
  'Try',
  'Build',
  'Implement',
  'Solve',
  'Verify',
  'Review',
  'Check',
  'Debug',
  'Reflect',
  'Apply',
  'Refactor',
  'Summarize',
  'Recap',
];
const TWO_STEP_FIRST = [
  'Ask the learner what they already know about {T}, then explain the key ideas with a short code example?',
  'Ask the learner which {T} topics feel hardest, and show a worked example that addresses them?',
  'Ask the learner about their {T} experience, then walk the learner through a simple example?',
  'Ask the learner how they use {T} today, and demonstrate the main pattern with a small code snippet?',
];
const TWO_STEP_SECOND = [
  'Have the learner practise a small {T} exercise, then review and verify the result together.',
  'Let the learner build a tiny {T} program, then check it and reflect on what they learned.',
  'Have the learner implement the idea in {T}, then test it and review the code together.',
  'Give the learner a short {T} task to try, then evaluate the outcome and summarize the key takeaways.',
];
const ROLE_TEMPLATES = ['{T} mentor', '{T} coach', '{T} tutor', '{T} reviewer', 'Senior {T} developer', '{T} practice partner'];
const GOAL_TEMPLATES = [
  'Help the learner grow as a {T} developer through guided practice.',
  'Guide the learner through {T} work at a comfortable pace.',
  'Make the learner confident with {T} in everyday tasks.',
];
const BACKSTORY_TEMPLATES = ['Has taught {T} to beginners for many years.', 'A patient teacher who has shipped real {T} projects.'];

export const adversaryFamilies: Record<FamilyName, FamilyGenerator> = {
  fluent_hollow(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => fluentHollowPlan(m, rand));
  },

  invented_words(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const vocabulary = Array.from({ length: 6 }, () => inventedWord(rand));
      const phases = phaseSequence(intIn(4, 8, rand), rand);
      const texts = writeSentences(phases, INVENTED, m, rand, { W: () => pick(vocabulary, rand) });
      return planOf(texts, phases, rand);
    });
  },

  paraphrased_question(group, _others, rand) {
    const m = materialOf(group);
    // The clause as asked, or a few of the query's words standing for it.
    const short = () => {
      const ws = shuffle(m.queryWords, rand).slice(0, intIn(2, 3, rand));
      return ws.length < 2 ? m.clause : pick([`how ${joinAnd(ws)} fit together`, `the role of ${ws[0]} in ${joinAnd(ws.slice(1))}`], rand);
    };
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const phases = phaseSequence(intIn(4, 8, rand), rand);
      return planOf(writeSentences(phases, PARAPHRASE, m, rand, { QC: () => (rand() < 0.6 ? m.clause : short()) }), phases, rand);
    });
  },

  tags_in_roles(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const phases = phaseSequence(intIn(4, 8, rand), rand);
      const runs = agentRuns(phases.length, intIn(2, 4, rand), rand);
      const k = Math.max(...runs) + 1;
      // Roles, goals and backstories carry the tags; the steps none.
      const tag = dealTags(m, 2 * k, rand);
      const subtasks = shuffle(SUBTASKS, rand);
      const agents: DraftAgent[] = Array.from({ length: k }, (_, i) => ({
        role: fill(pick(ROLE_TEMPLATES, rand), m, rand, tag),
        goal: fill(pick(GOAL_TEMPLATES, rand), m, rand, tag),
        ...(rand() < 0.4 && { backstory: fill(pick(BACKSTORY_TEMPLATES, rand), m, rand, () => pick(m.tags.length > 0 ? m.tags : [m.fallbackTag], rand)) }),
        subtask: subtasks[i]!,
      }));
      const steps: DraftStep[] = phases.map((p, i) => ({
        text: genericSentence(p, Math.floor(rand() * 12), m.nouns),
        agent: runs[i]!,
        deps: mixedDeps(i, rand),
        human: p === 'activation' ? true : undefined,
        tool: pick(TOOLS_BY_PHASE[p], rand),
      }));
      return assemble(agents, steps);
    });
  },

  keyword_and_list(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const phases = phaseSequence(intIn(4, 7, rand), rand);
      const tag = dealTags(m, phases.length, rand);
      const texts = phases.map((p) => {
        const words = [
          ...tag().split(/, | and /),
          ...(m.queryWords.length > 0 ? Array.from({ length: intIn(0, 2, rand) }, () => pick(m.queryWords, rand)) : []),
          ...(rand() < 0.6 ? [pick(KEYWORD_EXTRAS, rand)] : []),
        ];
        const cue = pick(KEYWORD_CUES[p], rand);
        const list = rand() < 0.6 ? [cue, ...shuffle(words, rand)] : shuffle([cue, ...words], rand);
        return `${capitalize(list.join(' and '))}${p === 'activation' ? '?' : '.'}`;
      });
      return planOf(texts, phases, rand);
    });
  },

  transplanted(group, others, rand) {
    const m = materialOf(group);
    const donors = others.filter((o) => o.id !== group.id && o.query !== group.query && o.plans.length > 0);
    if (donors.length === 0) return [];
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const from = pick(donors, rand);
      return transplant(honest(from, rand)!, from, m, rand);
    });
  },

  stripped_real(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const plan = honest(group, rand);
      if (!plan) return null;
      let targets = plan.steps.filter((s) => isDemonstration(s)).map((s) => s.id);
      if (targets.length === 0) targets = plan.steps.filter((s) => stepPhase(s) !== 'activation').map((s) => s.id);
      // All of them, or a random part (one at least); sometimes the application steps' content as well.
      if (rand() < 0.5) targets = shuffle(targets, rand).slice(0, intIn(1, targets.length, rand));
      if (rand() < 0.3) targets.push(...plan.steps.filter((s) => stepPhase(s) === 'application').map((s) => s.id));
      const mode = pick(['delete', 'replace', 'mixed'] as const, rand);
      let out = plan;
      for (const id of new Set(targets)) {
        if (out.steps.length <= 2) break;
        const step = out.steps.find((s) => s.id === id)!;
        if (mode === 'delete' || (mode === 'mixed' && rand() < 0.5)) out = removeStep(out, id);
        else {
          const phase = stepPhase(step) ?? 'demonstration';
          const text = genericSentence(phase, Math.floor(rand() * 12), m.nouns);
          out = { ...out, steps: out.steps.map((s) => (s.id === id ? withText(s, text) : s)) };
        }
      }
      return out;
    });
  },

  padded_filler(group, _others, rand) {
    const m = materialOf(group);
    const filler = () => {
      const tagged = pick(FILLER, rand);
      return fill(tagged, m, rand, () => pick(m.tags.length > 0 ? m.tags : [m.fallbackTag], rand));
    };
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      let plan = honest(group, rand);
      if (!plan) return null;
      const mode = pick(['steps', 'sentences', 'both'] as const, rand);
      if (mode !== 'sentences') {
        for (let k = intIn(2, 8, rand); k > 0; k--) {
          const after = pick(plan.steps, rand);
          const question = rand() < 0.2;
          plan = insertAfter(plan, after.id, {
            id: freshStepId(plan, rand),
            subtask: after.subtask,
            agent: after.agent,
            instruction: question ? pick(FILLER_QUESTIONS, rand) : filler(),
            tool: null,
            ...(question && { human_input: true }),
          });
        }
      }
      if (mode !== 'steps') {
        const steps = [...plan.steps];
        for (let k = intIn(1, steps.length, rand); k > 0; k--) {
          const i = Math.floor(rand() * steps.length);
          steps[i] = { ...steps[i]!, instruction: `${steps[i]!.instruction.trimEnd()} ${filler()}` };
        }
        plan = { ...plan, steps };
      }
      return plan;
    });
  },

  off_topic_mixed(group, others, rand) {
    const m = materialOf(group);
    const donors = others.filter((o) => o.id !== group.id && o.query !== group.query);
    if (donors.length === 0) return [];
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const plan = honest(group, rand);
      if (!plan) return null;
      const from = pick(donors, rand);
      const clause = queryClause(from.query);
      const chosen = shuffle(plan.steps, rand).slice(0, intIn(1, Math.max(1, Math.ceil(plan.steps.length / 2)), rand));
      const texts = new Map(
        chosen.map((s) => {
          const phase = s.human_input ? 'activation' : (stepPhase(s) ?? 'demonstration');
          const p = phase === 'activation' && !s.human_input ? 'demonstration' : phase;
          return [s.id, templateSentence(PARAPHRASE, p, m, rand, { QC: clause })] as const;
        }),
      );
      return { ...plan, steps: plan.steps.map((s) => (texts.has(s.id) ? withText(s, texts.get(s.id)!) : s)) };
    });
  },

  fanout_one_word(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const tags = m.tags.length > 0 ? m.tags : [m.fallbackTag];
      const root = fill(pick(FLUENT.activation, rand), m, rand, () => joinAnd(shuffle(tags, rand)));
      const pool = [...ONE_WORDS, ...tags.filter((t) => !/\s/.test(t)).map(capitalize)];
      const words = Array.from({ length: 20 }, (_, i) => (i < pool.length && rand() < 0.7 ? shuffle(pool, rand)[0]! : pick(pool, rand)));
      const k = intIn(2, 4, rand);
      const agents = draftAgents(k, rand);
      const steps: DraftStep[] = [
        { text: root, agent: 0, deps: [], human: true, tool: null },
        ...words.map((w, i) => ({
          text: `${w}.`,
          agent: i < k - 1 ? i + 1 : Math.floor(rand() * k),
          deps: [0],
          tool: /^(Explain|Show|Demonstrate|Illustrate)$/.test(w) && rand() < 0.5 ? 'CodeDocsSearchTool' : null,
        })),
      ];
      return assemble(agents, steps);
    });
  },

  two_step_minimal(group, _others, rand) {
    const m = materialOf(group);
    return distinctPlans(VARIANTS_PER_GROUP, () => {
      const tags = shuffle(m.tags.length > 0 ? m.tags : [m.fallbackTag], rand);
      const cut = tags.length === 1 ? 1 : intIn(1, tags.length - 1, rand);
      const first = fill(pick(TWO_STEP_FIRST, rand), m, rand, () => joinAnd(tags.slice(0, cut)));
      const second = fill(pick(TWO_STEP_SECOND, rand), m, rand, () => joinAnd(tags.length === 1 ? tags : tags.slice(cut)));
      const agents = draftAgents(2, rand);
      return assemble(agents, [
        { text: first, agent: 0, deps: [], human: true, tool: pick([null, 'CodeDocsSearchTool', 'YoutubeVideoSearchTool'], rand) },
        { text: second, agent: 1, deps: [0], tool: pick([null, 'CodeInterpreterTool', 'FileWriterTool'], rand) },
      ]);
    });
  },
};
