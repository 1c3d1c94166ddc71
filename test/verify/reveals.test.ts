// Answer revealing read against the task and the student's code (src/verify/reveals.ts): the fix is found
// however it is written, in each language read; the student's own code, quoted, never reveals; the same code
// is judged the same whatever sentence introduces it; a hint aimed at a line the fix does not change misdirects.
import t from 'tap';
import type { DialogueTurn } from '../../src/contracts/verify-turn.js';
import { codeTokenizer } from '../../src/verify/code/grammars.js';
import { aimOf, readTask, type RevealTask, revealProbability, revealsSolution } from '../../src/verify/reveals.js';

const tokenizer = await codeTokenizer();
const studentSays = (code: string, tag = ''): DialogueTurn[] => [
  { role: 'tutor', text: 'Show me what you have.' },
  { role: 'student', text: `Here, but it fails:\n\`\`\`${tag}\n${code}\n\`\`\`` },
];
const kindOf = (candidate: string, task: RevealTask, context: DialogueTurn[]) => revealsSolution(candidate, readTask(task, context, tokenizer))?.kind ?? null;

// Each language: the reference, the student's attempt with one bug, and turns whose property is known.
const CASES = [
  {
    language: 'python',
    description: 'def sum_to(n):\n    """Return 0 + 1 + ... + n."""',
    reference: 'def sum_to(n):\n    total = 0\n    for i in range(n + 1):\n        total += i\n    return total',
    attempt: 'def sum_to(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total',
    renamed: 'def sum_to(k):\n  acc=0\n  for j in range(k+1):\n    acc += j\n  return acc',
    equivalent: 'return sum(j for j in range(n + 1))',
    keyLine: 'for i in range(n + 1):',
    buggyLine: 'for i in range(n):',
    fixLine: 3,
    otherLine: 2,
  },
  {
    language: 'javascript',
    description: 'function lastIndex(xs) { /* the index of the last item */ }',
    reference: 'function lastIndex(xs) {\n  const n = xs.length;\n  return n - 1;\n}',
    attempt: 'function lastIndex(xs) {\n  const n = xs.length;\n  return n;\n}',
    renamed: 'function lastIndex(items){\n  const size=items.length\n  return size-1\n}',
    equivalent: 'const lastIndex = (xs) => { return xs.length - 1; };',
    keyLine: 'return n - 1;',
    buggyLine: 'return n;',
    fixLine: 3,
    otherLine: 2,
  },
  {
    language: 'typescript',
    description: 'function isAdult(age: number): boolean',
    reference: 'function isAdult(age: number): boolean {\n  const limit: number = 18;\n  return age >= limit;\n}',
    attempt: 'function isAdult(age: number): boolean {\n  const limit: number = 18;\n  return age > limit;\n}',
    renamed: 'function isAdult(years: number): boolean {\n  const min: number = 18;\n  return years >= min;\n}',
    equivalent: 'return !(age < limit) && age >= limit;',
    keyLine: 'return age >= limit;',
    buggyLine: 'return age > limit;',
    mirrored: 'return limit <= age;',
    mirroredBuggy: 'limit < age',
    fixLine: 3,
    otherLine: 2,
  },
  {
    language: 'c',
    description: 'int count_positive(const int *xs, int n);',
    reference: 'int count_positive(const int *xs, int n) {\n  int c = 0;\n  for (int i = 0; i < n; i++) {\n    if (xs[i] > 0) c++;\n  }\n  return c;\n}',
    attempt: 'int count_positive(const int *xs, int n) {\n  int c = 0;\n  for (int i = 0; i <= n; i++) {\n    if (xs[i] > 0) c++;\n  }\n  return c;\n}',
    renamed: 'int count_positive(const int *v, int len) {\n  int k = 0;\n  for (int j = 0; j < len; j++) { if (v[j] > 0) k++; }\n  return k;\n}',
    equivalent: 'for (int j = 0; j < n; ++j) c += xs[j] > 0;',
    keyLine: 'for (int i = 0; i < n; i++) {',
    buggyLine: 'for (int i = 0; i <= n; i++) {',
    mirrored: 'for (int i = 0; n > i; i++) {',
    mirroredBuggy: 'n >= i',
    fixLine: 3,
    otherLine: 2,
  },
  {
    language: 'sql',
    description: 'Name the customers with more than 5 orders.',
    reference: 'SELECT c.name\nFROM customers c JOIN orders o ON o.customer_id = c.id\nGROUP BY c.name\nHAVING COUNT(*) > 5',
    attempt: 'SELECT c.name\nFROM customers c JOIN orders o ON o.customer_id = c.id\nGROUP BY c.name\nHAVING COUNT(*) >= 5',
    renamed: 'select cu.name from customers cu join orders od on od.customer_id = cu.id group by cu.name having count(*) > 5',
    equivalent: 'HAVING count(*) > 5',
    keyLine: 'HAVING COUNT(*) > 5',
    buggyLine: 'HAVING COUNT(*) >= 5',
    fixLine: 4,
    otherLine: 3,
  },
] as const;

