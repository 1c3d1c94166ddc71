import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { plainNode, ROOT } from '../support/children.js';
import { mathdialOutcome, mathdialRows, parseMathdialConversation, type TrainingRow } from '../../training/mathdial.js';

const SAMPLE = fileURLToPath(new URL('../fixtures/mathdial-sample.jsonl', import.meta.url));
const records = readFileSync(SAMPLE, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

t.test('outcomes: revealing the answer counts as a failure; a missing label has no outcome', async (t) => {
  t.same(['Yes', 'No', 'Yes, but I had to reveal the answer', null, 'maybe'].map(mathdialOutcome), [1, 0, 0, null, null]);
});

t.test('conversation parsing: move tags, named students', async (t) => {
  t.same(parseMathdialConversation(records[0]!.conversation as string), [
    { role: 'tutor', text: 'Hi Ana, walk me through it', move: 'generic' },
    { role: 'student', text: 'I added 3 and 5', move: null },
    { role: 'tutor', text: 'Which numbers are in the question?', move: 'probing' },
    { role: 'student', text: '3 and 4, so 7', move: null },
    { role: 'tutor', text: 'Great, check it once more', move: 'focus' },
  ]);
});

t.test('one row per tutor turn, with its value, task and preceding context', async (t) => {
  const rows = mathdialRows(records[0]!);
  t.same(
    rows.map((r) => [r.turn, r.turns, r.outcome]),
    [
      [1, 3, 1],
      [2, 3, 1],
      [3, 3, 1],
    ],
  );
  [1 / 3, 2 / 3, 1].forEach((v, i) => {
    t.ok(Math.abs(rows[i]!.value - v) < 1e-12, `v${i + 1} = ${rows[i]!.value}`);
  });
  t.same(
    rows[2]!.context.map((c) => c.role),
    ['tutor', 'student', 'tutor', 'student'],
  );
  t.equal(rows[1]!.response, 'Which numbers are in the question?');
  t.equal(rows[0]!.task, 'What is 3 + 4?');
  t.same(
    mathdialRows(records[1]!).map((r) => [r.outcome, r.value]),
    [[0, 0]],
  );
  t.same(
    mathdialRows(records[2]!).map((r) => r.value),
    [0, 0],
  );
  t.same(mathdialRows(records[3]!), []);
});

t.test('the CLI writes JSON lines and a summary', async (t) => {
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
    const child = spawn(...plainNode(['--import', 'tsx', 'scripts/turn-labels.ts', SAMPLE]), { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (c) => resolve({ stdout: out, stderr: err, code: c }));
  });
  t.equal(code, 0);
  const rows = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TrainingRow);
  t.equal(rows.length, 6);
  t.same(
    rows.map((r) => r.dialogue),
    ['d1', 'd1', 'd1', 'd2', 'd3', 'd3'],
  );
  t.match(stderr, /4 dialogues → 6 rows \(1 without an outcome or tutor turns, skipped\)/);
});
