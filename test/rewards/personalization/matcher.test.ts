import fc from 'fast-check';
import t from 'tap';
import { normalizePhrase, PhraseMatcher } from '../../../src/rewards/personalization/matcher.js';

// The reference: every phrase an alternative with its own start, longest first, as the matcher's regex
// was first written. The matcher writes each kind's start once; its matches must be these.
function referenceSpans(phrases: readonly string[], text: string): { phrase: string; start: number; end: number }[] {
  const unique = [...new Set(phrases)].filter((p) => p.length > 0);
  unique.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  if (unique.length === 0) return [];
  const pattern = (p: string) =>
    (/^\w/.test(p) ? '\\b' : '(?<![a-z0-9_])') +
    p
      .split(' ')
      .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('[\\s_-]+') +
    (/\w$/.test(p) ? '\\b' : '(?![a-z0-9_])');
  const re = new RegExp(unique.map(pattern).join('|'), 'g');
  return [...text.matchAll(re)].map((m) => ({
    phrase: /[\s_-]/.test(m[0]) ? normalizePhrase(m[0]) : m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
}

// Words and symbols that make phrases of both kinds ("c++", ".net", "#", " go" from "-go") and texts where
// they meet, overlap and nest.
const PARTS = ['c', 'c++', '.net', 'net', 'asp.net', 'node.js', 'js', 'pl/sql', 'sql', '#', 'c#', 'go', '-go', 'data', 'big data', 'r', '++'];
const GLUE = [' ', '  ', '-', '_', '.', ',', '/', '\n', '', 'x', '1'];

t.test('spans are the reference alternation’s, for phrases of both kinds', async (t) => {
  let texts = 0;
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PARTS), { minLength: 1, maxLength: 6 }).map((ps) => ps.map(normalizePhrase)),
      fc.array(fc.tuple(fc.constantFrom(...PARTS), fc.constantFrom(...GLUE)), { maxLength: 12 }),
      (phrases, pieces) => {
        const text = pieces.map(([w, g]) => w + g).join('');
        texts++;
        return JSON.stringify(new PhraseMatcher(phrases).spans(text)) === JSON.stringify(referenceSpans(phrases, text));
      },
    ),
    { numRuns: 2000 },
  );
  t.equal(texts, 2000);
});

t.test('a symbol phrase and a word phrase found side by side, each where it lies', async (t) => {
  const m = new PhraseMatcher(['c++', 'sql', '.net', 'big data']);
  t.same(m.spans('c++, pl/sql and .net on big-data'), [
    { phrase: 'c++', start: 0, end: 3 },
    { phrase: 'sql', start: 8, end: 11 },
    { phrase: '.net', start: 16, end: 20 },
    { phrase: 'big data', start: 24, end: 32 },
  ]);
  t.same(m.spans('csql x.net'), [], 'neither starts inside a word');
  t.same(new PhraseMatcher([]).spans('anything'), []);
});
