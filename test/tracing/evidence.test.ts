import { readFileSync } from 'node:fs';
import t from 'tap';
import { DEFAULT_SEMANTIC } from '../../src/contracts/trace-knowledge.js';
import { evidenceFor, kcIdentifiers, readTurn } from '../../src/tracing/evidence.js';
import { kcsOfTask, type KnowledgeComponent } from '../../src/tracing/kcs.js';

// Realistic turns from the Traver human-evaluation dialogues (Coding-Tutor, Apache-2.0; test/fixtures/coding-tutor).
type Pair = { dependency_all: string; reference_steps: string; model_1: { conversation: Record<string, string>[] } };
const pairs = JSON.parse(readFileSync(new URL('../fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Pair[];
const turnsOf = (p: Pair) => p.model_1.conversation.map((m) => ({ role: Object.keys(m)[0] as 'tutor' | 'student', text: Object.values(m)[0]! }));
const NO_MEANING = 0; // cosine 0: only identifiers count in these tests

function evidence(p: Pair, turn: number, kcId: string) {
  const kc = kcsOfTask({ dependencies: p.dependency_all, solution_steps: p.reference_steps }).find((k) => k.id === kcId)!;
  const { role, text } = turnsOf(p)[turn]!;
  return evidenceFor(role, readTurn(text), kc, kcIdentifiers(kc), NO_MEANING, 1, DEFAULT_SEMANTIC);
}

t.test('identifiers a KC is named by', async (t) => {
  const kc = (text: string, kind: KnowledgeComponent['kind']): KnowledgeComponent => ({ id: 'k', text, kind });
  t.same(kcIdentifiers(kc('sqlite_agent_persistence.SQLiteAgentPersistence.filename', 'dependency')), ['filename']);
  t.same(kcIdentifiers(kc('Establish a connection using `sqlite3.connect` with `self.filename` as the database file.', 'step')), [
    'sqlite3.connect',
    'filename',
  ]);
  t.same(kcIdentifiers(kc('Define a function `plus_eps` that takes a single argument `x`.', 'step')), ['plus_eps'], 'one-letter names are too ambiguous');
  t.same(kcIdentifiers(kc('Return the list of purposes.', 'step')), [], 'a step without code terms is found by meaning only');
});

t.test('a student who uses a dependency in code is a correct observation; the tutor naming it only teaches', async (t) => {
  const sqlite = pairs[0]!;
  t.match(evidence(sqlite, 2, 'dep:sqlite_agent_persistence.SQLiteAgentPersistence.filename'), {
    observation: 'taught',
    via: 'identifier',
    matched: ['filename'],
    strength: 1,
  });
  t.match(evidence(sqlite, 3, 'dep:sqlite_agent_persistence.SQLiteAgentPersistence.filename'), {
    observation: 'correct',
    via: 'identifier',
    matched: ['filename'],
  });
  t.match(
    evidence(sqlite, 3, 'step:2'),
    { observation: 'correct', matched: ['sqlite3.connect', 'filename'], strength: 1 },
    '`with sqlite3.connect(self.filename) as conn:`',
  );
  t.equal(evidence(sqlite, 3, 'step:6'), null, 'cursor.fetchall is not in that turn');
  t.match(evidence(sqlite, 9, 'step:6'), { observation: 'correct', matched: ['cursor.fetchall'] });
});

t.test('explicit confusion about a KC is an incorrect observation', async (t) => {
  const jax = pairs[1]!;
  // "However, I haven't used it before. Could you please provide an example of how to use `jnp.where` …"
  t.match(evidence(jax, 5, 'step:3'), { observation: 'incorrect', matched: ['jnp.where'] });
  t.match(evidence(jax, 6, 'step:3'), { observation: 'taught' }, 'then the tutor explains it');
  t.match(evidence(jax, 7, 'step:3'), { observation: 'correct' }, 'then the student explains it back');
  // "… I haven't used it before. Could you please provide an example of how to use `jnp.nextafter` …"
  t.match(evidence(jax, 9, 'step:6'), { observation: 'incorrect', matched: ['jnp.nextafter'] });
  t.match(evidence(jax, 11, 'step:6'), { observation: 'correct' });
  const confused = readTurn("I don't know what `cursor()` does.\n```python\nconn = sqlite3.connect(self.filename)\n```");
  t.same([...confused.code].sort(), ['conn', 'connect', 'cursor', 'filename', 'sqlite3.connect'].sort());
  t.equal(confused.confused.length, 1);
  t.ok(confused.confused[0]!.has('cursor') && !confused.confused[0]!.has('filename'), 'the confusion is about the sentence, not the code');
});

t.test('plain words in prose are not identifiers; code-like ones are', async (t) => {
  const turn = readTurn('I would filter the results with a loop and call load_all_purposes afterwards.');
  t.notOk(turn.prose.has('filter') || turn.prose.has('results'));
  t.ok(turn.prose.has('load_all_purposes'));
  t.notOk(turn.hasConfusion);
});

t.test('meaning: only above the floor and near the turn’s best KC, with graded strength', async (t) => {
  const kc: KnowledgeComponent = { id: 'step:9', text: 'Return the list of purposes.', kind: 'step' };
  const turn = readTurn('So it should give back all the purposes as a list.');
  const at = (cos: number, best: number) => evidenceFor('student', turn, kc, [], cos, best, DEFAULT_SEMANTIC);
  t.equal(at(0.7, 0.7), null, 'below the floor');
  t.equal(at(0.8, 0.85), null, 'another KC fits the turn better');
  const half = at(0.825, 0.83)!;
  t.match(half, { observation: 'correct', via: 'semantic', matched: 0.825 });
  t.ok(Math.abs(half.strength - 0.5) < 1e-12, 'halfway between floor 0.75 and full 0.9');
  t.match(at(0.95, 0.95), { strength: 1 });
  t.match(evidenceFor('student', readTurn("I'm not sure how to return them."), kc, [], 0.9, 0.9, DEFAULT_SEMANTIC), { observation: 'incorrect' });
  t.match(evidenceFor('tutor', turn, kc, [], 0.9, 0.9, DEFAULT_SEMANTIC), { observation: 'taught' });
});
