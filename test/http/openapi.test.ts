import { readFile } from 'node:fs/promises';
import t from 'tap';
import { openApiDocument } from '../../src/http/openapi.js';

t.test('the committed openapi/openapi.json is what the route schemas generate (run `npm run openapi`)', async (t) => {
  const committed = await readFile(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
  const generated = await openApiDocument();
  t.equal(generated, committed);
  const doc = JSON.parse(generated);
  t.same(Object.keys(doc.paths).sort(), ['/dialogue/next', '/evaluate-dialogue', '/evaluate-plan', '/evaluate-text', '/evaluate-text/corpus', '/health', '/openrlhf/reward', '/ready', '/runs', '/runs/{id}', '/runs/{id}/finalize', '/runs/{id}/history', '/score-plan', '/trace-knowledge', '/trace-knowledge/fit', '/validate-plan', '/verify-turn']);
  t.ok(doc.components.schemas.VerifyTurnRequest.examples.length > 0);
  t.ok(doc.components.schemas.ScorePlanRequest.examples.length > 0, 'Swagger UI has a request to try');
});
