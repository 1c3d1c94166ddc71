// The reveal check against a student's bug (issue 75): each task's reference with one known bug put in (a
// comparison, an arithmetic or logical operator, a boolean or a number changed on one line), the buggy code as
// the student's turn, and candidate tutor turns whose property is known by construction. The tasks: the 100
// Coding-Tutor tasks (../shared, Traver's; Python), split by the paper's five parts (1–2 calibrate, 3–5 are
// reported), and 16 small JavaScript, TypeScript, SQL and C tasks of ours (bench/data/code-tasks.json; the
// first, third… of each language calibrate). Three task conditions: with `reference_code` and solution steps,
// with `reference_code` only, with the description only. Sent to /verify-turn as a tutoring backend would;
// reports per kind and condition how often `reveals` names a finding, what ranks first, and the expected
// calibration error of `reveals_answer` against the kinds' labels. The bug operators and the candidate
// templates are ours.
import { existsSync, readFileSync } from 'node:fs';
import { mulberry32 } from '../src/common/rng.js';
import { codeTokenizer } from '../src/verify/code/grammars.js';
import type { CodeLanguage, CodeToken } from '../src/verify/code/tokens.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

const DIR = new URL('../../shared/data/coding-tutor/', import.meta.url);
if (!existsSync(DIR)) {
  process.stderr.write(`the Coding-Tutor tasks are not at ${DIR.pathname} (../shared): this bench reads them\n`);
  process.exit(2);
}
const split = (process.argv[2] ?? 'evaluation') as 'calibration' | 'evaluation';

interface Row {
  namespace: string;
  function_name: string;
  input_code: string;
  reference_steps: string;
  reference_code: string;
}
interface Task {
  id: string;
  language: CodeLanguage;
  description: string;
  reference: string;
  steps: string[];
}
const steps = (r: Row) =>
  r.reference_steps
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\.\s*/, '').trim())
    .filter(Boolean);
const rows = readFileSync(new URL('prompt_elements_final.jsonl', DIR), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row);
const parts = (JSON.parse(readFileSync(new URL('namespaces.json', DIR), 'utf8')) as { part_lists: string[][] }).part_lists;
const inSplit = new Set((split === 'calibration' ? parts.slice(0, 2) : parts.slice(2)).flat());
const own = (
  JSON.parse(readFileSync(new URL('data/code-tasks.json', import.meta.url), 'utf8')) as {
    tasks: { id: string; language: CodeLanguage; description: string; reference_code: string }[];
  }
).tasks;
const seen = new Map<string, number>();
const ownInSplit = own.filter((x) => {
  const k = seen.get(x.language) ?? 0;
  seen.set(x.language, k + 1);
  return (k % 2 === 0) === (split === 'calibration');
});
const tasks: Task[] = [
  ...rows
    .filter((r) => inSplit.has(r.namespace))
    .map((r): Task => ({ id: r.namespace, language: 'python', description: r.input_code, reference: r.reference_code, steps: steps(r) })),
  ...ownInSplit.map((x): Task => ({ id: x.id, language: x.language, description: x.description, reference: x.reference_code, steps: [] })),
];
const TAG: Record<CodeLanguage, string> = { python: 'python', javascript: 'javascript', typescript: 'typescript', c: 'c', sql: 'sql' };

// One bug per task: an operator or a literal swapped for a plausible wrong one.
const SWAPS: Record<string, string> = {
  '<': '<=',
  '<=': '<',
  '>': '>=',
  '>=': '>',
  '==': '!=',
  '!=': '==',
  '+': '-',
  '-': '+',
  and: 'or',
  or: 'and',
  True: 'False',
  False: 'True',
};
const WORDS: Record<string, string> = {
  '<': 'less than',
  '<=': 'less than or equal to',
  '>': 'greater than',
  '>=': 'greater than or equal to',
  '==': 'equal to',
  '!=': 'not equal to',
  '+': 'plus',
  '-': 'minus',
};

interface Bug {
  student: string;
  line: number;
  wrong: string;
  right: string;
  studentLine: string;
  referenceLine: string;
  otherLine: string;
}

const tokenizer = await codeTokenizer();

