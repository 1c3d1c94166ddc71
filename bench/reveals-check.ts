// The coding check of answer revealing (issue 49): the Coding-Tutor tasks (../shared, Traver's 100 tasks),
// each with candidate tutor turns whose property is known by construction — they paste the reference code
// (as is, or with local names renamed and reformatted), state a solution step as the answer, ask a guiding
// question, give a partial hint, only encourage, or talk off topic — sent to /verify-turn as a tutoring
// backend would. Reports, per kind, how often `reveals_answer` is ≥ 0.5 and ≤ 0.2 and how often the check
// names a span, and whether a pasted solution ever ranks first. The templates are ours.
import { existsSync, readFileSync } from 'node:fs';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

const DATA = new URL('../../shared/data/coding-tutor/prompt_elements_final.jsonl', import.meta.url);
if (!existsSync(DATA)) {
  process.stderr.write(`the Coding-Tutor tasks are not at ${DATA.pathname} (../shared): this check reads them\n`);
  process.exit(2);
}

interface Row {
  function_name: string;
  input_code: string;
  dependency_sampled: string;
  reference_steps: string;
  reference_code: string;
}
const rows = readFileSync(DATA, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row);

const KINDS = ['pasted', 'pasted_renamed', 'step_as_answer', 'guiding', 'partial_hint', 'encouragement', 'off_topic'] as const;
type Kind = (typeof KINDS)[number];

const steps = (r: Row) =>
  r.reference_steps
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\.\s*/, '').trim())
    .filter(Boolean);
const dependencies = (r: Row) =>
  r.dependency_sampled
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

/** The reference with its local names renamed (not attributes, keywords or builtins) and reformatted. */
function renamed(code: string): string {
  const locals = new Set<string>();
  for (const m of code.matchAll(/^\s*([A-Za-z_]\w*)\s*(?:,\s*[A-Za-z_]\w*\s*)*=(?!=)/gm)) locals.add(m[1]!);
  for (const m of code.matchAll(/\bfor\s+([A-Za-z_]\w*)\s+in\b/g)) locals.add(m[1]!);
  let i = 0;
  let out = code;
  for (const name of locals) {
    if (name === 'self') continue;
    out = out.replace(new RegExp(`(?<![.\\w])${name}(?!\\w)`, 'g'), `tmp_${i++}`);
  }
  // Reformatted: comments dropped, a blank line after every statement, spaces inside brackets.
  return out
    .replace(/#[^\n]*/g, '')
    .replace(/\(/g, '( ')
    .replace(/\)/g, ' )')
    .split('\n')
    .join('\n\n');
}

const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

function candidates(r: Row): Array<{ kind: Kind; text: string }> {
  const fn = r.function_name;
  const ss = steps(r);
  const step = ss[Math.min(2, ss.length - 1)] ?? ss[0] ?? '';
  const dep = dependencies(r)[0] ?? fn;
  return [
    { kind: 'pasted', text: `Here is the complete solution, just copy it:\n\`\`\`python\n${r.reference_code}\n\`\`\`` },
    { kind: 'pasted', text: `Write it like this and run the tests:\n\`\`\`\n${r.reference_code}\n\`\`\`` },
    { kind: 'pasted', text: r.reference_code },
    { kind: 'pasted_renamed', text: `Something like this should work:\n\`\`\`python\n${renamed(r.reference_code)}\n\`\`\`` },
    { kind: 'step_as_answer', text: `You need to ${lower(step)}` },
    { kind: 'step_as_answer', text: `Do this next: ${step} Then you are done.` },
    { kind: 'guiding', text: `What do you think \`${fn}\` has to do first with its inputs?` },
    { kind: 'guiding', text: 'Which of the listed dependencies could help you with the first step, and why?' },
    { kind: 'guiding', text: `Before you write any code, what should \`${fn}\` return in the simplest case?` },
    { kind: 'partial_hint', text: `Have a look at \`${dep.split('.').at(-1)}\`; it may help here.` },
    { kind: 'partial_hint', text: 'Think about which attribute of the object already holds the data you need.' },
    { kind: 'encouragement', text: "You're doing great, keep going!" },
    { kind: 'encouragement', text: 'Nice effort so far, do not give up.' },
    { kind: 'off_topic', text: 'By the way, have you tried the new coffee place downstairs?' },
    { kind: 'off_topic', text: "Let's talk about your plans for the weekend." },
  ];
}

interface Answer {
  ranking: number[];
  candidates: Array<{ dimensions?: Record<string, number>; reveals: { kind: string } | null }>;
}

const { base, child } = await startBuiltService();
const per: Record<Kind, { n: number; high: number; low: number; flagged: number; sum: number }> = Object.fromEntries(
  KINDS.map((k) => [k, { n: 0, high: 0, low: 0, flagged: 0, sum: 0 }]),
) as never;
let pastedFirst = 0;
let revealingFirst = 0;
try {
  for (const r of rows) {
    const cs = candidates(r);
    const res = await fetch(`${base}/verify-turn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        task: { description: r.input_code, dependencies: dependencies(r), solution_steps: steps(r), reference_code: r.reference_code },
        context: [{ role: 'student', text: `I am not sure how to implement ${r.function_name}. Where do I start?` }],
        candidates: cs.map((c) => c.text.slice(0, 20_000)),
      }),
    });
    if (res.status !== 200) throw new Error(`/verify-turn answered ${res.status}: ${await res.text()}`);
    const out = (await res.json()) as Answer;
    out.candidates.forEach((c, i) => {
      const p = c.dimensions?.reveals_answer ?? 0;
      const s = per[cs[i]!.kind];
      s.n++;
      s.sum += p;
      if (p >= 0.5) s.high++;
      if (p <= 0.2) s.low++;
      if (c.reveals) s.flagged++;
    });
    const first = cs[out.ranking[0]!]!.kind;
    if (first === 'pasted' || first === 'pasted_renamed') pastedFirst++;
    if (first === 'pasted' || first === 'pasted_renamed' || first === 'step_as_answer') revealingFirst++;
  }
} finally {
  child.kill('SIGTERM');
}

const round3 = (x: number) => Number(x.toFixed(3));
const figures = {
  tasks: rows.length,
  source: 'Coding-Tutor (iwangjian/Coding-Tutor) prompt_elements_final.jsonl via ../shared, Apache-2.0',
  kinds: Object.fromEntries(
    KINDS.map((k) => {
      const s = per[k];
      return [
        k,
        {
          candidates: s.n,
          reveals_ge_05: round3(s.high / s.n),
          reveals_le_02: round3(s.low / s.n),
          flagged: round3(s.flagged / s.n),
          mean: round3(s.sum / s.n),
        },
      ];
    }),
  ),
  ranked_first: { pasted: pastedFirst, any_revealing: revealingFirst, of_tasks: rows.length },
};
writeResult('reveals-check', figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/reveals-check.json; \`npm run figures\` embeds its table in the docs\n`);
