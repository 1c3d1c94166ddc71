import t from 'tap';
import { parse } from 'secure-json-parse';
import { benchBatch } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import { ServiceError } from '../../src/common/errors.js';
import { ScorePlanGroupSchema, ScorePlanRequestSchema } from '../../src/contracts/score-plan.js';
import { JsonBytes, readJsonBody, readJsonElements, parseSecurely } from '../../src/request-body/json.js';
import { dropSpareShared, movableBytes, sharedBytes } from '../../src/common/movable-bytes.js';

const reference = (text: string) => parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });

/** What a parser makes of `text`: the JSON of its value (own "__proto__" keys included), or its error. */
function outcome(f: (text: string) => unknown, text: string): string {
  try {
    return `value ${JSON.stringify(f(text))}`;
  } catch (e) {
    return `error ${(e as Error).message}`;
  }
}

/** `word` with each letter, at random, plain or as a \u escape in either case of hex digit. */
function spelled(rnd: () => number, word: string): string {
  return [...word]
    .map((ch) => {
      if (rnd() < 0.6) return ch;
      const hex = ch.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${rnd() < 0.5 ? hex : hex.toUpperCase()}`;
    })
    .join('');
}

t.test('parses as secure-json-parse does, prototype keys spelled any way, as keys or inside text', async (t) => {
  const rnd = mulberry32(7);
  const words = ['__proto__', 'constructor', 'prototype', 'proto', 'construct', 'plain'];
  let differing = 0;
  let removed = 0;
  for (let i = 0; i < 3000; i++) {
    const key = spelled(rnd, words[Math.floor(rnd() * words.length)]!);
    const inner = spelled(rnd, words[Math.floor(rnd() * words.length)]!);
    const space = [' ', '', '\n\t '][Math.floor(rnd() * 3)]!;
    const shapes = [
      `{"${key}"${space}:{"x":1},"b":2}`,
      `{"a":{"${key}"${space}:{"${inner}":{"polluted":true}}}}`,
      `[{"k":"${key}"},{"${key}":"v"}]`,
      `{"text":"{\\"${key}\\":1}","n":[1,{"${inner}"${space}:null}]}`,
      `\ufeff{"${key}":1}`,
      // Many objects for the text's length, or few in much text: the key asked of the text, or of the value.
      `[${'{"a":[1]},'.repeat(Math.floor(rnd() * 200))}{"${key}":{"${inner}":{}}}]`,
      `{"t":"${'x'.repeat(Math.floor(rnd() * 2000))}","g":[{"${key}"${space}:{"${inner}":[]}}]}`,
      `{"${key}":1,`,
      `"${key}"`,
    ];
    const text = shapes[Math.floor(rnd() * shapes.length)]!;
    if (outcome(parseSecurely, text) !== outcome(reference, text)) differing++;
    if (outcome(reference, text) !== outcome(JSON.parse, text)) removed++;
  }
  t.equal(differing, 0, 'no text of 3,000 read differently');
  // Hundreds of them are texts where secure-json-parse does more than JSON.parse (a key removed, a BOM).
  t.ok(removed > 300, `${removed} texts read differently by JSON.parse`);
});

t.test('a realistic batch, and non-JSON, read the same', async (t) => {
  const batch = JSON.stringify({ ...benchBatch(8, 8), run_id: null });
  t.equal(outcome(parseSecurely, batch), outcome(reference, batch));
  for (const text of ['', '{', 'nul', '{"a":1}}', '[1,]']) t.equal(outcome(parseSecurely, text), outcome(reference, text), text);
  t.match(outcome(parseSecurely, '{"__proto__":{"x":1}}'), /^value \{\}$/);
  t.match(outcome(parseSecurely, '{"a":{"constructor":{"prototype":{"x":1}}}}'), /^value \{"a":\{\}\}$/);
});

/** What reading gives: the value's JSON, or the error's code, message and issues. */
function reading(f: () => unknown): string {
  try {
    return `value ${JSON.stringify(f())}`;
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    return `${e.code} ${e.message} ${JSON.stringify(e.issues)}`;
  }
}

t.test('groups read one by one come out as the body read whole: values, 400s and their paths', async (t) => {
  const MAX_DEPTH = 8;
  const good = benchBatch(4, 2).groups.map((g) => JSON.stringify(g));
  const deep = JSON.stringify({ completions: ['{}'], profile: { a: [[[[[[[[1]]]]]]]] } });
  const cases: Record<string, string[]> = {
    valid: good,
    'a group of the wrong shape': [good[0]!, '{"completions":[]}', good[2]!],
    'two groups of the wrong shape': [good[0]!, '{"completions":"x"}', '{"query":1,"completions":["{}"]}'],
    'a group nested too deep': [good[0]!, good[1]!, deep],
    'a group with an unknown key': [good[0]!, good[1]!.replace('"query"', '"querry"')],
    'a group that is not JSON': [good[0]!, '{"completions":[}'],
  };
  for (const [name, groups] of Object.entries(cases)) {
    const whole = reading(() => readJsonBody(`{"groups":[${groups.join(',')}]}`, ScorePlanRequestSchema, MAX_DEPTH));
    const inParts = reading(() => readJsonElements(groups, ScorePlanGroupSchema, MAX_DEPTH, ['groups'], 0, ScorePlanRequestSchema));
    // The groups on their own lack the body around them: compared as the body would hold them.
    const asBody = inParts.startsWith('value ') ? `value {"groups":${inParts.slice(6)}}` : inParts;
    if (name.includes('not JSON')) t.match(asBody, /^invalid_json /, name);
    else t.equal(asBody, whole, name);
  }
  // A run that starts later in the body: its paths are the body's.
  const later = reading(() => readJsonElements(['{"completions":[]}'], ScorePlanGroupSchema, MAX_DEPTH, ['groups'], 5, ScorePlanRequestSchema));
  t.match(later, /"path":"\$\.groups\[5\]\.completions"/);
});

t.test('a body released is read no more, and a shared one goes back for the next body', async (t) => {
  dropSpareShared();
  const shared = new JsonBytes(sharedBytes(5 << 20));
  const buffer = shared.bytes.buffer;
  t.same(shared.transfer, [], 'shared: nothing to move');
  shared.release();
  t.throws(() => shared.bytes, /released/);
  t.throws(() => shared.transfer, /released/);
  t.equal(sharedBytes(4 << 20).buffer, buffer, 'the next body reuses its buffer');
  const moved = new JsonBytes(movableBytes(1000));
  moved.release();
  t.throws(() => moved.bytes, /released/);
  t.ok(
    sharedBytes(1000).every((b) => b === 0),
    'a moved one is not kept: the next shared body gets fresh zeroes',
  );
});