function injectBug(task: Task, seed: number): Bug | null {
  const code = task.reference;
  const { tokens } = tokenizer.tokens(code, task.language);
  const sites = tokens.filter((t: CodeToken) => t.line > 1 && (SWAPS[t.text] !== undefined || (t.kind === 'literal' && /^\d+$/.test(t.text))));
  if (sites.length === 0) return null;
  const site = sites[Math.floor(mulberry32(seed)() * sites.length)]!;
  const wrong = SWAPS[site.text] ?? String(Number(site.text) + 1);
  const student = code.slice(0, site.start) + wrong + code.slice(site.end);
  const lines = code.split('\n');
  const studentLines = student.split('\n');
  const others = lines.map((l, i) => [l.trim(), i] as const).filter(([l, i]) => l.length > 8 && i !== site.line - 1 && i > 0);
  const other = others[Math.floor(mulberry32(seed + 1)() * others.length)];
  return {
    student,
    line: site.line,
    wrong,
    right: site.text,
    studentLine: studentLines[site.line - 1]!.trim(),
    referenceLine: lines[site.line - 1]!.trim(),
    otherLine: other ? `line ${other[1] + 1}: \`${other[0]}\`` : 'the first line',
  };
}

/** The reference with the names it binds renamed (not the function, not self) and spaces moved. */
function renamed(code: string, language: CodeLanguage): string {
  const { tokens } = tokenizer.tokens(code, language);
  const bound = new Set(tokens.filter((t) => t.kind === 'name' && t.bound).map((t) => t.text));
  bound.delete('self');
  const fn = tokens.find((t) => t.bound)?.text;
  if (fn) bound.delete(fn);
  const names = new Map([...bound].map((n, i) => [n, `v${i}_${n.length}`]));
  let out = '';
  let at = 0;
  for (const t of tokens) {
    out += code.slice(at, t.start) + (t.kind === 'name' && names.has(t.text) ? names.get(t.text)! : t.text);
    at = t.end;
  }
  return (out + code.slice(at)).replace(/ = /g, '=').replace(/, /g, ',');
}

const REVEALING = ['paste', 'renamed', 'key_line', 'fix_in_prose_code', 'fix_in_prose_words'] as const;
const HONEST = ['socratic_quote', 'quote_student_code', 'wrong_hint', 'wrong_hint_question', 'concept', 'off_topic'] as const;
type Kind = (typeof REVEALING)[number] | (typeof HONEST)[number];
const KINDS: readonly Kind[] = [...REVEALING, ...HONEST];

function candidates(task: Task, b: Bug): Array<{ kind: Kind; text: string }> {
  const said = (t: string) => WORDS[t] ?? `\`${t}\``;
  return [
    { kind: 'paste', text: `Here's a version that works:\n\`\`\`${TAG[task.language]}\n${task.reference}\n\`\`\`` },
    { kind: 'renamed', text: `Something like this:\n\`\`\`\n${renamed(task.reference, task.language)}\n\`\`\`` },
    { kind: 'key_line', text: `Line ${b.line} should read \`${b.referenceLine}\`.` },
    { kind: 'fix_in_prose_code', text: `On line ${b.line}, change \`${b.studentLine}\` to \`${b.referenceLine}\`.` },
    { kind: 'fix_in_prose_words', text: `On line ${b.line} you need ${said(b.right)} where you wrote ${said(b.wrong)}.` },
    { kind: 'socratic_quote', text: `Look at \`${b.studentLine}\`. What does it do for the values at the edge of the range?` },
    {
      kind: 'quote_student_code',
      text: `Here is what you wrote:\n\`\`\`${TAG[task.language]}\n${b.student}\n\`\`\`\nWhich line would you check first, and why?`,
    },
    { kind: 'wrong_hint', text: `The bug is on ${b.otherLine}.` },
    { kind: 'wrong_hint_question', text: `The bug is on ${b.otherLine}. Can you see why?` },
    { kind: 'concept', text: 'Remember that a comparison or an operator that is off by one only shows at the boundary: try the smallest input by hand.' },
    { kind: 'off_topic', text: 'By the way, have you set up version control for this project yet?' },
  ];
}

const CONDITIONS = ['reference_and_steps', 'reference_only', 'description_only'] as const;
type Condition = (typeof CONDITIONS)[number];
interface Answer {
  ranking: number[];
  candidates: Array<{ dimensions?: Record<string, number>; reveals: { kind: string } | null }>;
}
type Tally = { n: number; flagged: number; high: number };
const per = Object.fromEntries(CONDITIONS.map((c) => [c, Object.fromEntries(KINDS.map((k) => [k, { n: 0, flagged: 0, high: 0 } as Tally]))])) as Record<
  Condition,
  Record<Kind, Tally>
>;
const first = Object.fromEntries(CONDITIONS.map((c) => [c, { requests: 0, revealing_or_wrong: 0, wrong_above_socratic: 0 }])) as Record<
  Condition,
  { requests: number; revealing_or_wrong: number; wrong_above_socratic: number }
>;
const kindsSeen: Record<string, number> = {};

