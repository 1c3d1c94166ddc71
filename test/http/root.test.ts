import t from 'tap';
import { testApp } from '../support/app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const INDEX = { service: 'Tutor reward service', dashboard: '/dashboard/', docs: '/docs', openapi: '/docs/json', health: '/health', ready: '/ready' };

t.test('GET /: a browser is sent to the dashboard, an API client gets the index', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const browser = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
  t.equal(browser.statusCode, 302);
  t.equal(browser.headers.location, '/dashboard/');
  for (const accept of ['application/json', '*/*', undefined]) {
    const res = await app.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } });
    t.equal(res.statusCode, 200, `Accept: ${accept}`);
    t.match(res.headers['content-type'], /^application\/json/);
    t.same(res.json(), INDEX);
  }
  t.match((await app.inject({ method: 'GET', url: '/docs/' })).body, '<title>Tutor reward service · API docs</title>', 'Swagger UI names the product');
  // Every address it names answers.
  for (const path of Object.values(INDEX).filter((v) => v.startsWith('/'))) {
    const res = await app.inject({ method: 'GET', url: path });
    t.ok([200, 503].includes(res.statusCode), `${path}: ${res.statusCode}`);
  }
});

t.test('GET / needs no key, like the dashboard and Swagger UI it points to', async (t) => {
  const app = await testApp({ API_KEYS: 'read:read-key-0123456789abcdef' });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } })).statusCode, 302);
  t.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/runs' })).statusCode, 401, 'while the API still asks for one');
});
