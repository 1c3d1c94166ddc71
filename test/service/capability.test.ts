import t from 'tap';
import { Capability, CapabilityUnavailable } from '../../src/service/capability.js';

t.test('a capability loads once, however many ask at once, and reports its state', async (t) => {
  let loads = 0;
  const cap = new Capability('thing', async () => {
    loads++;
    await new Promise((r) => setTimeout(r, 20));
    return { value: 42 };
  });
  t.same(cap.status(), { ready: false, reason: 'not loaded yet (loads on first use)' });
  const all = Promise.all([cap.get(), cap.get(), cap.get()]);
  t.same(cap.status(), { ready: false, reason: 'loading' });
  const [a, b, c] = await all;
  t.equal(loads, 1);
  t.ok(a === b && b === c);
  t.same(cap.status(), { ready: true, reason: 'ok' });
});

t.test('a failed load is reported, not retried', async (t) => {
  let loads = 0;
  const cap = new Capability('verifier', async () => {
    loads++;
    throw new Error('model.onnx is corrupt');
  });
  const err: unknown = await cap.get().catch((e: unknown) => e);
  t.ok(err instanceof CapabilityUnavailable);
  await t.rejects(cap.get(), { message: 'verifier is unavailable: model.onnx is corrupt' });
  t.equal(loads, 1);
  t.same(cap.status(), { ready: false, reason: 'model.onnx is corrupt' });
});
