import fc from 'fast-check';
import t from 'tap';
import { benchBatch } from '../../bench/realistic-plans.js';
import { ScorePlanRequestSchema } from '../../src/contracts/score-plan.js';
import { fingerprint, fingerprintOfParts } from '../../src/runs/idempotency.js';

const utf8 = (s: string) => Buffer.from(s);
// Parts as a judging thread writes them: its groups' JSON texts joined by commas, without the brackets.
const partsOf = (groups: unknown[], cuts: number[]) => {
  const at = [0, ...cuts.filter((c) => c > 0 && c < groups.length).sort((a, b) => a - b), groups.length];
  return at.slice(1).map((end, i) => utf8(JSON.stringify(groups.slice(at[i], end)).slice(1, -1)));
};

t.test('fingerprintOfParts is fingerprint of the whole body, whatever the key order, the values and the cut', async (t) => {
  const value = fc.jsonValue({ maxDepth: 3 });
  const body = fc
    .record({
      groups: fc.array(fc.record({ query: fc.string(), profile: value, completions: fc.array(value, { minLength: 1, maxLength: 3 }) }), {
        minLength: 1,
        maxLength: 6,
      }),
      before: fc.dictionary(
        fc.string().filter((k) => k !== 'groups' && k !== '__proto__'),
        fc.oneof(value, fc.constant(undefined)),
        { maxKeys: 3 },
      ),
      after: fc.dictionary(
        fc.string().filter((k) => k !== 'groups' && k !== '__proto__'),
        fc.oneof(value, fc.constant(undefined)),
        { maxKeys: 3 },
      ),
      cuts: fc.array(fc.nat(6), { maxLength: 4 }),
    })
    .map(({ groups, before, after, cuts }) => ({ whole: { ...before, groups, ...after } as Record<string, unknown> & { groups: unknown[] }, cuts }));
  fc.assert(
    fc.property(body, ({ whole, cuts }) => fingerprintOfParts(whole, partsOf(whole.groups, cuts)) === fingerprint(whole)),
    { numRuns: 2000 },
  );
  t.pass('2,000 random bodies');

  const batch = ScorePlanRequestSchema.parse({ ...benchBatch(64, 8), run_id: 'r', step: 3 });
  t.equal(fingerprintOfParts(batch, partsOf(batch.groups, [7, 20, 41])), fingerprint(batch), 'a 64×8 batch cut in four');
  const other = structuredClone(batch);
  other.groups[30]!.query += ' ';
  t.not(fingerprintOfParts(other, partsOf(other.groups, [7, 20, 41])), fingerprint(batch), 'a change in one group changes it');
  t.not(fingerprintOfParts({ ...batch, step: 4 }, partsOf(batch.groups, [7])), fingerprint(batch), 'and a change in the head');
});
