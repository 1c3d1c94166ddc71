import t from 'tap';
import { parseLine } from '../../src/audit/record.js';

t.test('a record with every field', async (t) => {
  const r = parseLine(JSON.stringify({ id: 7, completion: '{}', profile: { tags: ['go'] }, query: 'q', intent: 'learn' }), 3);
  t.same(r, { kind: 'record', record: { line: 3, id: 7, completion: '{}', profile: { tags: ['go'] }, query: 'q', intent: 'learn' } });
});

t.test('the completion may be named completion, plan or output; the first present wins', async (t) => {
  const get = (o: object) => {
    const r = parseLine(JSON.stringify(o), 1);
    return r.kind === 'record' ? r.record.completion : r;
  };
  t.equal(get({ plan: 'p' }), 'p');
  t.equal(get({ output: 'o' }), 'o');
  t.equal(get({ output: 'o', plan: 'p', completion: 'c' }), 'c');
  t.equal(get({ completion: null }), null, 'a null completion is scored (and gated as unparseable), not malformed');
});

t.test('malformed lines say why; blank lines are blank', async (t) => {
  const reason = (text: string) => {
    const r = parseLine(text, 5);
    return r.kind === 'malformed' ? r.reason : r.kind;
  };
  t.equal(reason('   '), 'blank');
  t.match(reason('{"completion": '), /^invalid JSON: /);
  t.equal(reason('"text"'), 'not a JSON object');
  t.equal(reason('null'), 'not a JSON object');
  t.equal(reason('[]'), 'not a JSON object');
  t.match(reason('{"id": 1}'), /^no completion/);
  t.match(reason('{"completion": "x", "profile": 42}'), /^invalid profile: /);
  t.equal(reason('{"completion": "x", "intent": 3}'), '"intent" must be a string');
  t.equal(reason('{"completion": "x", "query": {}}'), '"query" must be a string');
});

t.test('a null profile or intent counts as absent; an id of another type is dropped', async (t) => {
  const r = parseLine('{"completion": "x", "profile": null, "intent": null, "id": {"a": 1}}', 1);
  t.same(r, { kind: 'record', record: { line: 1, id: null, completion: 'x', profile: undefined, query: undefined, intent: undefined } });
});
