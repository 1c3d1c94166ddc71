// Rate limits on PostgreSQL are one count for all the replicas (issue 78): before, each process counted in its
// own memory and N replicas let a key make N times its limit.
import t from 'tap';
import { tempStateDir, testApp } from '../support/app.js';
import { freshPostgresUrl } from '../support/stores.js';

const KEY = 'score-0123456789abcdef';

t.test('two replicas on one PostgreSQL: a key gets RATE_LIMIT_MAX requests in all, whichever replica takes each', async (t) => {
  const url = await freshPostgresUrl();
  const replica = () => testApp({ STATE_URL: url, STATE_DIR: tempStateDir(), API_KEYS: `score:${KEY}`, RATE_LIMIT_MAX: 5 });
  const [a, b] = [await replica(), await replica()];
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await (i % 2 === 0 ? a : b).inject({ method: 'GET', url: '/runs', headers: { authorization: `Bearer ${KEY}` } });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) t.match(res.headers['retry-after'], /^\d+$/);
  }
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
  const other = await a.inject({ method: 'GET', url: '/runs' });
  t.equal(other.statusCode, 401, 'another caller has its own count');
});
