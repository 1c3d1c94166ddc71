import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { VerifierManifestSchema } from './manifest.js';
import type { EncoderAt, TurnVerifier, VerifyInput } from './model.js';

/** A verifier directory that cannot be served, with the reason. */
class VerifierNotLoadable extends Error {
  override name = 'VerifierNotLoadable';
}

// Loading ends with one scoring of this input, so a model that loads but cannot run fails here, at start-up.
const WARM_UP: VerifyInput = {
  task: { description: 'Add two numbers.', solution_steps: ['Add them.'] },
  context: [{ role: 'student', text: 'What is 2 + 3?' }],
  candidates: ['What do you get if you count on three from two?'],
};

/**
 * For a `remote` verifier directory, a check of its server for /ready (null: it answers; otherwise why
 * not); undefined for a model served in-process or a directory that does not load (its load says why).
 */
export async function remoteProbe(dir: string): Promise<(() => Promise<string | null>) | undefined> {
  const parsed = VerifierManifestSchema.safeParse(
    await readFile(join(dir, 'manifest.json'), 'utf8')
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => undefined),
  );
  if (!parsed.success || parsed.data.kind !== 'remote') return undefined;
  const manifest = parsed.data;
  const { remoteHealth } = await import('./remote.js');
  return () => remoteHealth(manifest);
}

/** `threads`: onnxruntime intra-op threads of the verifier's own session (0: the runtime's default). */
export async function loadVerifier(dir: string, encoderAt: EncoderAt, threads = 0): Promise<TurnVerifier> {
  const manifestPath = join(dir, 'manifest.json');
  const text = await readFile(manifestPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new VerifierNotLoadable(`cannot read ${manifestPath}: ${e.code ?? e.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new VerifierNotLoadable(`${manifestPath} is not JSON: ${(e as Error).message}`);
  }
  const parsed = VerifierManifestSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new VerifierNotLoadable(`${manifestPath}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  const manifest = parsed.data;
  // A served model is not called at load: the server may start after the service (a 7B model takes
  // minutes), and /ready reports whether it answers (remoteProbe).
  if (manifest.kind === 'remote') {
    const local = manifest.dimensions_from ? await loadVerifier(resolve(dir, manifest.dimensions_from), encoderAt, threads) : undefined;
    if (local && local.info.kind === 'remote') throw new VerifierNotLoadable(`${manifestPath}: dimensions_from names another remote verifier`);
    return new (await import('./remote.js')).RemoteVerifier(manifest, local);
  }
  let verifier: TurnVerifier;
  try {
    verifier =
      manifest.kind === 'embedding-head'
        ? await (await import('./embedding-head.js')).EmbeddingHeadVerifier.load(dir, manifest, encoderAt, threads)
        : await (await import('./cross-encoder.js')).CrossEncoderVerifier.load(dir, manifest, threads);
    const check = await verifier.verify(WARM_UP);
    const s = check.candidates[0]?.score;
    if (s === undefined || !(s >= 0 && s <= 1)) throw new Error(`the model scored a fixed input ${String(s)}, not a value in [0, 1]`);
  } catch (e) {
    throw e instanceof VerifierNotLoadable ? e : new VerifierNotLoadable(`${manifest.kind} ${manifest.name} in ${dir}: ${(e as Error).message}`);
  }
  return verifier;
}
