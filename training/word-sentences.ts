import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The text the word table learns sentence meaning from (training/word_vectors.py): tutoring dialogue
// from MRBench and Bridge (../shared, neither in the plan corpus), and programming prose, the comments and
// docs of this repository. Only their text is used, against USE-lite's embedding of it: no label, no plan.
const split = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 15 && s.length < 300);

/**
 * The documents: each tutoring conversation, doc page and source file, as its sentences. The sentences teach
 * the map; the documents weigh the words (a word in most conversations, about whatever problem, says little).
 */
export function distillationDocuments(root: string, shared: string): string[][] {
  const docs: string[][] = [];
  const mrbench = JSON.parse(readFileSync(join(shared, 'data/mrbench/MRBench_V1.json'), 'utf8')) as {
    conversation_history: string;
    anno_llm_responses?: Record<string, { response?: string }>;
  }[];
  for (const c of mrbench) {
    const doc = split(c.conversation_history).map((s) => s.replace(/^(?:Tutor|Student):\s*/, ''));
    for (const r of Object.values(c.anno_llm_responses ?? {})) if (r.response) doc.push(...split(r.response));
    docs.push(doc);
  }
  for (const part of ['train', 'validation', 'test']) {
    const contexts = JSON.parse(readFileSync(join(shared, `data/bridge/${part}.json`), 'utf8')) as Record<string, { text: string }[] | undefined>[];
    for (const c of contexts) docs.push(['c_h', 'c_r', 'c_r_'].flatMap((k) => (c[k] ?? []).flatMap((u) => split(u.text))));
  }
  for (const file of globSync(['docs/*.md', 'README.md'], { cwd: root }).sort()) {
    docs.push(split(readFileSync(join(root, file), 'utf8').replace(/[`*|#>[\]()]/g, ' ')));
  }
  for (const file of globSync(['src/**/*.ts', 'clients/python/**/*.py', 'training/*.py'], { cwd: root }).sort()) {
    const doc: string[] = [];
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(/(?:\/\/|\*|#)\s*(.+)/g)) {
      const line = m[1]!.trim();
      if (line.length > 25 && /[a-z]{3} [a-z]{3}/.test(line)) doc.push(line);
    }
    docs.push(doc);
  }
  return docs.filter((d) => d.length > 0);
}
