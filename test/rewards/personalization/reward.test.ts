import t from 'tap';
import { SignalCoverage } from '../../../src/rewards/personalization/reward.js';
import { profileSignals } from '../../../src/rewards/personalization/signals.js';
import { basePlan } from '../../support/plans.js';

t.test('R_pers = hits / |C(I_p)| with the hits, what matched, and the misses', async (t) => {
  // Signals: python (tag), postgresql (tag), regex (skill), loops (unknown phrase).
  const coverage = new SignalCoverage(profileSignals({ tags: ['python', 'postgres'], skills: ['regex', 'loops'] }));
  const r = coverage.score(basePlan());
  // basePlan mentions "Python" (agent role, step a) and "loops" (step a), not PostgreSQL or regex.
  t.equal(r.value, 2 / 4);
  t.same(r.hits, [
    { id: 'python', label: 'Python', sources: ['tag'], matched: ['python'] },
    { id: 'loops', label: 'loops', sources: ['skill'], matched: ['loops'] },
  ]);
  t.same(
    r.misses.map((m) => m.id),
    ['postgresql', 'regex'],
  );
  t.equal(r.lexicon, 'tech-lexicon@1');
});

t.test('any alias of a lexicon signal counts, in agent, subtask or step text', async (t) => {
  const coverage = new SignalCoverage(profileSignals({ tags: ['postgresql'] }));
  for (const where of ['agent', 'subtask', 'step'] as const) {
    const p = basePlan();
    if (where === 'agent') p.agents[0]!.goal = 'Teach Postgres users';
    if (where === 'subtask') p.subtasks[0]!.objective = 'Relate to psql habits';
    if (where === 'step') p.steps[3]!.expected_output = 'A query that runs on PostgreSQL 16';
    t.equal(coverage.score(p).value, 1, where);
  }
});

t.test('a profile without signals gives 0, not a division by zero', async (t) => {
  t.same(new SignalCoverage([]).score(basePlan()), { value: 0, hits: [], misses: [], lexicon: 'tech-lexicon@1' });
});

t.test('tool names and ids are not plan text', async (t) => {
  const p = basePlan();
  p.agents[0]!.id = 'zeta';
  p.steps = p.steps.map((s) => (s.agent === 'tutor' ? { ...s, agent: 'zeta' } : s));
  const coverage = new SignalCoverage(profileSignals({ signals: ['CodeInterpreterTool', 'zeta'] }));
  t.same(coverage.score(p).hits, [], 'neither a tool name nor an agent id is prose the learner sees');
  p.steps[0]!.instruction += ' Mention zeta here.';
  t.same(
    coverage.score(p).hits.map((h) => h.id),
    ['zeta'],
  );
});
