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
import { MIRRORED } from '../src/verify/code/fix.js';
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

// Equivalent rewrites (the `equivalent` kind): a comparison read from its other side, an augmented
// assignment spelled out, Python's range from an explicit 0. Each applies only where its operands are
// single tokens or whole statements, so the program means the same.
const OPEN_BEFORE = new Set([
  '(',
  '[',
  '{',
  ',',
  ':',
  '=',
  'if',
  'elif',
  'while',
  'return',
  'and',
  'or',
  'not',
  '&&',
  '||',
  '?',
  '!',
  'WHERE',
  'where',
  'AND',
  'OR',
  'ON',
  'on',
]);
const CLOSE_AFTER = new Set([')', ']', '}', ',', ':', ';', 'and', 'or', '&&', '||', '?', 'then', 'AND', 'OR', 'THEN', 'ORDER', 'GROUP']);
const AUGMENTED = new Set(['+=', '-=', '*=', '/=', '//=', '%=']);

/** The reference rewritten as an equivalent program (names and spacing as they were); null when no rewrite applies. */
export function equivalent(code: string, language: CodeLanguage): string | null {
  const { tokens: t } = tokenizer.tokens(code, language);
  const edits: Array<{ from: number; to: number; text: string }> = [];
  const text = (from: number, to: number) => code.slice(t[from]!.start, t[to]!.end);
  const operand = (k: number) => t[k] !== undefined && (t[k]!.kind === 'name' || t[k]!.kind === 'literal');
  const lastOnLine = (k: number) => t[k + 1] === undefined || t[k + 1]!.line !== t[k]!.line;
  const firstOnLine = (k: number) => k === 0 || t[k - 1]!.line !== t[k]!.line;
  for (let k = 1; k + 1 < t.length; k++) {
    const op = t[k]!.text;
    if (edits.length > 0 && edits.at(-1)!.to >= t[k - 1]!.start) continue;
    const oneLine = t[k - 1]!.line === t[k]!.line && t[k + 1]!.line === t[k]!.line && !text(k - 1, k + 1).includes('\n');
    if (MIRRORED[op] && t[k]!.kind === 'other' && operand(k - 1) && operand(k + 1) && oneLine) {
      const before = k - 2 < 0 || firstOnLine(k - 1) || OPEN_BEFORE.has(t[k - 2]!.text);
      const after = lastOnLine(k + 1) || CLOSE_AFTER.has(t[k + 2]!.text);
      if (before && after) edits.push({ from: t[k - 1]!.start, to: t[k + 1]!.end, text: `${t[k + 1]!.text} ${MIRRORED[op]} ${t[k - 1]!.text}` });
      continue;
    }
    if (AUGMENTED.has(op) && t[k - 1]!.kind === 'name' && firstOnLine(k - 1)) {
      // The statement's right side: to the end of the line (Python) or its semicolon on the same line.
      let end = k + 1;
      while (t[end + 1] !== undefined && t[end + 1]!.line === t[k]!.line && t[end + 1]!.text !== ';') end++;
      const target = t[k - 1]!.text;
      edits.push({ from: t[k - 1]!.start, to: t[end]!.end, text: `${target} = ${target} ${op.slice(0, -1)} (${text(k + 1, end)})` });
      continue;
    }
    if (language === 'python' && op === 'range' && t[k + 1]?.text === '(') {
      let depth = 0;
      let close = -1;
      let commas = 0;
      for (let j = k + 1; j < t.length; j++) {
        const x = t[j]!.text;
        if (x === '(' || x === '[' || x === '{') depth++;
        else if (x === ')' || x === ']' || x === '}') depth--;
        else if (x === ',' && depth === 1) commas++;
        if (depth === 0) {
          close = j;
          break;
        }
      }
      if (close > k + 2 && commas === 0) edits.push({ from: t[k + 2]!.start, to: t[k + 2]!.start, text: '0, ' });
    }
  }
  if (edits.length === 0) return null;
  let out = code;
  for (const e of edits.reverse()) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}

export const REVEALING = ['paste', 'renamed', 'equivalent', 'key_line', 'equivalent_key_line', 'fix_in_prose_code', 'fix_in_prose_words'] as const;
const HONEST = ['socratic_quote', 'quote_student_code', 'wrong_hint', 'wrong_hint_question', 'concept', 'off_topic'] as const;
export type Kind = (typeof REVEALING)[number] | (typeof HONEST)[number];
export const KINDS: readonly Kind[] = [...REVEALING, ...HONEST];

function candidates(task: Task, b: Bug): Array<{ kind: Kind; text: string }> {
  const said = (t: string) => WORDS[t] ?? `\`${t}\``;
  const rewritten = equivalent(task.reference, task.language);
  const rewrittenLine = rewritten?.split('\n')[b.line - 1]?.trim();
  return [
    { kind: 'paste', text: `Here's a version that works:\n\`\`\`${TAG[task.language]}\n${task.reference}\n\`\`\`` },
    { kind: 'renamed', text: `Something like this:\n\`\`\`\n${renamed(task.reference, task.language)}\n\`\`\`` },
    // Only where a rewrite applies: otherwise it would be the paste again.
    ...(rewritten === null ? [] : [{ kind: 'equivalent' as const, text: `This one passes the tests:\n\`\`\`${TAG[task.language]}\n${rewritten}\n\`\`\`` }]),
    { kind: 'key_line', text: `Line ${b.line} should read \`${b.referenceLine}\`.` },
    // Only where a rewrite changes the fixed line itself.
    ...(rewrittenLine === undefined || rewrittenLine === b.referenceLine
      ? []
      : [{ kind: 'equivalent_key_line' as const, text: `Line ${b.line} should read \`${rewrittenLine}\`.` }]),
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
