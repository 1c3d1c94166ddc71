import t from 'tap';
import { profileSignals } from '../../../src/rewards/personalization/signals.js';

const ids = (p: Parameters<typeof profileSignals>[0]) => profileSignals(p).map((s) => s.id);

t.test('tags, skills and explicit signals resolve through lexicon aliases', async (t) => {
  t.same(ids({ tags: ['js', 'objc', 'c#', 'postgres'] }), ['javascript', 'objective-c', 'csharp', 'postgresql']);
  t.same(ids({ tags: ['JavaScript', 'Objective-C', 'csharp', 'PostgreSQL'] }), ['javascript', 'objective-c', 'csharp', 'postgresql']);
  t.same(ids({ skills: 'C++, node.js; .NET' }), ['cpp', 'nodejs', 'dotnet']);
});

t.test('Stack Overflow style tag strings split on spaces; skills split only on , ; |', async (t) => {
  t.same(ids({ tags: 'python machine-learning' }), ['python', 'machine-learning']);
  t.same(ids({ skills: 'data analysis' }), ['data-science']);
});

t.test('unknown tags become phrase signals; duplicates merge their sources', async (t) => {
  const s = profileSignals({ tags: ['python', 'Regular-Expressions', 'bayesian stats'], skills: ['Python'], about_me: 'I write python daily' });
  t.same(
    s.map((x) => [x.id, x.sources]),
    [
      ['python', ['tag', 'skill', 'text']],
      ['regex', ['tag']],
      ['bayesian stats', ['tag']],
    ],
  );
  t.same(s[2]!.phrases, ['bayesian stats']);
});

t.test('free text: lexicon terms only, whole words, ambiguous names ignored', async (t) => {
  t.same(ids('I go to the gym, then write Golang and some C at work; learning Java, not JavaScript.'), ['go', 'java', 'javascript']);
  t.same(ids({ about_me: 'Teacher moving to web development', goals: ['learn React Native', 'ship an app'] }), [
    'education',
    'web-development',
    'react-native',
  ]);
  t.same(ids({ tags: ['go', 'r'] }), ['go', 'r'], 'a tag may use the ambiguous name');
  t.same(ids('machine_learning with node-js for web   development'), ['machine-learning', 'nodejs', 'web-development'], 'separators are flexible');
  t.same(ids('csharpish javascripty postgresql9'), [], 'no partial words');
});

t.test('explicit signals', async (t) => {
  const s = profileSignals({ signals: ['visual explanations', 'TypeScript'] });
  t.same(
    s.map((x) => [x.id, x.sources]),
    [
      ['visual explanations', ['signal']],
      ['typescript', ['signal']],
    ],
  );
});

t.test('empty profiles give no signals', async (t) => {
  t.same(ids(''), []);
  t.same(ids({}), []);
  t.same(ids({ tags: [' ', ''], skills: '' }), []);
});
