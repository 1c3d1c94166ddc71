// The reveal check against a student's bug (issue 75), on the situations of bench/code-situations.ts: sent to
// /verify-turn as a tutoring backend would, in three task conditions (with `reference_code` and solution
// steps, with `reference_code` only, with the description only). Reports per kind and condition how often
// `reveals` names a finding, what ranks first, and the expected calibration error of `reveals_answer`
// against the kinds' labels.
import { CONDITIONS, type Condition, codeSituations, type Kind, KINDS, REVEALING, SOURCE, type Split, verifyRequest } from './code-situations.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

const split = (process.argv[2] ?? 'evaluation') as Split;
let situations: ReturnType<typeof codeSituations>;
try {
  situations = codeSituations(split);
} catch (e) {
  process.stderr.write(`${(e as Error).message}: this bench reads them\n`);
  process.exit(2);
}
interface Answer {
  ranking: number[];
  scores: number[];
  candidates: Array<{ dimensions?: Record<string, number>; reveals: { kind: string } | null }>;
}
type Tally = { n: number; flagged: number; high: number; score: number };
const tally = (): Tally => ({ n: 0, flagged: 0, high: 0, score: 0 });
const per = Object.fromEntries(CONDITIONS.map((c) => [c, Object.fromEntries(KINDS.map((k) => [k, tally()]))])) as Record<Condition, Record<Kind, Tally>>;
// socratic_first: requests whose first-ranked turn is the question quoting the buggy line, the one turn that
// points at the bug without giving it away. question_lifts_wrong_hint: requests where the wrong hint with
// "Can you see why?" appended scores above the same hint without it, the head's reward for the form of a
// question.
const first = Object.fromEntries(
  CONDITIONS.map((c) => [c, { requests: 0, socratic_first: 0, revealing_or_wrong: 0, wrong_above_socratic: 0, question_lifts_wrong_hint: 0 }]),
) as Record<
  Condition,
  { requests: number; socratic_first: number; revealing_or_wrong: number; wrong_above_socratic: number; question_lifts_wrong_hint: number }
>;
const kindsSeen: Record<string, number> = {};

const { base, child } = await startBuiltService();
const byLanguage: Record<string, { tasks: number; revealing: Tally; honest: Tally }> = {};
// reveals_answer against the kinds' labels (1 for a revealing kind), per condition, for the ECE.
const calibration = Object.fromEntries(CONDITIONS.map((c) => [c, [] as [number, number][]])) as Record<Condition, [number, number][]>;
try {
  for (const situation of situations) {
    const { task, candidates: cs } = situation;
    const lang = (byLanguage[task.language] ??= { tasks: 0, revealing: tally(), honest: tally() });
    lang.tasks++;
    for (const condition of CONDITIONS) {
      const res = await fetch(`${base}/verify-turn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(verifyRequest(situation, condition)),
      });
      if (res.status !== 200) throw new Error(`/verify-turn answered ${res.status}: ${await res.text()}`);
      const out = (await res.json()) as Answer;
      out.candidates.forEach((c, k) => {
        const kind = cs[k]!.kind;
        const revealing = (REVEALING as readonly string[]).includes(kind);
        const p = c.dimensions?.reveals_answer ?? 0;
        calibration[condition].push([p, revealing ? 1 : 0]);
        for (const s of [per[condition][kind], ...(condition === 'reference_only' ? [revealing ? lang.revealing : lang.honest] : [])]) {
          s.n++;
          s.score += out.scores[k]!;
          if (c.reveals) s.flagged++;
          if (p >= 0.5) s.high++;
        }
        if (c.reveals) kindsSeen[c.reveals.kind] = (kindsSeen[c.reveals.kind] ?? 0) + 1;
      });
      const f = first[condition];
      f.requests++;
      const top = cs[out.ranking[0]!]!.kind;
      if (top === 'socratic_quote') f.socratic_first++;
      if ((REVEALING as readonly string[]).includes(top) || top.startsWith('wrong_hint')) f.revealing_or_wrong++;
      const place = (kind: Kind) => out.ranking.findIndex((k) => cs[k]!.kind === kind);
      if (Math.min(place('wrong_hint'), place('wrong_hint_question')) < place('socratic_quote')) f.wrong_above_socratic++;
      const scoreOf = (kind: Kind) => out.scores[cs.findIndex((c) => c.kind === kind)]!;
      if (scoreOf('wrong_hint_question') > scoreOf('wrong_hint')) f.question_lifts_wrong_hint++;
    }
  }
} finally {
  child.kill('SIGTERM');
}

/** Expected calibration error over 10 equal-width bins of p. */
function ece(pairs: readonly [number, number][]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const [p, y] of pairs) {
    const b = bins[Math.min(9, Math.floor(p * 10))]!;
    b.n++;
    b.p += p;
    b.y += y;
  }
  return bins.reduce((sum, b) => sum + (b.n === 0 ? 0 : (b.n / pairs.length) * Math.abs(b.p / b.n - b.y / b.n)), 0);
}

const round3 = (x: number) => Number(x.toFixed(3));
const figures = {
  split,
  tasks: situations.length,
  source: SOURCE,
  conditions: Object.fromEntries(
    CONDITIONS.map((c) => [
      c,
      {
        kinds: Object.fromEntries(
          // A rewritten kind the split has no candidate of is left out.
          KINDS.filter((k) => per[c][k].n > 0).map((k) => [
            k,
            {
              candidates: per[c][k].n,
              flagged: round3(per[c][k].flagged / per[c][k].n),
              reveals_ge_05: round3(per[c][k].high / per[c][k].n),
              mean_score: round3(per[c][k].score / per[c][k].n),
            },
          ]),
        ),
        ranked_first: first[c],
        reveals_answer_ece: round3(ece(calibration[c])),
      },
    ]),
  ),
  finding_kinds: kindsSeen,
  // With reference_code only: the share of revealing and of honest or wrong candidates flagged, per language.
  by_language: Object.fromEntries(
    Object.entries(byLanguage).map(([l, v]) => [
      l,
      { tasks: v.tasks, revealing_flagged: round3(v.revealing.flagged / v.revealing.n), honest_flagged: round3(v.honest.flagged / v.honest.n) },
    ]),
  ),
};
writeResult(`reveals-fix-${split}`, figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/reveals-fix-${split}.json\n`);