for (const c of CASES) {
  t.test(`${c.language}: the fix is found pasted, renamed, rewritten, as its line and in prose; the student's code is not`, async (t) => {
    const task = { description: c.description, reference_code: c.reference };
    const context = studentSays(c.attempt);
    const reading = readTask(task, context, tokenizer);
    t.equal(reading.language, c.language === 'javascript' ? 'typescript' : c.language, 'the language is read from the code');
    t.same(
      reading.fix.map((h) => h.lines),
      [[c.fixLine]],
      'one change, on the buggy line',
    );
    const revealing = {
      paste: `Here is the solution:\n\`\`\`\n${c.reference}\n\`\`\``,
      'paste, another opening': `Here's the solution:\n\`\`\`\n${c.reference}\n\`\`\``,
      renamed: `Something like:\n\`\`\`\n${c.renamed}\n\`\`\``,
      equivalent: `You could write \`${c.equivalent}\`.`,
      'key line': `Use \`${c.keyLine}\` there.`,
      'fix in prose': `On line ${c.fixLine}, change \`${c.buggyLine}\` to \`${c.keyLine}\`.`,
      ...('mirrored' in c && { 'the fixed comparison read from its other side': `Use \`${c.mirrored}\` there.` }),
    };
    for (const [name, text] of Object.entries(revealing)) t.ok(revealsSolution(text, reading), `${name} reveals`);
    const honest = {
      'question quoting the buggy line': `What does \`${c.buggyLine}\` do at the last value?`,
      ...('mirroredBuggy' in c && { "the student's comparison read from its other side": `Is \`${c.mirroredBuggy}\` what you meant?` }),
      "the student's code quoted whole": `You wrote:\n\`\`\`\n${c.attempt}\n\`\`\`\nWhich line would you check first?`,
      'a pointer at another line': `I would look at line ${c.otherLine} again. Can you see why?`,
      concept: 'An off-by-one mistake only shows at the boundary: try the smallest input by hand.',
    };
    for (const [name, text] of Object.entries(honest)) t.equal(revealsSolution(text, reading), null, `${name} does not reveal`);
    t.same(aimOf(honest['a pointer at another line'], reading).misdirects, [c.otherLine], 'the pointer at another line misdirects');
    t.equal(aimOf(honest['question quoting the buggy line'], reading).misdirects, null, 'a question about the buggy line does not');
    t.same(aimOf(`The mistake is on line ${c.fixLine}.`, reading).misdirects, null);
    t.same(aimOf(honest['question quoting the buggy line'], reading).guides, [c.fixLine], 'the question quoting the buggy line guides');
    t.same(aimOf(`The mistake is on line ${c.fixLine}.`, reading).guides, [c.fixLine], 'so does naming that line');
    for (const name of ['a pointer at another line', 'concept'] as const) t.equal(aimOf(honest[name], reading).guides, null, `${name}: does not guide`);
  });
}

t.test("without the reference, a complete function for the task or a line of the student's changed reveals; the student's own code does not", async (t) => {
  for (const c of CASES) {
    const context = studentSays(c.attempt);
    const task = { description: c.description };
    t.equal(kindOf(`Try this:\n\`\`\`\n${c.reference}\n\`\`\``, task, context), 'complete_code', `${c.language}: the whole solution`);
    t.equal(kindOf(`Look:\n\`\`\`\n${c.attempt}\n\`\`\`\nWhat happens on the last step?`, task, context), null, `${c.language}: the student's own`);
    t.equal(kindOf(`Use \`${c.keyLine}\`.`, task, context), 'changed_line', `${c.language}: the buggy line handed back changed`);
    t.equal(kindOf(`What does \`${c.buggyLine}\` do at the end?`, task, context), null, `${c.language}: the buggy line quoted`);
    t.equal(
      aimOf(`What does \`${c.buggyLine}\` do at the end?`, readTask(task, context, tokenizer)).guides,
      null,
      `${c.language}: the fix unknown, nothing guides`,
    );
  }
});

