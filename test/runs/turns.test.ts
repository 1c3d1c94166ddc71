import t from 'tap';
import { untilAborted } from '../../src/common/errors.js';
import { RunTurns } from '../../src/runs/turns.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

t.test('turns of one run come in arrival order, whatever order their work finishes in', async (t) => {
  const turns = new RunTurns();
  const order: string[] = [];
  const slow = turns.inTurn('r', undefined, async () => {
    await tick();
    await tick();
    order.push('first');
  });
  const fast = turns.inTurn('r', undefined, () => order.push('second'));
  const other = turns.inTurn('other run', undefined, () => order.push('other'));
  await Promise.all([slow, fast, other]);
  t.same(order, ['other', 'first', 'second'], 'another run does not wait');
});

t.test('a turn whose signal aborts while waiting gives up without running, and frees the run', async (t) => {
  const turns = new RunTurns();
  let release!: () => void;
  const held = turns.inTurn('r', undefined, () => new Promise<void>((r) => (release = r)));
  const abort = new AbortController();
  let ran = false;
  const waiting = turns.inTurn('r', abort.signal, () => {
    ran = true;
  });
  abort.abort(new Error('deadline'));
  await t.rejects(waiting, /deadline/);
  const after = turns.inTurn('r', undefined, () => 'third');
  await tick();
  release();
  await held;
  t.equal(await after, 'third');
  t.equal(ran, false);
});

t.test('a failing turn releases the next one', async (t) => {
  const turns = new RunTurns();
  await t.rejects(
    turns.inTurn('r', undefined, () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  t.equal(await turns.inTurn('r', undefined, () => 1), 1);
  await t.rejects(untilAborted(new Promise(() => undefined), AbortSignal.abort(new Error('gone'))), /gone/);
});

t.test('a request that does not know its run yet keeps its place: later turns of any run wait until it names its run or leaves', async (t) => {
  const turns = new RunTurns();
  const order: string[] = [];
  const early = turns.arrive();
  const later = turns.inTurn('r', undefined, () => order.push('later r'));
  const other = turns.inTurn('other run', undefined, () => order.push('other'));
  await tick();
  t.same(order, [], 'nothing runs before the earlier arrival has named its run');
  const first = turns.inTurn('r', undefined, () => order.push('early r'), early);
  await Promise.all([first, later, other]);
  t.same(
    order.filter((x) => x !== 'other'),
    ['early r', 'later r'],
    'the earlier arrival comes first in its run',
  );
  t.ok(order.includes('other'));
  early.leave();

  const gone = turns.arrive();
  const next = turns.inTurn('r', undefined, () => 'after one that left');
  const stays = turns.arrive();
  gone.leave();
  gone.leave();
  t.equal(await next, 'after one that left', 'a place left frees the line behind it');
  const behind = turns.inTurn('r', undefined, () => 'behind an unnamed place');
  let settled = false;
  void behind.then(() => (settled = true));
  await tick();
  t.equal(settled, false, 'an unnamed place still holds later turns');
  stays.leave();
  t.equal(await behind, 'behind an unnamed place');
});