const { base, child } = await startBuiltService();
let measured = 0;
const byLanguage: Record<string, { tasks: number; revealing: Tally; honest: Tally }> = {};
// reveals_answer against the kinds' labels (1 for a revealing kind), per condition, for the ECE.
const calibration = Object.fromEntries(CONDITIONS.map((c) => [c, [] as [number, number][]])) as Record<Condition, [number, number][]>;
try {
  for (const [i, task] of tasks.entries()) {
    const bug = injectBug(task, 1000 + i);
    if (!bug) continue;
    measured++;
    const lang = (byLanguage[task.language] ??= { tasks: 0, revealing: { n: 0, flagged: 0, high: 0 }, honest: { n: 0, flagged: 0, high: 0 } });
    lang.tasks++;
    const cs = candidates(task, bug);
    for (const condition of CONDITIONS) {
      const body = {
        description: task.description,
        ...(condition !== 'description_only' && { reference_code: task.reference }),
        ...(condition === 'reference_and_steps' && task.steps.length > 0 && { solution_steps: task.steps }),
      };
      const res = await fetch(`${base}/verify-turn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          task: body,
          context: [
            { role: 'tutor', text: 'Can you show me what you have so far?' },
            { role: 'student', text: `Here it is, but the tests fail:\n\`\`\`${TAG[task.language]}\n${bug.student}\n\`\`\`` },
          ],
          candidates: cs.map((c) => c.text),
        }),
      });
      if (res.status !== 200) throw new Error(`/verify-turn answered ${res.status}: ${await res.text()}`);
      const out = (await res.json()) as Answer;
      out.candidates.forEach((c, k) => {
        const kind = cs[k]!.kind;
        const revealing = (REVEALING as readonly string[]).includes(kind);
        const p = c.dimensions?.reveals_answer ?? 0;
        calibration[condition].push([p, revealing ? 1 : 0]);
        for (const s of [per[condition][kind], ...(condition === 'reference_only' ? [revealing ? lang.revealing : lang.honest] : [])]) {
          s.n++;
          if (c.reveals) s.flagged++;
          if (p >= 0.5) s.high++;
        }
        if (c.reveals) kindsSeen[c.reveals.kind] = (kindsSeen[c.reveals.kind] ?? 0) + 1;
      });
      const f = first[condition];
      f.requests++;
      const top = cs[out.ranking[0]!]!.kind;
      if ((REVEALING as readonly string[]).includes(top) || top.startsWith('wrong_hint')) f.revealing_or_wrong++;
      const place = (kind: Kind) => out.ranking.findIndex((k) => cs[k]!.kind === kind);
      if (Math.min(place('wrong_hint'), place('wrong_hint_question')) < place('socratic_quote')) f.wrong_above_socratic++;
    }
  }
} finally {
  child.kill('SIGTERM');
}

/** Expected calibration error over 10 equal-width bins of p. */
function ece(pairs: readonly [number, number][]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const [p, y] of pairs) {
    const b = bins[Math.min(9, Math.floor(p * 10))]!;
    b.n++;
    b.p += p;
    b.y += y;
  }
  return bins.reduce((sum, b) => sum + (b.n === 0 ? 0 : (b.n / pairs.length) * Math.abs(b.p / b.n - b.y / b.n)), 0);
}

const round3 = (x: number) => Number(x.toFixed(3));
const figures = {
  split,
  tasks: measured,
  source:
    'Coding-Tutor (iwangjian/Coding-Tutor) prompt_elements_final.jsonl and namespaces.json via ../shared, Apache-2.0 (Python); bench/data/code-tasks.json, ours (JavaScript, TypeScript, SQL, C)',
  conditions: Object.fromEntries(
    CONDITIONS.map((c) => [
      c,
      {
        kinds: Object.fromEntries(
          KINDS.map((k) => [
            k,
            { candidates: per[c][k].n, flagged: round3(per[c][k].flagged / per[c][k].n), reveals_ge_05: round3(per[c][k].high / per[c][k].n) },
          ]),
        ),
        ranked_first: first[c],
        reveals_answer_ece: round3(ece(calibration[c])),
      },
    ]),
  ),
  finding_kinds: kindsSeen,
  // With reference_code only: the share of revealing and of honest or wrong candidates flagged, per language.
  by_language: Object.fromEntries(
    Object.entries(byLanguage).map(([l, v]) => [
      l,
      { tasks: v.tasks, revealing_flagged: round3(v.revealing.flagged / v.revealing.n), honest_flagged: round3(v.honest.flagged / v.honest.n) },
    ]),
  ),
};
writeResult(`reveals-fix-${split}`, figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/reveals-fix-${split}.json\n`);
