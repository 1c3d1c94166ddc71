// Honest tutoring plans whose teaching content comes from outside the team (Coding-Tutor's reference steps,
// MathDial's worked solutions and real teacher turns), for calibrating and evaluating the guarded reward
// (docs/rewards.md §10). Our own text is only the connective framing ("Ask the learner …", "Walk through …"),
// the learner profiles and the agents' roles. Deterministic: the same inputs give the same file byte for byte.
//
//   npx tsx scripts/corpus/make-honest-plans.ts [--shared ../shared] [--out test/fixtures/plans/honest-corpus.json]
//   npx tsx scripts/corpus/check-honest-plans.ts     (runs every plan through the service's evaluation)
//
// The layout of the output and the split rule are described in test/fixtures/plans/README.md.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../../src/common/rng.js';
import type { Agent, Plan, Step, Subtask } from '../../src/contracts/plan.js';
import { parseMathdialConversation } from '../../training/mathdial.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Seed of every random choice (styles, profiles, which plans mention a tag, which MathDial questions). */
const SEED = 20261207;
const MATH_QUESTIONS = 80;
/** Share of questions in the calibration split (the rest are evaluation). */
const CALIBRATION_PERCENT = 40;

type Source = 'coding-tutor' | 'mathdial';
type Style = 'multi-agent' | 'single-agent' | 'compact' | 'prose' | 'alt-cues' | 'teacher-voice';
type Tool =
  | 'CodeInterpreterTool'
  | 'CodeDocsSearchTool'
  | 'FirecrawlSearchTool'
  | 'FileWriterTool'
  | 'FileReadTool'
  | 'DirectoryReadTool'
  | 'GithubSearchTool'
  | 'YoutubeVideoSearchTool';

interface LearnerProfile {
  about_me?: string;
  tags?: string[];
  skills?: string[];
  experience?: string;
  goals?: string;
}

interface CorpusGroup {
  id: string;
  source: Source;
  split: 'calibration' | 'evaluation';
  query: string;
  profile: LearnerProfile;
  reference: string[];
  plans: { style: Style; plan: Plan }[];
}

const CODING_STYLES: readonly Style[] = ['multi-agent', 'single-agent', 'compact', 'prose', 'alt-cues'];
const MATH_STYLES: readonly Style[] = [...CODING_STYLES, 'teacher-voice'];

// ---------------------------------------------------------------------------------------------------------
// Determinism helpers

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hash32 = (s: string) => Number.parseInt(sha256(s).slice(0, 8), 16);
const rngFor = (key: string) => mulberry32((SEED ^ hash32(key)) >>> 0);
const pick = <T>(xs: readonly T[], rand: () => number): T => xs[Math.floor(rand() * xs.length)]!;

function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Split by question: the first 8 hex digits of sha256(query), modulo 100, below CALIBRATION_PERCENT. */
const splitOf = (query: string) => (hash32(query) % 100 < CALIBRATION_PERCENT ? 'calibration' : 'evaluation');

/** Every 3-style combination of the styles, shuffled, handed out in turn so each style appears equally often. */
function styleDealer(styles: readonly Style[], rand: () => number): () => Style[] {
  const combos: Style[][] = [];
  for (let a = 0; a < styles.length; a++)
    for (let b = a + 1; b < styles.length; b++) for (let c = b + 1; c < styles.length; c++) combos.push([styles[a]!, styles[b]!, styles[c]!]);
  let deck: Style[][] = [];
  return () => {
    if (deck.length === 0) deck = shuffled(combos, rand);
    return shuffled(deck.pop()!, rand);
  };
}

