import t from 'tap';
import { closeLoads, loadsRunning, loadUnlessClosing, markLoaded, modelFlags, wasLoaded } from '../../../src/service/pool/model-flags.js';

t.test('a close waits for the loads that run and stops the ones that would start after it', async (t) => {
  const flags = modelFlags();
  let finish: () => void = () => undefined;
  const events: string[] = [];
  const running = loadUnlessClosing(flags, async () => {
    events.push('load started');
    await new Promise<void>((r) => (finish = r));
    events.push('load ended');
  });
  const closed = closeLoads(flags).then(() => events.push('closed'));
  await new Promise((r) => setTimeout(r, 50));
  t.same(events, ['load started'], 'the close still waits');
  finish();
  await Promise.all([running, closed]);
  t.same(events, ['load started', 'load ended', 'closed']);

  let late = false;
  await loadUnlessClosing(flags, async () => {
    late = true;
  });
  t.notOk(late, 'no load starts once the pool closes');
  await t.resolves(closeLoads(flags, 0), 'a second close finds no load to wait for');
});

t.test('a failed load still lets the close go on', async (t) => {
  const flags = modelFlags();
  await t.rejects(
    loadUnlessClosing(flags, () => Promise.reject(new Error('no model'))),
    /no model/,
  );
  t.equal(loadsRunning(flags), 0, 'the failed load counted itself out, so a close does not wait for it');
});

t.test('a load that never counts itself out (its worker died) holds a close back only until the limit', async (t) => {
  const flags = modelFlags();
  void loadUnlessClosing(flags, () => new Promise(() => undefined));
  const started = performance.now();
  await closeLoads(flags, 200);
  t.ok(performance.now() - started >= 190, 'the close waited for the limit');
});

t.test('which models were loaded is seen by every holder of the flags', async (t) => {
  const flags = modelFlags();
  const other = new Int32Array(flags.buffer);
  markLoaded(flags, 'verifier');
  t.same([wasLoaded(other, 'encoder'), wasLoaded(other, 'verifier')], [false, true]);
});
