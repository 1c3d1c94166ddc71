import t from 'tap';
import { serverTiming, Timings } from '../../src/common/timings.js';

t.test('a stage timed twice counts both times, stages in the order first timed', async (t) => {
  const timings = new Timings();
  timings.add('read', 2);
  timings.add('judge', 5);
  timings.add('read', 1.5);
  t.same(timings.entries(), [
    ['read', 3.5],
    ['judge', 5],
  ]);
});

t.test('time() counts work that throws, and gives back what the work gives', async (t) => {
  const timings = new Timings();
  t.equal(await timings.time('judge', async () => 7), 7);
  await t.rejects(
    timings.time('store', () => Promise.reject(new Error('down'))),
    { message: 'down' },
  );
  t.same(
    timings.entries().map(([stage]) => stage),
    ['judge', 'store'],
  );
  for (const [, ms] of timings.entries()) t.ok(ms >= 0 && Number.isFinite(ms));
});

t.test('time() measures the wall clock while the work awaits', async (t) => {
  const timings = new Timings();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  // time() reads the clock before it returns, so the stage starts no later than `started`.
  const timed = timings.time('judge', () => gate);
  const started = performance.now();
  while (performance.now() - started < 5) await new Promise((r) => setImmediate(r));
  const waited = performance.now() - started;
  release();
  await timed;
  t.ok(timings.entries()[0]![1] >= waited, `${timings.entries()[0]![1]} ms against ${waited} ms waited`);
});

t.test('the Server-Timing value: stage;dur=ms in tenths, comma-separated', async (t) => {
  t.equal(
    serverTiming([
      ['read', 1.234],
      ['judge', 40],
      ['total', 0.05],
    ]),
    'read;dur=1.2, judge;dur=40.0, total;dur=0.1',
  );
  t.equal(serverTiming([]), '');
});
