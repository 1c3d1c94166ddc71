// The turn-verifier task.
import type { VerifyInput } from '../../verify/model.js';
import { verifier } from './models.js';
import { task, type Stop } from './task.js';

export function verifyTask(input: VerifyInput, stop: Stop) {
  return task(stop, async () => {
    const v = await verifier();
    return { verification: await v.verify(input, stop), info: v.info };
  });
}
