import t from 'tap';
import { RunTurns, untilAborted } from '../../src/runs/turns.js';

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