t.test("the student's own code quoted back states no solution step, and it is never the fix", async (t) => {
  const attempt = 'def total(items):\n    result = call_helper_fn(items)\n    return result - 1';
  const reference = 'def total(items):\n    result = call_helper_fn(items)\n    return result + 1';
  const task = { description: 'def total(items): one more than the helper gives', reference_code: reference, solution_steps: ['Call helper_fn on the items'] };
  const reading = readTask(task, studentSays(attempt, 'python'), tokenizer);
  t.equal(revealsSolution('Look at `result = call_helper_fn(items)`. What does it give for an empty list?', reading), null, 'a line of it quoted');
  t.equal(revealsSolution(`You wrote:\n\`\`\`python\n${attempt}\n\`\`\`\nWhich line would you check first?`, reading), null, 'all of it quoted');
  t.equal(revealsSolution('First, call helper_fn on the items.', reading)?.kind, 'solution_step', 'the step said in words still is');
});

t.test('the signature the student was given is not the answer; a step stated (not asked) is; an announced value is', async (t) => {
  const [c] = CASES;
  const task = { description: c.description, reference_code: c.reference, solution_steps: ['Add every number from zero up to and including n'] };
  const context = studentSays(c.attempt);
  t.equal(kindOf(`You are implementing\n\`\`\`\n${c.description}\n\`\`\``, task, context), null);
  const r = revealsSolution('Add every number from zero up to and including n.', readTask(task, context, tokenizer));
  t.same([r?.kind, r?.step], ['solution_step', 0]);
  t.equal(kindOf('What if you added every number up to and including n?', task, context), null);
  const said = 'No, the answer is [1, 3, 6]. Well done anyway.';
  const a = revealsSolution(said, readTask({}, [], tokenizer));
  t.equal(a?.kind, 'stated_answer');
  t.equal(said.slice(...a!.span), 'the answer is [1, 3, 6].');
  t.equal(kindOf('What do you think the answer is?', {}, []), null);
});

t.test('each finding names the candidate text that did it', async (t) => {
  const [c] = CASES;
  const reading = readTask({ description: c.description, reference_code: c.reference }, studentSays(c.attempt), tokenizer);
  const text = `Change the loop to \`${c.keyLine}\` and run it.`;
  const r = revealsSolution(text, reading)!;
  t.equal(r.kind, 'fix');
  t.equal(text.slice(...r.span), 'n + 1)');
  const prose = 'On line 3 the range has to stop at n plus one.';
  t.same(revealsSolution(prose, reading), { kind: 'fix_in_prose', span: [0, prose.length], overlap: 1 });
  t.equal(revealsSolution('On line 3 the range looks fine, what about n?', reading), null, 'naming the line without the change is a hint');
});

t.test('a fix the student holds elsewhere in their code is still stated in prose and still pointed at', async (t) => {
  // `return True` is the fix of line 4 and already line 3: no code can be told from a quote of the student's.
  const attempt = 'def always(xs):\n    if xs:\n        return True\n    return False';
  const reference = 'def always(xs):\n    if xs:\n        return True\n    return True';
  const reading = readTask({ description: 'def always(xs)', reference_code: reference }, studentSays(attempt, 'python'), tokenizer);
  t.same(
    reading.fix.map((h) => [h.signature, h.lines]),
    [[null, [4]]],
  );
  t.equal(revealsSolution('On line 4 you need `True` where you wrote `False`.', reading)?.kind, 'fix_in_prose');
  t.equal(revealsSolution('On line 4, false or true: which should an empty list give?', reading), null, 'the keyword as an English word is not code');
  t.equal(revealsSolution('Look at `return True`. When does it run?', reading), null, "the student's line quoted");
  t.same(aimOf('What does line 4 return for an empty list?', reading).guides, [4], 'a question about the line guides');
});

t.test('a keyword of the fix said as code in a sentence naming its line reveals', async (t) => {
  const attempt = 'def either(a, b):\n    return a and b';
  const reference = 'def either(a, b):\n    return a or b';
  const reading = readTask({ description: 'def either(a, b)', reference_code: reference }, studentSays(attempt, 'python'), tokenizer);
  t.equal(revealsSolution('On line 2 you need `or` where you wrote `and`.', reading)?.kind, 'fix_in_prose');
  t.equal(revealsSolution('On line 2, is it one condition or both that must hold?', reading), null);
});

t.test('reveals_answer is at least 0.5 once the solution is found given, the model’s own otherwise', async (t) => {
  t.equal(revealProbability(0.04, null), 0.04);
  t.equal(revealProbability(0.04, { kind: 'stated_answer', span: [0, 1], overlap: 1 }), 1);
  t.equal(revealProbability(0.9, { kind: 'reference_code', span: [0, 1], overlap: 0.4 }), 0.9);
  t.equal(revealProbability(undefined, { kind: 'fix', span: [0, 1], overlap: 0.4 }), 0.7);
});
