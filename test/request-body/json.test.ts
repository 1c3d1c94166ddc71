import t from 'tap';
import { parse } from 'secure-json-parse';
import { benchBatch } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import { parseSecurely } from '../../src/request-body/json.js';

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
