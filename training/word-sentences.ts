import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The sentences the word table learns sentence meaning from (training/word_vectors.py): tutoring dialogue
// from MRBench and Bridge (../shared, neither in the plan corpus), and programming prose, the comments and
// docs of this repository. Only their text is used, against USE-lite's embedding of it: no label, no plan.
const split = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 15 && s.length < 300);

export function distillationSentences(root: string, shared: string): string[] {
  const out = new Set<string>();
  const mrbench = JSON.parse(readFileSync(join(shared, 'data/mrbench/MRBench_V1.json'), 'utf8')) as {
    conversation_history: string;
    anno_llm_responses?: Record<string, { response?: string }>;
  }[];
  for (const c of mrbench) {
    for (const s of split(c.conversation_history)) out.add(s.replace(/^(?:Tutor|Student):\s*/, ''));
    for (const r of Object.values(c.anno_llm_responses ?? {})) if (r.response) for (const s of split(r.response)) out.add(s);
  }
  for (const part of ['train', 'validation', 'test']) {
    const contexts = JSON.parse(readFileSync(join(shared, `data/bridge/${part}.json`), 'utf8')) as Record<string, { text: string }[] | undefined>[];
    for (const c of contexts) for (const k of ['c_h', 'c_r', 'c_r_']) for (const u of c[k] ?? []) for (const s of split(u.text)) out.add(s);
  }
  for (const file of globSync(['docs/*.md', 'README.md'], { cwd: root })) {
    for (const s of split(readFileSync(join(root, file), 'utf8').replace(/[`*|#>[\]()]/g, ' '))) out.add(s);
  }
  for (const file of globSync(['src/**/*.ts', 'clients/python/**/*.py', 'training/*.py'], { cwd: root })) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(/(?:\/\/|\*|#)\s*(.+)/g)) {
      const line = m[1]!.trim();
      if (line.length > 25 && /[a-z]{3} [a-z]{3}/.test(line)) out.add(line);
    }
  }
  return [...out].sort();
}
