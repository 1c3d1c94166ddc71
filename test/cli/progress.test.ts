import t from 'tap';
import { Progress } from '../../src/cli/progress.js';

const fake = () => {
  const out: string[] = [];
  let now = 0;
  return { out, sink: { write: (s: string) => out.push(s) }, tick: (ms: number) => (now += ms), now: () => now };
};

t.test('terminal: a redrawn bar with percent of bytes, throttled', async (t) => {
  const f = fake();
  let bytes = 0;
  const p = new Progress(f.sink, { tty: true, totalBytes: 1000, bytesRead: () => bytes, intervalMs: 100, now: f.now });
  bytes = 250;
  f.tick(50);
  p.update(10);
  t.equal(f.out.length, 0, 'not before the interval');
  f.tick(950);
  p.update(100);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is tested
  t.match(f.out[0], /^\r\[#{8}-{22}\] {2}25\.0% {2}100 lines {2}100 lines\/s {2}1\.0 s\x1b\[K$/);
  p.done(400);
  t.match(f.out[1], /100\.0% {2}400 lines .*\n$/);
});

t.test('not a terminal: plain lines, no carriage returns; unknown size: no percent', async (t) => {
  const f = fake();
  const p = new Progress(f.sink, { tty: false, totalBytes: null, bytesRead: () => 0, intervalMs: 5000, now: f.now });
  f.tick(5000);
  p.update(2000);
  p.update(2001);
  f.tick(5000);
  p.done(4000);
  t.same(f.out, ['progress: 2,000 lines  400 lines/s  5.0 s\n', 'done: 4,000 lines  400 lines/s  10.0 s\n']);
});
