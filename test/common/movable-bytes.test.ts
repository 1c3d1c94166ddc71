import t from 'tap';
import { MessageChannel } from 'node:worker_threads';
import { dropSpareShared, MovableWriter, movableBytes, reuseShared, sharedBytes } from '../../src/common/movable-bytes.js';

t.test('a small buffer to move is a view of a buffer over the mmap threshold; a large one is its own size', async (t) => {
  const small = movableBytes(100);
  t.equal(small.length, 100);
  t.equal(small.byteOffset, 0);
  t.ok(small.buffer.byteLength >= 128 * 1024, `backed by ${small.buffer.byteLength} bytes`);
  t.ok(small.every((b) => b === 0));
  const large = movableBytes(300_000);
  t.equal(large.length, 300_000);
  t.equal(large.buffer.byteLength, 300_000);
  // Moved, the view keeps its length: what the other thread reads is the `size` bytes.
  const { port1, port2 } = new MessageChannel();
  small.set([1, 2, 3]);
  const received = new Promise<Uint8Array>((resolve) => port2.once('message', resolve));
  port1.postMessage(small, [small.buffer]);
  const got = await received;
  t.equal(got.length, 100);
  t.same([...got.subarray(0, 4)], [1, 2, 3, 0]);
  t.equal(small.length, 0, 'moved, not copied');
  port1.close();
});

t.test('shared bytes: another thread reads a run of them in place, and the sender keeps them', async (t) => {
  const body = sharedBytes(1000);
  t.equal(body.length, 1000);
  t.ok(body.buffer.byteLength >= 128 * 1024, `backed by ${body.buffer.byteLength} bytes`);
  t.ok(body.every((b) => b === 0));
  body.set([7, 8, 9], 500);
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<Uint8Array>((resolve) => port2.once('message', resolve));
  port1.postMessage(body.subarray(500, 600));
  const run = await received;
  t.same([run.length, ...run.subarray(0, 4)], [100, 7, 8, 9, 0], 'the run posted, from its start');
  run[3] = 42;
  t.equal(body[503], 42, 'one memory: a write through the received view is seen here');
  t.equal(body.length, 1000, 'not moved');
  port1.close();
});

t.test('MovableWriter: texts one after another as UTF-8, their ranges, across the buffer growing', async (t) => {
  const w = new MovableWriter();
  const texts = ['{"a":1}', 'Ümlaute → 例 🙂', '', 'x'.repeat(200_000), '"quoted" \\ back', 'y'.repeat(600_000), 'end'];
  const ranges = texts.map((s) => w.write(s));
  t.equal(w.size, ranges.at(-1)![1], 'size: the bytes written');
  const bytes = w.bytes;
  t.equal(
    bytes.length,
    texts.reduce((n, s) => n + Buffer.byteLength(s), 0),
    'every byte written, none more',
  );
  t.same(
    ranges.map(([a, b]) => Buffer.from(bytes.buffer, a, b - a).toString('utf8')),
    texts,
    'each range holds its text, those written before the buffer grew included',
  );
  t.equal(bytes.byteOffset, 0, 'its own buffer, to move');
});

t.test('a shared buffer given back is the next one large enough; the largest given back is kept, one at most', async (t) => {
  dropSpareShared();
  const first = sharedBytes(3 << 20);
  first.fill(7);
  reuseShared(first);
  const again = sharedBytes(2 << 20);
  t.equal(again.buffer, first.buffer, 'reused for a smaller body');
  t.equal(again.length, 2 << 20, 'as long as the new body');
  t.equal(again[0], 7, 'holding the old bytes until the new ones are written');
  t.not(sharedBytes(1 << 20).buffer, first.buffer, 'taken: the next gets a fresh one');
  reuseShared(again);
  const larger = sharedBytes((3 << 20) + 1);
  t.not(larger.buffer, first.buffer, 'too small for a larger body');
  t.ok(larger.buffer.byteLength >= (3 << 20) + 1 && larger.buffer.byteLength % (1 << 20) === 0, `rounded up: ${larger.buffer.byteLength}`);
  t.ok(
    larger.every((b) => b === 0),
    'a fresh one is zeroes',
  );
  t.equal(sharedBytes(1000).buffer, first.buffer, 'the one given back still waits');
  reuseShared(first);
  reuseShared(larger);
  const small = sharedBytes(1000);
  reuseShared(small);
  t.equal(sharedBytes(1000).buffer, larger.buffer, 'of two given back, the larger is kept');
  reuseShared(larger);
  dropSpareShared();
  t.not(sharedBytes(1000).buffer, larger.buffer, 'dropped: nothing kept');
});
