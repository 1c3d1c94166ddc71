// Step 7 of `npm run train:verifier`: the shipped verifier's `reveals_answer` on the calibration split of the
// coding situations with known bugs (bench/code-situations.ts), for code_calibration.py to fit its code
// scaling on. Only candidates the service's own checks do not flag are kept: a flagged one is reported from
// the check (reveals.ts revealProbability), so the scaling serves the others. Writes
// training/build/code_reveals.json: per domain, the model's probability before any code scaling and the
// candidate's label by construction (1: it reveals the fix).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONDITIONS, codeSituations, REVEALING, verifyRequest } from '../bench/code-situations.js';
import { SentenceEncoder } from '../src/text/encoder.js';
import { codeTokenizer } from '../src/verify/code/grammars.js';
import { codeDomain } from '../src/verify/code-domain.js';
import { EmbeddingHeadVerifier } from '../src/verify/embedding-head.js';
import { type EmbeddingHeadManifest, VerifierManifestSchema } from '../src/verify/manifest.js';
import { readCandidate, readTask, revealsSolution } from '../src/verify/reveals.js';

const MODEL = fileURLToPath(new URL('../models/verifier', import.meta.url));
const BUILD = fileURLToPath(new URL('./build/', import.meta.url));
const manifest = VerifierManifestSchema.parse(JSON.parse(readFileSync(`${MODEL}/manifest.json`, 'utf8'))) as EmbeddingHeadManifest;
// The model as it was before any code scaling: what the scaling is fit on.
const { code_calibration: _, ...uncalibrated } = manifest;
const verifier = await EmbeddingHeadVerifier.load(MODEL, uncalibrated, (dir) => SentenceEncoder.fromDirectory(dir, { cacheSize: 2_000, batchSize: 64 }));
const tokenizer = await codeTokenizer();

const rows: Record<string, { p: number[]; y: number[] }> = { with_reference: { p: [], y: [] }, student_code_only: { p: [], y: [] } };
const situations = codeSituations('calibration');
for (const s of situations) {
  for (const condition of CONDITIONS) {
    const request = verifyRequest(s, condition);
    const domain = codeDomain(request.task, request.context);
    if (!domain) throw new Error(`${s.task.id}: a coding situation outside the code domain`);
    const reading = readTask(request.task, request.context, tokenizer);
    const { candidates } = await verifier.verify(request);
    s.candidates.forEach((c, k) => {
      if (revealsSolution(readCandidate(c.text, reading), reading)) return;
      rows[domain]!.p.push(candidates[k]!.dimensions!.reveals_answer!);
      rows[domain]!.y.push((REVEALING as readonly string[]).includes(c.kind) ? 1 : 0);
    });
  }
}
writeFileSync(`${BUILD}code_reveals.json`, JSON.stringify({ model: `${manifest.name} ${manifest.version}`, tasks: situations.length, domains: rows }));
console.log(
  `${situations.length} calibration tasks: ${Object.entries(rows)
    .map(([d, r]) => `${d} ${r.p.length}`)
    .join(', ')} unflagged candidates`,
);
