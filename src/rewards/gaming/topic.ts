import { LEXICON } from '../personalization/lexicon.js';
import { stem } from './text.js';

// What makes a step's text about programming whatever the query says: the lexicon's technology terms and
// the words programming lessons are made of. A step that names none of these nor anything of the query is
// about something else, however many profile keywords and cues it carries.
export const PROGRAMMING_WORDS = (
  'code coding function functions method variable variables loop loops class classes object objects array arrays list lists ' +
  'dict dictionary map string strings integer boolean file files folder directory module package library ' +
  'import export test tests testing assert assertion error errors exception bug bugs stack trace log logs output input print ' +
  'return data dataset query queries column columns row rows index ' +
  'schema server client request response endpoint endpoints http json csv yaml xml url container image volume volumes command ' +
  'terminal shell script program programs compile compiler build runtime execute commit branch merge rebase repository repo ' +
  'version pattern syntax thread threads async await callback promise handler state hook component ' +
  'render prop props css layout element memory pointer reference recursion recursive algorithm complexity performance ' +
  'cache deploy config configuration environment dependency dependencies framework snippet notebook sandbox editor ide refactor ' +
  'debugger breakpoint parameter parameters argument arguments signature interface struct enum generic generics lambda closure ' +
  'iterator generator collection collections stream streams pipeline migration model models orm sql api cli git docker ' +
  'concurrency goroutine channel mutex deadlock borrow ownership lifetime compiler linter formatter unit fixture mock ' +
  'regex group groups capture parse parser parsing token tokens algorithmic ' +
  'repo boilerplate template pivot reshape aggregate filter sort join'
).split(' ');

const TOPIC = new Set<string>([
  ...PROGRAMMING_WORDS.map(stem),
  // One-word aliases only: a word of "hash table" or "machine learning" is not programming by itself.
  ...LEXICON.flatMap((e) => e.aliases)
    .filter((a) => /^[a-z0-9+#.]+$/i.test(a) && a.length > 1)
    .map((a) => stem(a.toLowerCase())),
]);

/** Whether a word, by its stem, is a programming word by itself. */
export const isProgrammingStem = (s: string): boolean => TOPIC.has(s);
