// What users receive, pinned: /score-plan over honest, gamed and unreadable plans in both reward profiles, with
// and without references, equal to test/fixtures/golden/score-plan.json (scripts/golden.ts --write writes it
// when a change to the rewards is meant). "Rewards unchanged" is this test, not a claim.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { type Golden, responses } from '../../scripts/golden.js';

const golden = JSON.parse(readFileSync(new URL('../fixtures/golden/score-plan.json', import.meta.url), 'utf8')) as Golden;

t.test('the golden requests cover both profiles, with and without references, honest, gamed and unreadable plans', async (t) => {
  t.same(
    golden.requests.map((r) => r.name),
    ['paper, without references', 'paper, with references', 'guarded, without references', 'guarded, with references'],
  );
  for (const { request } of golden.requests) t.ok(request.groups.every((g) => g.completions.length === 6 && g.completions.includes('not a plan')));
});

t.test('the scorer gives the golden responses', async (t) => {
  const now = responses(golden.requests);
  for (const [i, expected] of golden.responses.entries()) t.same(now[i], expected, golden.requests[i]!.name);
});

t.test('the paper profile ignores references: its responses are the same with and without', async (t) => {
  const strip = (r: unknown) => JSON.stringify(r);
  t.equal(strip(golden.responses[0]), strip(golden.responses[1]));
});