/** Profiles dealt from a shuffled pool, reshuffled when it runs out: every profile is used about equally. */
function profileDealer(pool: readonly LearnerProfile[], rand: () => number): () => LearnerProfile {
  let deck: LearnerProfile[] = [];
  return () => {
    if (deck.length === 0) deck = shuffled(pool, rand);
    return deck.pop()!;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Text helpers (framing only: they never change the words of a source sentence)

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const period = (s: string) => (/[.!?:]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);
const noPeriod = (s: string) => s.trim().replace(/[.;:]+$/, '');
const sentences = (xs: readonly string[]) => xs.map(period).join(' ');
const quote = (s: string) => `"${squash(s)}"`;
/** "Define a function …" → "define a function …" (a capitalised ordinary word only; identifiers and names stay). */
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) && !/^[A-Z][a-z]+[A-Z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
const andList = (xs: readonly string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** Contiguous, nearly equal parts of xs (no empty part when xs has at least k items). */
function chunks<T>(xs: readonly T[], k: number): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < k; i++) {
    const end = Math.round(((i + 1) * xs.length) / k);
    out.push(xs.slice(start, end));
    start = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Learner profiles (written by the team) and the lead-ins that mention a tag in a content step

const CODING_PROFILES: readonly LearnerProfile[] = [
  {
    about_me: 'Data analyst at a logistics company. I automate our weekly reports in Python and live in Jupyter notebooks.',
    tags: ['python', 'pandas', 'data-science'],
    experience: 'Three years of pandas and SQL; I have never packaged a library.',
    goals: 'Read and write library-quality code, not just notebook cells.',
  },
  {
    about_me: 'Backend developer maintaining a Django monolith for an online shop.',
    tags: ['python', 'django', 'postgresql'],
    skills: ['REST APIs', 'Celery'],
    goals: 'Understand lower-level Python code outside the web framework.',
  },
  {
    about_me: 'Front-end developer; most of my work is React components written in TypeScript.',
    tags: ['javascript', 'typescript', 'react'],
    experience: 'Four years of JavaScript, a few months of Python scripting.',
    goals: "Contribute to my team's data pipeline.",
  },
  {
    about_me: 'Java developer at a bank, moving to a team that ships Python services.',
    tags: ['java', 'spring', 'sql'],
    goals: 'Write idiomatic Python instead of Java in Python syntax.',
  },
  {
    about_me: 'First-year computer science student who has just finished an introductory programming course.',
    tags: ['python', 'beginner'],
    goals: 'Learn to read real open-source code.',
  },
  {
    about_me: "PhD student in computer vision. I train models in PyTorch, but much of my code is adapted from papers' repositories.",
    tags: ['pytorch', 'numpy', 'machine-learning'],
    experience: 'Two years of research code, little software engineering.',
    goals: 'Understand the tensor code I reuse instead of copying it.',
  },
  {
    about_me: 'Game developer who writes C++ and shaders and is picking up Python for tooling.',
    tags: ['c++', 'opengl'],
    skills: ['linear algebra', 'GPU programming'],
    goals: 'Write rendering tools and data processing scripts in Python.',
  },
  {
    about_me: 'Data engineer building ingestion jobs that read from and write to cloud storage.',
    tags: ['python', 'aws', 'docker'],
    experience: 'Airflow and Spark jobs; comfortable with S3 buckets and IAM roles.',
    goals: 'Write robust code for distributed jobs.',
  },
  {
    about_me: 'Self-taught programmer; I built a small Flask site for my bakery.',
    tags: ['python', 'flask', 'beginner'],
    goals: 'Move from copying snippets to writing my own functions.',
  },
  {
    about_me: 'Physics graduate who used MATLAB for years and now does numerical work in Python.',
    tags: ['numpy', 'matlab', 'scientific-computing'],
    goals: 'Understand vectorised code and numerical stability.',
  },
  {
    about_me: 'Machine learning engineer who deploys search and ranking models.',
    tags: ['python', 'machine-learning', 'elasticsearch'],
    experience: 'Five years in industry; I know BM25 and Lucene query syntax well.',
    goals: 'Understand the internals of the libraries we depend on.',
  },
  {
    about_me: 'High-school student who learned JavaScript making browser games and now wants to learn Python.',
    tags: ['javascript', 'python', 'beginner'],
    goals: 'Build my own projects in Python.',
  },
  {
    about_me: 'QA engineer who writes test automation for a web product.',
    tags: ['python', 'pytest', 'selenium'],
    experience: 'Three years of end-to-end tests; little experience with library internals.',
    goals: 'Write unit tests for the data code my colleagues write.',
  },
];

const MATH_PROFILES: readonly LearnerProfile[] = [
  {
    about_me: '7th grade student. I like drawing comics and I understand things best from a picture.',
    tags: ['visual-learner', 'fractions'],
    goals: 'Stop getting confused by fractions in word problems.',
  },
  {
    about_me: '6th grader who is fast at mental math but rushes through long word problems.',
    tags: ['word-problems', 'mental-math'],
    goals: 'Read the question carefully before calculating.',
  },
  {
    about_me: '8th grade student who finds percentages and money problems confusing.',
    tags: ['percentages', 'money'],
    experience: 'Usually gets the arithmetic right but picks the wrong operation.',
  },
  {
    about_me: 'Adult learner studying for a high-school equivalency exam after twenty years away from math.',
    tags: ['word-problems', 'adult-learner'],
    goals: 'Pass the math section of the exam.',
  },
  {
    about_me: '5th grade student who loves soccer and still counts on fingers for the times tables.',
    tags: ['multiplication', 'sports'],
    goals: 'Know the times tables by heart.',
  },
  {
    about_me: '7th grade student who moved from Brazil last year; English is my second language.',
    tags: ['english-learner', 'visual-learner'],
    goals: 'Understand what word problems are asking.',
  },
  {
    about_me: 'Homeschooled 6th grader who likes baking with my dad.',
    tags: ['fractions', 'measurement'],
    goals: 'Use fractions confidently in recipes.',
  },
  {
    about_me: '8th grade student who gets anxious in tests and likes to see each step written out.',
    tags: ['division', 'test-anxiety'],
    goals: 'Check answers calmly instead of guessing.',
  },
  {
    about_me: '6th grader who builds Lego models and likes puzzles.',
    tags: ['multiplication', 'puzzles'],
    goals: 'Solve multi-step problems without losing track.',
  },
  {
    about_me: '7th grade student who struggles to decide which operation a problem needs.',
    tags: ['word-problems', 'division'],
    experience: 'Often adds when the problem needs a division.',
  },
];

/** Lead-ins that mention a tag: [third person, second person]. A tag without one (e.g. the ambiguous `spring`) is never mentioned. */
const TAG_LEADS: Readonly<Record<string, readonly [string, string]>> = {
  python: ['Since the learner already writes Python,', 'Since you already write Python,'],
  pandas: ['Since the learner knows pandas,', 'Since you know pandas,'],
  'data-science': ["Given the learner's data science background,", 'Given your data science background,'],
  django: ['As the learner builds Django apps,', 'As you build Django apps,'],
  postgresql: ['Since the learner works with PostgreSQL,', 'Since you work with PostgreSQL,'],
  javascript: ['Coming from JavaScript,', 'Coming from JavaScript,'],
  typescript: ['Coming from TypeScript,', 'Coming from TypeScript,'],
  react: ['Since the learner builds React components,', 'Since you build React components,'],
  java: ['Coming from Java,', 'Coming from Java,'],
  sql: ['Since the learner writes SQL,', 'Since you write SQL,'],
  beginner: ['Because the learner is a beginner,', 'Because you are a beginner,'],
  pytorch: ['Since the learner trains models in PyTorch,', 'Since you train models in PyTorch,'],
  numpy: ['Since the learner knows NumPy,', 'Since you know NumPy,'],
  'machine-learning': ["Given the learner's machine learning work,", 'Given your machine learning work,'],
  'c++': ['Coming from C++,', 'Coming from C++,'],
  opengl: ['Since the learner has used OpenGL,', 'Since you have used OpenGL,'],
  aws: ['Since the learner runs jobs on AWS,', 'Since you run jobs on AWS,'],
  docker: ['Since the learner packages jobs with Docker,', 'Since you package jobs with Docker,'],
  flask: ['Since the learner has built a Flask site,', 'Since you have built a Flask site,'],
  matlab: ['Coming from MATLAB,', 'Coming from MATLAB,'],
  'scientific-computing': ["Given the learner's scientific computing background,", 'Given your scientific computing background,'],
  elasticsearch: ['Since the learner knows Elasticsearch,', 'Since you know Elasticsearch,'],
  pytest: ['Since the learner writes tests with pytest,', 'Since you write tests with pytest,'],
  selenium: ['Since the learner automates browsers with Selenium,', 'Since you automate browsers with Selenium,'],
  'visual-learner': ['Since the learner is a visual learner,', 'Since you are a visual learner,'],
  fractions: ['Since fractions are hard for the learner,', 'Since fractions are hard for you,'],
  'word-problems': ['Since the learner is practising word problems,', 'Since you are practising word problems,'],
  'mental-math': ['Since the learner is quick at mental math,', 'Since you are quick at mental math,'],
  percentages: ['Since percentages confuse the learner,', 'Since percentages confuse you,'],
  money: ['Since money problems confuse the learner,', 'Since money problems confuse you,'],
  'adult-learner': ['For this adult learner,', 'As an adult learner,'],
  multiplication: ['Since the learner is working on multiplication,', 'Since you are working on multiplication,'],
  sports: ['Since the learner loves sports,', 'Since you love sports,'],
  'english-learner': ['Since the learner is an English learner,', 'Since you are an English learner,'],
  measurement: ['Since the learner uses measurement when baking,', 'Since you use measurement when baking,'],
  division: ['Since division is where the learner slips,', 'Since division is where you slip,'],
  'test-anxiety': ["Mindful of the learner's test anxiety,", 'Mindful of your test anxiety,'],
  puzzles: ['Since the learner enjoys puzzles,', 'Since you enjoy puzzles,'],
};

type Voice = 'they' | 'you';

/**
 * Up to two lead-ins ("Since you know pandas,") for the content steps of one plan, or none: about half the plans
 * mention tags. A tag about a topic (percentages, division) is mentioned only where the problem has that topic.
 */
function leadsFor(profile: LearnerProfile, voice: Voice, relevant: (tag: string) => boolean, rand: () => number): string[] {
  const mentionable = (profile.tags ?? []).filter((t) => TAG_LEADS[t] !== undefined && relevant(t));
  if (mentionable.length === 0 || rand() >= 0.5) return [];
  const count = mentionable.length > 1 && rand() < 0.4 ? 2 : 1;
  return shuffled(mentionable, rand)
    .slice(0, count)
    .map((t) => TAG_LEADS[t]![voice === 'they' ? 0 : 1]);
}

/** "Walk through …" with a lead → "Since you know pandas, walk through …". */
const withLead = (lead: string | undefined, text: string) => (lead ? `${lead} ${lowerFirst(text)}` : text);

// ---------------------------------------------------------------------------------------------------------
// Plan assembly

interface StepSpec {
  subtask: string;
  agent: string;
  instruction: string;
  expected?: string;
  tool?: Tool | null;
  after?: string[];
  human?: boolean;
}

/** Builds a plan in the canonical schema; an agent's tools are the tools its steps call, in order of first use. */
class PlanBuilder {
  private readonly agents: Agent[] = [];
  private readonly subtasks: Subtask[] = [];
  private readonly steps: Step[] = [];

  agent(id: string, role: string, goal: string): string {
    this.agents.push({ id, role, goal, tools: [] });
    return id;
  }

  subtask(id: string, name: string, objective: string, agent: string): string {
    this.subtasks.push({ id, name, objective, agent });
    return id;
  }

  step(s: StepSpec): string {
    const id = `st${this.steps.length + 1}`;
    const step: Step = {
      id,
      subtask: s.subtask,
      agent: s.agent,
      instruction: squash(s.instruction),
      ...(s.expected ? { expected_output: squash(s.expected) } : {}),
      tool: s.tool ?? null,
      depends_on: s.after ?? [],
      ...(s.human ? { human_input: true } : {}),
    };
    this.steps.push(step);
    if (s.tool) {
      const agent = this.agents.find((a) => a.id === s.agent)!;
      if (!agent.tools.includes(s.tool)) agent.tools.push(s.tool);
    }
    return id;
  }

  build(): Plan {
    return { agents: this.agents, subtasks: this.subtasks, steps: this.steps, execution_order: this.steps.map((s) => s.id) };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Coding-Tutor tasks

interface CodingRecord {
  namespace: string;
  type: string;
  class_name?: string | null;
  function_name: string;
  input_code: string;
  reference_steps: string;
  reference_code: string;
}

interface CodingTask {
  id: string;
  /** "`inner_outer`" or "`Quad.upload_to_texture`". */
  name: string;
  /** What the docstring's first sentence says it does, as a clause after "it": "uploads a portion … to a texture in OpenGL". */
  purpose: string;
  /** The docstring's `:return:` sentence, when there is one worth checking against. */
  returns: string | null;
  /** Identifiers the reference steps rely on (calls and attributes), in backticks. */
  concepts: string[];
  steps: string[];
  query: string;
}

/** "1. Define …\n\n2. Check …" → ["Define …", "Check …"] (continuation lines joined). */
function numberedSteps(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*\d+\.\s+(.*)$/.exec(line);
    if (m) out.push(m[1]!);
    else if (line.trim() && out.length > 0) out[out.length - 1] += ` ${line.trim()}`;
  }
  return out.map(squash).filter((s) => s.length > 0);
}

function thirdPerson(verb: string): string {
  if (/s$|ly$/.test(verb)) return verb;
  if (/(?:sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** The docstring's first sentence as a clause that can follow "so that it". */
function purposeOf(first: string): string {
  let s = noPeriod(first);
  s = s.replace(/^(?:this|the)\s+(?:[`'"]?[\w.]+[`'"]?\s+)?(?:function|method)(?:\s+[`'"][\w.]+[`'"])?(?:\s+in the \w+ class)?\s+/i, '');
  s = s.replace(/^is designed to\s+/i, 'can ').replace(/^is responsible for\s+/i, 'takes care of ');
  const [head = '', ...rest] = s.split(' ');
  const word = /^[A-Z][a-z]+$/.test(head) ? head.toLowerCase() : head;
  s = [['can', 'takes'].includes(word) ? word : thirdPerson(word), ...rest].join(' ');
  // A long first sentence is cut at its first comma past 40 characters ("…, including …").
  if (s.length > 160) {
    for (let comma = s.indexOf(', ', 40); comma > 0 && comma < 200; comma = s.indexOf(', ', comma + 1)) {
      const head = s.slice(0, comma);
      if ((head.match(/\(/g) ?? []).length === (head.match(/\)/g) ?? []).length) {
        s = head;
        break;
      }
    }
  }
  return s;
}

function codingTask(r: CodingRecord): CodingTask {
  const doc = /"""([\s\S]*?)(?:"""|$)/.exec(r.input_code)?.[1] ?? '';
  const description = squash(doc.split(/Input-Output Arguments|:param|:return/)[0] ?? '');
  const first = description.split(/(?<=[.!?])\s+(?=[A-Z`'"(])/)[0] ?? description;
  const returnLine = /:return:\s*(.+)/.exec(doc)?.[1]?.trim() ?? '';
  const returnSentence = returnLine.split(/(?<=\.)\s+(?=[A-Z])/)[0] ?? '';
  const returns = returnSentence && !/^no return/i.test(returnSentence) && !/^none\.?$/i.test(returnSentence) ? period(returnSentence) : null;

  const signature = /def\s+\w+\s*\(([\s\S]*?)\)\s*(?:->[^:]*)?:/.exec(r.input_code)?.[1] ?? '';
  const params = signature
    .split(',')
    .map(
      (p) =>
        p
          .trim()
          .replace(/^\*+/, '')
          .split(/[:=\s]/)[0]!,
    )
    .filter((p) => p.length > 0);
  const steps = numberedSteps(r.reference_steps);

  // What the task rests on, ranked: an identifier the steps name that the reference code calls; a dotted call of the
  // reference code (a library function: `np.frombuffer`, `torch.searchsorted`); a dotted identifier the steps name;
  // any other identifier the steps name. Ties keep the order of first appearance.
  const candidates = new Map<string, number>();
  const consider = (id: string, score: number) => {
    if (id === r.function_name || params.includes(id) || id === 'self' || id.length < 3) return;
    if (/^[\d"'(]|^(?:True|False|None)$/.test(id) || /\s/.test(id)) return;
    if (score > (candidates.get(id) ?? -1)) candidates.set(id, score);
  };
  const named = [...r.reference_steps.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  for (const id of named) {
    const bare = id.replace(/\(.*$/, '');
    if (r.reference_code.includes(`${bare}(`)) consider(id, 3);
  }
  for (const m of r.reference_code.matchAll(/(?<![\w.])([A-Za-z_]\w*(?:\.\w+)+)\(/g)) {
    if (!m[1]!.startsWith('self.')) consider(m[1]!, 2);
  }
  for (const id of named) consider(id, /[.(]/.test(id) ? 1 : 0);
  // Builtins and exception classes say little about this task: only when nothing else is named.
  for (const id of candidates.keys())
    if (/Error$|Exception$|^(?:str|dict|list|bytes|int|float|map|len|range|tuple|set|isinstance)$/.test(id)) candidates.set(id, -1);
  // Array.prototype.sort is stable: equal scores keep the order they were found in.
  const ranked = [...candidates.keys()].sort((a, b) => candidates.get(b)! - candidates.get(a)!);
  let concepts = ranked.slice(0, 2).map((id) => `\`${id}\``);
  if (concepts.length === 0)
    concepts = params
      .filter((p) => p !== 'self')
      .slice(0, 2)
      .map((p) => `the \`${p}\` argument`);

  const isMethod = r.type === 'method' && r.class_name;
  const name = isMethod ? `\`${r.class_name}.${r.function_name}\`` : `\`${r.function_name}\``;
  const purpose = purposeOf(first);
  const query = `How do I write ${isMethod ? `the ${name} method` : name} so that it ${purpose}?`;
  return { id: `ct-${r.namespace}`, name, purpose, returns, concepts, steps, query };
}

/** The activation step's question: what the learner knows of the identifiers this task rests on. */
function codingActivation(t: CodingTask): string {
  return `Ask the learner what they already know about ${andList(t.concepts)}, and how they would approach ${t.name}, which ${t.purpose}.`;
}

const checkAgainstDocstring = (t: CodingTask) =>
  t.returns ? `check that the result matches what the docstring promises: ${t.returns}` : `check that it ${t.purpose}.`;

type Builder<T> = (t: T, leads: string[], rand: () => number) => Plan;

const codingBuilders: Record<Exclude<Style, 'teacher-voice'>, Builder<CodingTask>> = {
  'multi-agent': (t, leads) => {
    const b = new PlanBuilder();
    const mentor = b.agent('mentor', 'Python mentor', `Explain the approach behind ${t.name} from the reference steps`);
    const coach = b.agent('coach', 'Implementation coach', `Guide the learner while they implement ${t.name}`);
    const reviewer = b.agent('reviewer', 'Code reviewer', `Test and review the learner's ${t.name}`);
    const s1 = b.subtask('s1', 'Prior knowledge', `Find out what the learner knows about ${andList(t.concepts)}`, mentor);
    const s2 = b.subtask('s2', 'Worked explanation', `Explain how ${t.name} starts`, mentor);
    const s3 = b.subtask('s3', 'Implementation', `The learner implements ${t.name}`, coach);
    const s4 = b.subtask('s4', 'Verification', 'Test the function and review it against the reference', reviewer);
    const [demo, ...rest] = chunks(t.steps.slice(0, -1), t.steps.length >= 8 ? 3 : 2);
    const last = t.steps[t.steps.length - 1]!;
    const st1 = b.step({ subtask: s1, agent: mentor, instruction: codingActivation(t), human: true });
    const st2 = b.step({
      subtask: s2,
      agent: mentor,
      tool: 'CodeDocsSearchTool',
      instruction: `Look up the documentation for ${andList(t.concepts)} and show the learner the parts ${t.name} relies on.`,
      after: [st1],
    });
    const st3 = b.step({
      subtask: s2,
      agent: mentor,
      instruction: withLead(leads[0], `Walk through the first part of the approach: ${sentences(demo!)}`),
      after: [st1],
    });
    let prev = [st2, st3];
    rest.forEach((part, i) => {
      const text =
        i === 0
          ? `Have the learner implement ${t.name} in their workspace, following these steps: ${sentences(part)}`
          : `Have the learner implement the next part of ${t.name}: ${sentences(part)}`;
      prev = [
        b.step({ subtask: s3, agent: coach, tool: 'FileWriterTool', instruction: withLead(i === 0 ? leads[1] : undefined, text), after: prev, human: true }),
      ];
    });
    const run = b.step({
      subtask: s4,
      agent: reviewer,
      tool: 'CodeInterpreterTool',
      instruction: `Run the learner's ${t.name} on a small example and ${checkAgainstDocstring(t)}`,
      after: prev,
    });
    b.step({
      subtask: s4,
      agent: reviewer,
      tool: 'FileReadTool',
      instruction: `Review the learner's code against the reference solution's last step: ${period(last)}`,
      after: [run],
    });
    return b.build();
  },

  'single-agent': (t, leads) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Python tutor', `Teach the learner to write ${t.name} from its reference steps`);
    const s1 = b.subtask('s1', 'Starting point', 'What the learner knows already', tutor);
    const s2 = b.subtask('s2', 'Approach', `How ${t.name} works`, tutor);
    const s3 = b.subtask('s3', 'Practice and check', `Implement and test ${t.name}`, tutor);
    const [first, second, third] = chunks(t.steps, 3);
    let prev = b.step({ subtask: s1, agent: tutor, instruction: codingActivation(t), human: true });
    prev = b.step({
      subtask: s2,
      agent: tutor,
      instruction: withLead(leads[0], `Explain what ${t.name} has to do first: ${sentences(first!)}`),
      after: [prev],
    });
    prev = b.step({ subtask: s2, agent: tutor, instruction: `Walk through the middle of the approach: ${sentences(second!)}`, after: [prev] });
    prev = b.step({
      subtask: s3,
      agent: tutor,
      tool: 'FileWriterTool',
      instruction: withLead(leads[1], `Have the learner write the function, finishing with these steps: ${sentences(third!)}`),
      after: [prev],
      human: true,
    });
    prev = b.step({
      subtask: s3,
      agent: tutor,
      tool: 'CodeInterpreterTool',
      instruction: `Test the learner's ${t.name} on a small input and ${checkAgainstDocstring(t)}`,
      after: [prev],
    });
    return b.build();
  },

  compact: (t, leads, rand) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Python tutor', `Explain ${t.name} and coach the learner through it`);
    const checker = b.agent('checker', 'Test runner', `Check the learner's ${t.name}`);
    const s1 = b.subtask('s1', 'Explain and practise', `From what the learner knows to a working ${t.name}`, tutor);
    const s2 = b.subtask('s2', 'Check', 'Run and review the result', checker);
    const split = Math.max(1, Math.min(3, Math.floor(t.steps.length / 3)));
    const shown = t.steps.slice(0, split);
    const rest = t.steps.slice(split);
    let prev = b.step({ subtask: s1, agent: tutor, instruction: codingActivation(t), human: true });
    if (rand() < 0.5) {
      prev = b.step({
        subtask: s1,
        agent: tutor,
        tool: 'CodeDocsSearchTool',
        instruction: withLead(leads[1], `Look up the documentation for ${andList(t.concepts)} and keep the relevant page open for the learner.`),
        after: [prev],
      });
    }
    prev = b.step({
      subtask: s1,
      agent: tutor,
      tool: 'FileWriterTool',
      instruction: withLead(
        leads[0],
        `Explain how the approach begins (${shown.map((x) => lowerFirst(noPeriod(x))).join('; ')}), then have the learner implement the rest of ${t.name}: ${sentences(rest)}`,
      ),
      after: [prev],
      human: true,
    });
    b.step({
      subtask: s2,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Run the learner's ${t.name} on a small input and ${checkAgainstDocstring(t)}`,
      after: [prev],
    });
    return b.build();
  },

  prose: (t, leads) => {
    const b = new PlanBuilder();
    const guide = b.agent('guide', 'Patient Python guide', `Build the learner's understanding of ${t.name} from what they already know`);
    const coach = b.agent('coach', 'Practice coach', `Support the learner while they write ${t.name} themselves`);
    const reviewer = b.agent('reviewer', 'Reviewer', `Test the learner's ${t.name} and review it with them`);
    const s1 = b.subtask('s1', 'Understanding', `The ideas behind ${t.name}`, guide);
    const s2 = b.subtask('s2', 'Writing the code', `The learner writes ${t.name}`, coach);
    const s3 = b.subtask('s3', 'Review', 'Testing and reflection', reviewer);
    const [demo, apply] = chunks(t.steps.slice(0, -1), 2);
    const last = t.steps[t.steps.length - 1]!;
    const flowing = (xs: readonly string[]) =>
      xs.length === 1
        ? lowerFirst(noPeriod(xs[0]!))
        : `${xs
            .slice(0, -1)
            .map((x) => lowerFirst(noPeriod(x)))
            .join('; then ')}; and finally ${lowerFirst(noPeriod(xs[xs.length - 1]!))}`;
    const st1 = b.step({
      subtask: s1,
      agent: guide,
      instruction: `Open the session by asking the learner what they already know about ${andList(t.concepts)}, and listen for whether they have met ${t.name} or code like it before, so that the explanation that follows can start from what is already familiar to them.`,
      expected: `A short note of what the learner already knows about ${andList(t.concepts)} and where the gaps are.`,
      human: true,
    });
    const st2 = b.step({
      subtask: s1,
      agent: guide,
      tool: 'CodeDocsSearchTool',
      instruction: `Look up the documentation for ${andList(t.concepts)} and explain, in plain language and with the learner's answers in mind, how these pieces serve ${t.name}, which ${t.purpose}.`,
      expected: 'The relevant documentation pages, each with a sentence on why it matters here.',
      after: [st1],
    });
    const st3 = b.step({
      subtask: s1,
      agent: guide,
      instruction: withLead(leads[0], `Walk the learner through the opening of the reference approach in order: ${flowing(demo!)}.`),
      expected: 'The learner can restate the opening of the approach in their own words.',
      after: [st1],
    });
    const st4 = b.step({
      subtask: s2,
      agent: coach,
      tool: 'FileWriterTool',
      instruction: withLead(
        leads[1],
        `Invite the learner to implement the rest of ${t.name} themselves, taking the remaining steps one at a time: ${flowing(apply!)}.`,
      ),
      expected: `A complete draft of ${t.name} saved in the learner's workspace.`,
      after: [st2, st3],
      human: true,
    });
    b.step({
      subtask: s3,
      agent: reviewer,
      tool: 'CodeInterpreterTool',
      instruction: `Finally, run the learner's draft on a small, hand-made input and review it together, checking in particular that the code does what the last reference step asks, namely to ${lowerFirst(noPeriod(last))}.`,
      expected: t.returns
        ? `A test run whose output matches the docstring (${noPeriod(t.returns)}), or a short list of fixes.`
        : 'A test run that behaves as the docstring describes, or a short list of fixes.',
      after: [st4],
    });
    return b.build();
  },

  'alt-cues': (t, leads, rand) => {
    const b = new PlanBuilder();
    const guide = b.agent('guide', 'Coding guide', `Work through ${t.name} with the learner`);
    const checker = b.agent('checker', 'Checker', `Run the learner's ${t.name} and close the session`);
    const s1 = b.subtask('s1', 'Recall and example', `What the learner knows, and the first steps of ${t.name}`, guide);
    const s2 = b.subtask('s2', 'Learner attempt', `The learner's own ${t.name}`, guide);
    const s3 = b.subtask('s3', 'Wrap-up', 'Checking the result', checker);
    const [demo, apply] = chunks(t.steps, 2);
    let prev = b.step({
      subtask: s1,
      agent: guide,
      instruction: `Let us recall what you already know about ${andList(t.concepts)}: where have you used them, and what would you expect ${t.name} to do with them?`,
      human: true,
    });
    if (rand() < 0.5) {
      prev = b.step({
        subtask: s1,
        agent: guide,
        tool: 'GithubSearchTool',
        instruction: `Find a project on GitHub that calls ${t.concepts[0]} and read the call site together before writing any code.`,
        after: [prev],
      });
    }
    prev = b.step({
      subtask: s1,
      agent: guide,
      instruction: withLead(leads[0], `Now watch me work through an example of the first steps: ${sentences(demo!)}`),
      after: [prev],
    });
    prev = b.step({
      subtask: s2,
      agent: guide,
      tool: 'FileWriterTool',
      instruction: withLead(leads[1], `Your turn: try writing ${t.name} yourself, carrying on from there: ${sentences(apply!)}`),
      after: [prev],
      human: true,
    });
    b.step({
      subtask: s3,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Wrap up by running your ${t.name} on a small input; ${checkAgainstDocstring(t)}`,
      after: [prev],
    });
    return b.build();
  },
};

// ---------------------------------------------------------------------------------------------------------
// MathDial problems

interface MathRecord {
  qid: number | string;
  question: string;
  ground_truth: string;
  student_profile: string;
  conversation: string;
}

interface TeacherTurn {
  move: string | null;
  text: string;
  /** About the student's earlier attempt: quoted only once the learner has an answer (the final check). */
  refersBack: boolean;
}

/** A turn that answers what a student just said ("Great! …", "Yes, …") reads oddly as a plan's prompt. */
const REPLY =
  /^(?:good|great|well done|correct|excellent|yes|no|nice|perfect|brilliant|fantastic|awesome|exactly|right|ok(?:ay)?|that'?s (?:right|correct|it|still not|not)|that is not|that isn'?t|it isn'?t|not quite|almost|close|hmm+|oops|unfortunately|sorry|very good|brill|wow|incorrect)\b/i;
/** A turn about the student's earlier attempt ("walk me through your answer", "you've added…") needs an attempt to exist. */
const REFERS_BACK =
  /\byour (?:answer|solution|working|work|calculations?|method|steps?|reasoning)\b|\byou(?:'ve| have| said| did| got| wrote| calculated| made| added| multiplied| divided| subtracted| used)\b|\bmistake\b|\bwrong\b|\bnot (?:quite )?(?:right|correct)\b|\bincorrect\b|\bagain\b|\bwhy (?:did|are|do) you\b|\bare you sure\b|\byou (?:say|are correct|are very close|are contradicting|worked out)\b|\bdoesn'?t seem\b/i;

interface MathProblem {
  id: string;
  question: string;
  /** The worked solution, one sentence a line, without the final answer line. */
  solution: string[];
  answer: string;
  /** Calculations of the solution ("$3,650 × 0.1 = $365"), verbatim. */
  calcs: string[];
  /** What the problem exercises, for the activation question ("percentages", "division"). */
  concepts: string[];
  /** The question's first sentence. */
  fact: string;
  /** Real teacher turns of MathDial dialogues on this question, move tag stripped, without the student's name. */
  turns: TeacherTurn[];
}

const CONCEPT_RULES: readonly [RegExp, string][] = [
  [/%|\bpercent/i, 'percentages'],
  [/\binterest\b/i, 'interest'],
  [/\baverage\b/i, 'averages'],
  [/\bratio\b/i, 'ratios'],
  [/\b\d+\/\d+\b|\bhalf\b|\bthird\b|\bquarter\b|\bfraction/i, 'fractions'],
  [/\bper (?:hour|minute|second|day|week)\b|\bmph\b|\bspeed\b/i, 'rates'],
  [/\barea\b|\bperimeter\b/i, 'area and perimeter'],
  [/\btwice\b|\btimes as (?:many|much)\b|\bdouble\b|\btriple\b/i, "comparisons like 'twice as many'"],
];
const OPERATION_RULES: readonly [RegExp, string][] = [
  [/\d\s*[×x*]\s*\$?\d/, 'multiplication'],
  [/\d\s*[/÷]\s*\$?\d/, 'division'],
  [/\d\s*\+\s*\$?\d/, 'addition'],
  [/\d\s*[-−]\s*\$?\d/, 'subtraction'],
];

function mathConcepts(question: string, solution: string): string[] {
  const out = CONCEPT_RULES.filter(([re]) => re.test(question)).map(([, c]) => c);
  for (const [re, c] of OPERATION_RULES) if (re.test(solution)) out.push(c);
  return out.slice(0, 2);
}

/** "… because 40 x .05 = 2" → "40 x .05 = 2": each "=" with the arithmetic either side, when there is some. */
function calculations(line: string): string[] {
  const out: string[] = [];
  const num = String.raw`[$(]*(?:\d[\d.,]*|\.\d+)%?\)*`;
  const re = new RegExp(String.raw`((?:${num}\s*(?:[×x*/÷+\-−]\s*)+)+${num})\s*=\s*(\$?(?:\d[\d.,]*|\.\d+)%?)`, 'g');
  for (const m of line.matchAll(re)) {
    out.push(`${m[1]!.trim()} = ${m[2]!.replace(/[.,]$/, '')}`);
  }
  // Arithmetic with units between the numbers ("160 quarts * $50/quart = $8000") is not matched above: then the
  // clauses of the line that hold an "=" are taken whole.
  if (out.length < (line.match(/=/g) ?? []).length) {
    return line
      .split(/:\s|;\s|,\s(?=\D)|\.\s/)
      .map((c) => noPeriod(c))
      .filter((c) => c.includes('=') && /\d/.test(c));
  }
  return out;
}

function teacherTurns(records: readonly MathRecord[]): TeacherTurn[] {
  const out: TeacherTurn[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const name = /^\s*([A-Z][a-z]+)/.exec(r.student_profile)?.[1];
    for (const turn of parseMathdialConversation(r.conversation)) {
      if (turn.role !== 'tutor') continue;
      const text = squash(turn.text);
      const words = text.split(' ').length;
      if (words < 4 || words > 40 || text.length > 240) continue;
      if (name && new RegExp(`\\b${name}\\b`, 'i').test(text)) continue;
      if (REPLY.test(text)) continue;
      if (seen.has(text)) continue;
      seen.add(text);
      out.push({ move: turn.move, text, refersBack: REFERS_BACK.test(text) });
    }
  }
  return out;
}

function mathProblem(records: readonly MathRecord[]): MathProblem | null {
  const r = records[0]!;
  const lines = r.ground_truth
    .split('\n')
    .map(squash)
    .filter((l) => l.length > 0);
  const answer = lines.pop() ?? '';
  if (lines.length < 2 || !/^[$\d.,-]+$/.test(answer)) return null;
  const question = squash(r.question);
  const fact = question.split(/(?<=[.!?])\s+/)[0] ?? question;
  const calcs = lines.flatMap(calculations);
  // Teacher turns that give the final answer away are not quoted.
  const answerToken = new RegExp(`(?<![\\d.,])\\$?${answer.replace(/[$,]/g, '').replace(/\./g, '\\.')}(?![\\d]|[.,]\\d)`);
  const turns = teacherTurns(records).filter((t) => !answerToken.test(t.text.replace(/(\d),(\d{3})/g, '$1$2')));
  const asks = turns.filter((t) => t.text.includes('?') && !t.refersBack);
  if (asks.length < 2 || calcs.length === 0) return null;
  const concepts = mathConcepts(question, lines.join(' '));
  if (concepts.length === 0) concepts.push('multi-step word problems');
  const qid = Math.min(...records.map((x) => Number(x.qid)));
  return { id: `md-${qid}`, question, solution: lines.map(period), answer, calcs, concepts, fact, turns };
}

/**
 * A teacher turn to quote, never one already used in the plan, nor (unless `afterAttempt`) one about the student's
 * earlier attempt: one of the given moves that asks a question, else one of those moves, else (unless `anyQuestion`
 * is false) any turn that asks a question.
 */
function turnFor(
  p: MathProblem,
  moves: readonly string[],
  about: string,
  used: Set<string>,
  rand: () => number,
  o: { anyQuestion?: boolean; afterAttempt?: boolean } = {},
): string | null {
  const anyQuestion = o.anyQuestion ?? true;
  const free = p.turns.filter((t) => !used.has(t.text) && (o.afterAttempt || !t.refersBack));
  const tiers = [
    free.filter((t) => t.move !== null && moves.includes(t.move) && t.text.includes('?')),
    free.filter((t) => t.move !== null && moves.includes(t.move)),
    anyQuestion ? free.filter((t) => t.text.includes('?')) : [],
  ];
  // Within a tier, the turns that share the most numbers and words with `about` (the part of the solution the step
  // is for), one of them at random.
  const target = wordsOf(about);
  const overlap = (t: TeacherTurn) => [...wordsOf(t.text)].filter((w) => target.has(w)).length;
  for (const tier of tiers) {
    if (tier.length === 0) continue;
    const best = Math.max(...tier.map(overlap));
    const text = pick(
      tier.filter((t) => overlap(t) === best),
      rand,
    ).text;
    used.add(text);
    return text;
  }
  return null;
}

/** Numbers and words of four letters or more, lowercased. */
const wordsOf = (s: string) =>
  new Set(
    s
      .toLowerCase()
      .replace(/(\d),(\d{3})/g, '$1$2')
      .match(/\d+(?:\.\d+)?|[a-z]{4,}/g) ?? [],
  );

/** Topic tags fit a problem with that topic; the others (visual-learner, word-problems, sports…) describe the learner and fit any. */
function mathTagFits(tag: string, p: MathProblem): boolean {
  const work = p.solution.join(' ');
  switch (tag) {
    case 'percentages':
      return /%|percent/i.test(p.question);
    case 'money':
      return /\$|dollar|\bcents?\b/i.test(p.question);
    case 'fractions':
      return p.concepts.includes('fractions') || /\d\/\d/.test(p.question);
    case 'multiplication':
      return /\d\s*[×x*]\s*\$?\d/.test(work);
    case 'division':
      return /\d\s*[/÷]\s*\$?\d/.test(work);
    case 'measurement':
      return /\b(?:cups?|pounds?|ounces?|inch(?:es)?|feet|foot|meters?|kg|grams?|liters?|gallons?|miles?)\b/i.test(p.question);
    default:
      return true;
  }
}

const mathActivation = (p: MathProblem) =>
  `Ask the learner what they already know about ${andList(p.concepts)} in a problem like this one, starting from its first fact: ${quote(p.fact)}`;
const verifyCalcs = (p: MathProblem) => `${p.calcs.join('; ')}.`;
const solutionRest = (p: MathProblem) => sentences(p.solution.slice(1));

const mathBuilders: Record<Style, Builder<MathProblem>> = {
  'multi-agent': (p, leads, rand) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Math tutor', 'Explain the worked solution one step at a time');
    const coach = b.agent('coach', 'Practice coach', 'Guide the learner through the remaining steps');
    const checker = b.agent('checker', 'Answer checker', "Verify the learner's calculations and final answer");
    const s1 = b.subtask('s1', 'Prior knowledge', `What the learner knows about ${andList(p.concepts)}`, tutor);
    const s2 = b.subtask('s2', 'Worked first step', 'The first step of the solution, shown', tutor);
    const s3 = b.subtask('s3', 'Practice', 'The learner solves the remaining steps', coach);
    const s4 = b.subtask('s4', 'Checking', 'Calculations and answer verified', checker);
    const st1 = b.step({ subtask: s1, agent: tutor, instruction: mathActivation(p), human: true });
    const st2 = b.step({
      subtask: s2,
      agent: tutor,
      tool: pick(['YoutubeVideoSearchTool', 'FirecrawlSearchTool'] as const, rand),
      instruction: `Find a short worked example of ${p.concepts[0]} and show the learner how it resembles the first step of this problem.`,
      after: [st1],
    });
    const st3 = b.step({
      subtask: s2,
      agent: tutor,
      instruction: withLead(leads[0], `Walk through the first step of the worked solution: ${p.solution[0]}`),
      after: [st1],
    });
    const practice = chunks(p.solution.slice(1), p.solution.length >= 4 ? 2 : 1);
    let prev = [st2, st3];
    practice.forEach((part, i) => {
      const text =
        i === 0
          ? `Have the learner solve the next step and write it in their notes; the working to expect: ${sentences(part)}`
          : `Have the learner finish the problem on their own; the working to expect: ${sentences(part)}`;
      prev = [
        b.step({ subtask: s3, agent: coach, tool: 'FileWriterTool', instruction: withLead(i === 0 ? leads[1] : undefined, text), after: prev, human: true }),
      ];
    });
    const verify = b.step({
      subtask: s4,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Verify each of the learner's calculations in the code interpreter against the solution: ${verifyCalcs(p)}`,
      after: prev,
    });
    b.step({
      subtask: s4,
      agent: checker,
      instruction: `Check that the learner's final answer is ${p.answer} and have them explain how it answers the question.`,
      after: [verify],
    });
    return b.build();
  },

  'single-agent': (p, leads) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Math tutor', 'Take the learner from what they know to a checked answer');
    const s1 = b.subtask('s1', 'Starting point', `What the learner knows about ${andList(p.concepts)}`, tutor);
    const s2 = b.subtask('s2', 'Solving', 'The worked solution, shown and practised', tutor);
    const s3 = b.subtask('s3', 'Checking', 'Calculations and answer', tutor);
    let prev = b.step({ subtask: s1, agent: tutor, instruction: mathActivation(p), human: true });
    prev = b.step({ subtask: s2, agent: tutor, instruction: withLead(leads[0], `Explain the first step of the solution: ${p.solution[0]}`), after: [prev] });
    prev = b.step({
      subtask: s2,
      agent: tutor,
      tool: 'FileWriterTool',
      instruction: withLead(leads[1], `Have the learner solve the remaining steps themselves; the working to expect: ${solutionRest(p)}`),
      after: [prev],
      human: true,
    });
    prev = b.step({
      subtask: s3,
      agent: tutor,
      tool: 'CodeInterpreterTool',
      instruction: `Verify each calculation with the learner in the code interpreter: ${verifyCalcs(p)}`,
      after: [prev],
    });
    b.step({
      subtask: s3,
      agent: tutor,
      instruction: `Review the final answer, ${p.answer}, with the learner and check that it answers the question asked.`,
      after: [prev],
    });
    return b.build();
  },

  compact: (p, leads, rand) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Math tutor', 'Show the first step and coach the rest');
    const checker = b.agent('checker', 'Answer checker', "Check the learner's answer");
    const s1 = b.subtask('s1', 'Explain and practise', 'From what the learner knows to a full solution', tutor);
    const s2 = b.subtask('s2', 'Check', 'The answer, verified', checker);
    let prev = b.step({ subtask: s1, agent: tutor, instruction: mathActivation(p), human: true });
    if (rand() < 0.5) {
      prev = b.step({
        subtask: s1,
        agent: tutor,
        tool: 'YoutubeVideoSearchTool',
        instruction: withLead(leads[1], `Find a short video on ${p.concepts[0]} to show if the learner is unsure where to start.`),
        after: [prev],
      });
    }
    prev = b.step({
      subtask: s1,
      agent: tutor,
      instruction: withLead(
        leads[0],
        `Walk through the first step of the solution (${noPeriod(p.solution[0]!)}), then have the learner solve the rest themselves; the working to expect: ${solutionRest(p)}`,
      ),
      after: [prev],
      human: true,
    });
    b.step({
      subtask: s2,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Check the learner's answer of ${p.answer} by running the solution's calculations in the code interpreter: ${verifyCalcs(p)}`,
      after: [prev],
    });
    return b.build();
  },

  prose: (p, leads) => {
    const b = new PlanBuilder();
    const guide = b.agent('guide', 'Patient math guide', 'Build understanding from what the learner already knows');
    const coach = b.agent('coach', 'Practice coach', 'Support the learner while they solve the problem themselves');
    const reviewer = b.agent('reviewer', 'Reviewer', 'Check the working and reflect on it with the learner');
    const s1 = b.subtask('s1', 'Understanding', 'The problem and its first step', guide);
    const s2 = b.subtask('s2', 'Solving', 'The learner works out the remaining steps', coach);
    const s3 = b.subtask('s3', 'Review', 'Checking and reflection', reviewer);
    const st1 = b.step({
      subtask: s1,
      agent: guide,
      instruction: `Open the session by asking the learner what they already know about ${andList(p.concepts)}, reading the problem's first fact together, ${quote(p.fact)}, and listening for how they would begin, so that the explanation can start from what is already familiar to them.`,
      expected: `A note of what the learner already knows about ${andList(p.concepts)} and how they would begin.`,
      human: true,
    });
    const st2 = b.step({
      subtask: s1,
      agent: guide,
      instruction: withLead(
        leads[0],
        `Explain the first step of the worked solution slowly and in full sentences, making clear why it has to come first: ${p.solution[0]}`,
      ),
      expected: 'The learner can say in their own words what the first step computes and why.',
      after: [st1],
    });
    const st3 = b.step({
      subtask: s2,
      agent: coach,
      tool: 'FileWriterTool',
      instruction: withLead(
        leads[1],
        `Invite the learner to solve the remaining steps on their own, one at a time, writing each calculation in their notes and saying what it means, with the worked solution as the reference: ${solutionRest(p)}`,
      ),
      expected: "The learner's own working for every remaining step, saved in their notes.",
      after: [st2],
      human: true,
    });
    // The check of the calculations and the final review both follow the learner's working (a fan-out).
    b.step({
      subtask: s3,
      agent: reviewer,
      tool: 'CodeInterpreterTool',
      instruction: `Run each of the learner's calculations in the code interpreter and verify it against the worked solution, pointing out gently where a number went astray: ${verifyCalcs(p)}`,
      expected: 'Each calculation confirmed, or corrected with the learner.',
      after: [st3],
    });
    b.step({
      subtask: s3,
      agent: reviewer,
      instruction: `Finally, review the whole solution with the learner, checking that the final answer, ${p.answer}, answers the question that was asked, and reflect together on which step was the hardest and why.`,
      expected: `The learner states the answer ${p.answer} and names the step they found hardest.`,
      after: [st3],
    });
    return b.build();
  },

  'alt-cues': (p, leads, rand) => {
    const b = new PlanBuilder();
    const guide = b.agent('guide', 'Math guide', 'Work through the problem with the learner');
    const checker = b.agent('checker', 'Checker', "Confirm the learner's answer and close the session");
    const s1 = b.subtask('s1', 'Recall and example', 'What the learner knows, and the first step', guide);
    const s2 = b.subtask('s2', 'Learner attempt', "The learner's own working", guide);
    const s3 = b.subtask('s3', 'Wrap-up', 'Checking the answer', checker);
    let prev = b.step({
      subtask: s1,
      agent: guide,
      instruction: `Let us recall what you already know about ${andList(p.concepts)}: what does the first fact, ${quote(p.fact)}, tell you?`,
      human: true,
    });
    const used = new Set<string>();
    const hint = rand() < 0.5 ? turnFor(p, ['focus'], solutionRest(p), used, rand, { anyQuestion: false }) : null;
    prev = b.step({
      subtask: s1,
      agent: guide,
      instruction: withLead(leads[0], `Now watch me work through the first step as an example: ${p.solution[0]}`),
      after: [prev],
    });
    prev = b.step({
      subtask: s2,
      agent: guide,
      tool: 'FileWriterTool',
      instruction: withLead(
        leads[1],
        `Your turn: try the next steps yourself${hint ? `, and if you get stuck, think about what a tutor once asked: ${quote(hint)}` : ''}. The working to expect: ${solutionRest(p)}`,
      ),
      after: [prev],
      human: true,
    });
    b.step({
      subtask: s3,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Wrap up by checking your answer of ${p.answer} against the solution's calculations in the code interpreter: ${verifyCalcs(p)}`,
      after: [prev],
    });
    return b.build();
  },

  'teacher-voice': (p, leads, rand) => {
    const b = new PlanBuilder();
    const tutor = b.agent('tutor', 'Math tutor', "Tutor the problem in the words of MathDial's teachers");
    const checker = b.agent('checker', 'Answer checker', "Check the learner's working and answer");
    const s1 = b.subtask('s1', 'Opening', `What the learner knows about ${andList(p.concepts)}`, tutor);
    const s2 = b.subtask('s2', 'Guided solving', 'The first step shown, the rest solved by the learner', tutor);
    const s3 = b.subtask('s3', 'Checking', 'Calculations and answer', checker);
    const used = new Set<string>();
    // The problem has two teacher questions or more (mathProblem), so the opening and the prompt always exist.
    const opening = turnFor(p, ['probing', 'generic'], p.question, used, rand);
    const focus = turnFor(p, ['focus'], solutionRest(p), used, rand);
    const telling = turnFor(p, ['telling'], p.solution[0]!, used, rand, { anyQuestion: false });
    const probe = turnFor(p, ['probing'], p.solution[p.solution.length - 1]!, used, rand, { afterAttempt: true });
    let prev = b.step({
      subtask: s1,
      agent: tutor,
      instruction: `Ask the learner what they already know about ${andList(p.concepts)} here, with a question a MathDial tutor asked: ${quote(opening!)}`,
      human: true,
    });
    prev = b.step({
      subtask: s2,
      agent: tutor,
      instruction: withLead(
        leads[0],
        `Explain the first step of the worked solution: ${p.solution[0]}${telling ? ` A tutor put it this way: ${quote(telling)}` : ''}`,
      ),
      after: [prev],
    });
    prev = b.step({
      subtask: s2,
      agent: tutor,
      tool: 'FileWriterTool',
      instruction: withLead(
        leads[1],
        `Have the learner try the next steps, prompting them as the tutor did: ${quote(focus!)} The working to expect: ${solutionRest(p)}`,
      ),
      after: [prev],
      human: true,
    });
    b.step({
      subtask: s3,
      agent: checker,
      tool: 'CodeInterpreterTool',
      instruction: `Check the learner's answer of ${p.answer} against the solution's calculations: ${verifyCalcs(p)}${probe ? ` Then ask the tutor's question: ${quote(probe)}` : ''}`,
      after: [prev],
    });
    return b.build();
  },
};

// ---------------------------------------------------------------------------------------------------------
// Reading the sources and writing the corpus

const readJsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);

/** `<shared>/data/<name>`, or `<shared>/<name>` when given the data folder itself. */
function dataFile(shared: string, name: string): string {
  for (const candidate of [path.join(shared, 'data', name), path.join(shared, name)]) if (existsSync(candidate)) return candidate;
  throw new Error(`${name} not found under ${shared} (pass --shared <dir>, the folder holding data/)`);
}

function buildGroup<T>(
  source: Source,
  id: string,
  query: string,
  reference: string[],
  material: T,
  builders: Partial<Record<Style, Builder<T>>>,
  styles: Style[],
  profile: LearnerProfile,
  relevant: (tag: string) => boolean,
): CorpusGroup {
  const plans = styles.map((style) => {
    const rand = rngFor(`${id}/${style}`);
    const voice: Voice = style === 'alt-cues' ? 'you' : 'they';
    return { style, plan: builders[style]!(material, leadsFor(profile, voice, relevant, rand), rand) };
  });
  return { id, source, split: splitOf(query), query, profile, reference, plans };
}

function codingGroups(shared: string): CorpusGroup[] {
  const records = readJsonl<CodingRecord>(dataFile(shared, 'coding-tutor/prompt_elements_final.jsonl'));
  const rand = rngFor('coding-tutor');
  const styles = styleDealer(CODING_STYLES, rand);
  const profiles = profileDealer(CODING_PROFILES, rand);
  return records.map((r) => {
    const t = codingTask(r);
    return buildGroup('coding-tutor', t.id, t.query, t.steps.map(period), t, codingBuilders, styles(), profiles(), () => true);
  });
}

function mathGroups(shared: string): CorpusGroup[] {
  const records = readJsonl<MathRecord>(dataFile(shared, 'mathdial/dialogues.jsonl'));
  const byQuestion = new Map<string, MathRecord[]>();
  for (const r of records) {
    const key = squash(r.question);
    byQuestion.set(key, [...(byQuestion.get(key) ?? []), r]);
  }
  // Questions in the order of sha256(seed, question); the first MATH_QUESTIONS that have a worked solution of two
  // steps or more, a calculation to check and two teacher questions to quote.
  const ordered = [...byQuestion.keys()].sort((a, b) => (sha256(`${SEED}:${a}`) < sha256(`${SEED}:${b}`) ? -1 : 1));
  const rand = rngFor('mathdial');
  const styles = styleDealer(MATH_STYLES, rand);
  const profiles = profileDealer(MATH_PROFILES, rand);
  const groups: CorpusGroup[] = [];
  for (const key of ordered) {
    if (groups.length === MATH_QUESTIONS) break;
    const p = mathProblem(byQuestion.get(key)!);
    if (!p) continue;
    const query = rngFor(`${p.id}/query`)() < 0.5 ? `Can you help me solve this? ${p.question}` : p.question;
    groups.push(buildGroup('mathdial', p.id, query, p.solution, p, mathBuilders, styles(), profiles(), (tag) => mathTagFits(tag, p)));
  }
  return groups;
}

const SOURCES = {
  'coding-tutor': {
    dataset: 'Coding-Tutor prompt elements: the 100 repository-level Python tasks of Traver (iwangjian/Coding-Tutor)',
    citation:
      'Wang et al. 2025, Training Turn-by-Turn Verifiers for Dialogue Tutoring Agents: The Curious Case of LLMs as Your Coding Tutors (arXiv 2502.13311)',
    url: 'https://github.com/iwangjian/Coding-Tutor',
    file: 'shared/data/coding-tutor/prompt_elements_final.jsonl',
    licence: 'Apache-2.0',
    used: 'function_name, class_name, namespace, input_code (signature, docstring), reference_steps, reference_code (to rank identifiers)',
    changes:
      "Reference steps split into sentences and quoted in plan steps (some with the first letter lowercased inside a longer sentence); queries built from the function name and the docstring's first sentence; framing, profiles and agent roles written by this project's team.",
  },
  mathdial: {
    dataset: 'MathDial test split (eth-nlped/mathdial), as shipped in shared/data/mathdial/dialogues.jsonl',
    citation:
      'Macina et al. 2023, MathDial: A Dialogue Tutoring Dataset with Rich Pedagogical Properties Grounded in Math Reasoning Problems (Findings of EMNLP 2023); problems from GSM8K (Cobbe et al. 2021, MIT)',
    url: 'https://github.com/eth-nlped/mathdial',
    file: 'shared/data/mathdial/dialogues.jsonl',
    licence: 'CC BY-SA 4.0',
    used: 'question, ground_truth (worked solution and answer), conversation (teacher turns, move tag stripped)',
    changes:
      "Problems deduplicated by question; solution lines and teacher turns quoted in plan steps; teacher turns that name the dialogue's student left out; framing, profiles and agent roles written by this project's team. The mathdial groups of this file are adapted material and stay under CC BY-SA 4.0.",
  },
  framing: "Connective framing, learner profiles and agent roles: written by this project's team.",
};

/** Two-space JSON, with each agent, subtask and step on one line so the file stays small and diffs stay readable. */
function render(value: unknown, indent = '', key = ''): string {
  const inline = ['agents', 'subtasks', 'steps', 'execution_order', 'tags', 'skills'].includes(key);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (key === 'execution_order' || key === 'tags' || key === 'skills') return JSON.stringify(value);
    const inner = `${indent}  `;
    const items = value.map((v) => (inline ? JSON.stringify(v) : render(v, inner)));
    return `[\n${items.map((x) => `${inner}${x}`).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${render(v, inner, k)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      shared: { type: 'string', default: path.resolve(REPO, '../shared') },
      out: { type: 'string', default: path.join(REPO, 'test/fixtures/plans/honest-corpus.json') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('usage: npx tsx scripts/corpus/make-honest-plans.ts [--shared <dir holding data/>] [--out <file>]');
    return;
  }
  const groups = [...codingGroups(values.shared), ...mathGroups(values.shared)];
  const queries = new Set(groups.map((g) => g.query));
  if (queries.size !== groups.length) throw new Error('two groups share a query');
  const counts = (source: Source) => groups.filter((g) => g.source === source).length;
  const corpus = {
    version: 1,
    sources: {
      ...SOURCES,
      'coding-tutor': { ...SOURCES['coding-tutor'], groups: counts('coding-tutor') },
      mathdial: { ...SOURCES.mathdial, groups: counts('mathdial') },
    },
    groups,
  };
  const text = `${render(corpus)}\n`;
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(values.out, text);
  const plans = groups.reduce((n, g) => n + g.plans.length, 0);
  console.error(
    `${groups.length} groups, ${plans} plans → ${path.relative(process.cwd(), values.out)} (${(Buffer.byteLength(text) / 1024 / 1024).toFixed(2)} MB)`,
  );
}

main();
