// The turn-verifier task.
import type { VerifyInput } from '../../verify/model.js';
import { codeTokenizer } from '../../verify/code/grammars.js';
import { aimOf, readCandidate, readTask, revealsSolution } from '../../verify/reveals.js';
import { verifier } from './models.js';
import { task, type Stop } from './task.js';

export function verifyTask(input: VerifyInput, stop: Stop) {
  return task(stop, async () => {
    const [v, tokenizer] = await Promise.all([verifier(), codeTokenizer()]);
    // Whether each candidate gives the solution away, read against the task and the student's code.
    const reading = readTask(input.task, input.context, tokenizer);
    const read = input.candidates.map((c) => readCandidate(c, reading));
    const reveals = read.map((c) => revealsSolution(c, reading));
    const aims = read.map((c) => aimOf(c, reading));
    const misdirected = aims.map((a) => a.misdirects);
    // A turn that gives the fix away points at its line too: it reveals, it does not guide.
    const guided = aims.map((a, i) => (reveals[i] ? null : a.guides));
    return { verification: await v.verify(input, stop), info: v.info, reveals, misdirected, guided };
  });
}
