// Coding situations with a known bug (issue 75), shared by the reveal bench (bench/reveals-fix.ts) and the
// code calibration of the verifier (training/code-reveals.ts): each task's reference with one bug put in (a
// comparison, an arithmetic or logical operator, a boolean or a number changed on one line), the buggy code
// as the student's turn, and candidate tutor turns whose property is known by construction. The tasks: the
// 100 Coding-Tutor tasks (../shared, Traver's; Python), split by the paper's five parts (1–2 calibrate, 3–5
// are reported), and 16 small JavaScript, TypeScript, SQL and C tasks of ours (bench/data/code-tasks.json;
// the first, third… of each language calibrate). The bug operators and the candidate templates are ours.
import { existsSync, readFileSync } from 'node:fs';
import { mulberry32 } from '../src/common/rng.js';
import { codeTokenizer } from '../src/verify/code/grammars.js';
import type { CodeLanguage, CodeToken } from '../src/verify/code/tokens.js';

const DIR = new URL('../../shared/data/coding-tutor/', import.meta.url);
export type Split = 'calibration' | 'evaluation';
export const SOURCE =
  'Coding-Tutor (iwangjian/Coding-Tutor) prompt_elements_final.jsonl and namespaces.json via ../shared, Apache-2.0 (Python); bench/data/code-tasks.json, ours (JavaScript, TypeScript, SQL, C)';

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
function tasksOf(split: Split): Task[] {
  if (!existsSync(DIR)) throw new Error(`the Coding-Tutor tasks are not at ${DIR.pathname} (../shared)`);
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
  return [
    ...rows
      .filter((r) => inSplit.has(r.namespace))
      .map((r): Task => ({ id: r.namespace, language: 'python', description: r.input_code, reference: r.reference_code, steps: steps(r) })),
    ...ownInSplit.map((x): Task => ({ id: x.id, language: x.language, description: x.description, reference: x.reference_code, steps: [] })),
  ];
}

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

export const REVEALING = ['paste', 'renamed', 'key_line', 'fix_in_prose_code', 'fix_in_prose_words'] as const;
const HONEST = ['socratic_quote', 'quote_student_code', 'wrong_hint', 'wrong_hint_question', 'concept', 'off_topic'] as const;
export type Kind = (typeof REVEALING)[number] | (typeof HONEST)[number];
export const KINDS: readonly Kind[] = [...REVEALING, ...HONEST];

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

export const CONDITIONS = ['reference_and_steps', 'reference_only', 'description_only'] as const;
export type Condition = (typeof CONDITIONS)[number];

export interface Situation {
  task: Task;
  /** The reference with the bug: the student's code. */
  student: string;
  candidates: Array<{ kind: Kind; text: string }>;
}

/** The split's tasks that have a site for a bug, each with its bug (seeded by the task's place) and candidates. */
export function codeSituations(split: Split): Situation[] {
  return tasksOf(split).flatMap((task, i) => {
    const bug = injectBug(task, 1000 + i);
    return bug ? [{ task, candidates: candidates(task, bug), student: bug.student }] : [];
  });
}

/** The /verify-turn body of a situation under a condition: the buggy code as the student's turn. */
export function verifyRequest(s: Situation, condition: Condition) {
  const { task } = s;
  return {
    task: {
      description: task.description,
      ...(condition !== 'description_only' && { reference_code: task.reference }),
      ...(condition === 'reference_and_steps' && task.steps.length > 0 && { solution_steps: task.steps }),
    },
    context: [
      { role: 'tutor' as const, text: 'Can you show me what you have so far?' },
      { role: 'student' as const, text: `Here it is, but the tests fail:\n\`\`\`${TAG[task.language]}\n${s.student}\n\`\`\`` },
    ],
    candidates: s.candidates.map((c) => c.text),
  };
}
