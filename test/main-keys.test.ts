// SIGHUP reads the API keys again (issue 78): a key added to API_KEYS_FILE, or one deleted from it, takes
// effect without a restart; a file that cannot be used leaves the keys in force as they were.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { tempStateDir } from './support/app.js';
import { startService } from './support/service.js';

const FIRST = 'score-first-0123456789';
const ADDED = 'score-added-0123456789';

t.test('kill -HUP: an added key works, a deleted one stops working, a broken file changes nothing', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'keys.txt');
  writeFileSync(file, `score:${FIRST}\n`);
  const svc = await startService({ STATE_DIR: tempStateDir(), WORKERS: '1', API_KEYS_FILE: file });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const runs = (key: string) => fetch(`${svc.base}/runs`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
  const reloaded = async (msg: string) => {
    const seen = svc.lines.filter((l) => l.msg === msg).length;
    svc.child.kill('SIGHUP');
    return svc.waitForLine((l) => l.msg === msg && svc.lines.filter((x) => x.msg === msg).indexOf(l) === seen);
  };
  t.equal(await runs(FIRST), 200);
  t.equal(await runs(ADDED), 401, 'not a key yet');

  writeFileSync(file, `score:${FIRST}\nscore:${ADDED}\n`);
  t.match(await reloaded('API keys reloaded'), { keys: { read: 0, score: 2, admin: 0 } });
  t.equal(await runs(ADDED), 200, 'added, without a restart');

  writeFileSync(file, `score:${ADDED}\n`);
  await reloaded('API keys reloaded');
  t.equal(await runs(FIRST), 401, 'deleted from the file: revoked');

  writeFileSync(file, 'score:short\n');
  t.match(await reloaded('API keys not reloaded: the keys in force are unchanged'), { reason: /shorter than 16 characters/ });
  t.equal(await runs(ADDED), 200, 'the keys in force stay');
  t.equal(svc.child.exitCode, null);
});
