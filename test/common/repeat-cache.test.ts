import t from 'tap';
import { RepeatCache } from '../../src/common/repeat-cache.js';

t.test('a reading is kept from its text’s second sighting on, and memory stays bounded', async (t) => {
  const reads: string[] = [];
  const cache = new RepeatCache<{ text: string }>(3);
  const read = (text: string) => {
    reads.push(text);
    return { text };
  };
  const first = cache.get('a', read);
  const second = cache.get('a', read);
  t.not(first, second, 'a text seen once leaves no reading behind');
  t.same(second, { text: 'a' });
  t.equal(cache.get('a', read), second, 'the reading of a repeated text is kept');
  t.same(reads, ['a', 'a']);
  // Three more texts, each twice: the fourth kept reading clears the others.
  for (const text of ['b', 'c', 'd']) for (let i = 0; i < 2; i++) cache.get(text, read);
  const before = reads.length;
  t.equal(cache.get('d', read).text, 'd');
  t.equal(reads.length, before, 'the newest reading is kept');
  cache.get('a', read);
  t.equal(reads.length, before + 1, 'an older one was dropped when the cache was full');
});
