import { readFileSync } from 'node:fs';
import t from 'tap';
import { dependencyPaths, kcsOfTask, solutionSteps } from '../../src/tracing/kcs.js';

const pairs = JSON.parse(readFileSync(new URL('../fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Array<{
  dependency_all: string;
  reference_steps: string;
}>;

t.test("KCs from Coding-Tutor's dependency_all and reference_steps, as the data set writes them", async (t) => {
  const kcs = kcsOfTask({ dependencies: pairs[2]!.dependency_all, solution_steps: pairs[2]!.reference_steps });
  t.same(
    kcs.filter((k) => k.kind === 'dependency'),
    [
      { id: 'dep:agent_lifecycle.AgentLifecycle.agent_persistence', text: 'agent_lifecycle.AgentLifecycle.agent_persistence', kind: 'dependency' },
      { id: 'dep:agent_lifecycle.logger', text: 'agent_lifecycle.logger', kind: 'dependency' },
    ],
  );
  const steps = kcsOfTask({ solution_steps: pairs[0]!.reference_steps });
  t.equal(steps.length, 10);
  t.same(steps[1], {
    id: 'step:2',
    text: 'Establish a connection to the SQLite database using `sqlite3.connect` with `self.filename` as the database file.',
    kind: 'step',
  });
});

t.test('lists, continuation lines, duplicates and empty fields', async (t) => {
  t.same(dependencyPaths(['a.b', ' ', '# heading', 'c.d']), ['a.b', 'c.d']);
  t.same(solutionSteps('1. First\n   goes on\n2) Second\n\n3. Third'), ['First goes on', 'Second', 'Third']);
  t.same(solutionSteps('No numbers here\nstill the same step'), ['No numbers here still the same step']);
  t.same(
    kcsOfTask({ dependencies: 'x.y\nx.y' }).map((k) => k.id),
    ['dep:x.y'],
    'a dependency listed twice is one KC',
  );
  t.same(kcsOfTask({}), []);
});
