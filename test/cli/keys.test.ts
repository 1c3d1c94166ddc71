import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { newKey } from '../../src/cli/keys.js';
import { parseKeys } from '../../src/http/access.js';
import { tempStateDir } from '../support/app.js';
import { startService } from '../support/service.js';
import { tempDir } from '../support/temp.js';
import { cli } from './support.js';

const KEY = /^[A-Za-z0-9_-]{43}$/;

t.test('keys new --file: the key once on stdout, a scope:key line the service parses, the file 0600', async (t) => {
  const file = join(tempDir('keys-'), 'keys.txt');
  const admin = await cli(['keys', 'new', '--scope', 'admin', '--file', file]);
  t.equal(admin.code, 0, admin.stderr);
  const key = admin.stdout.trimEnd();
  t.match(key, KEY, 'stdout holds the key alone: 256 random bits, base64url');
  t.equal(admin.stderr.trimEnd().split('\n').length, 1, 'one line of hint');
  t.match(admin.stderr, /admin key above, shown only now, appended to .*keys\.txt: a service running with API_KEYS_FILE=.*keys\.txt takes it on SIGHUP/);
  t.notMatch(admin.stderr, new RegExp(key), 'the hint does not repeat the key');
  t.equal(await readFile(file, 'utf8'), `admin:${key}\n`);
  t.equal((await stat(file)).mode & 0o777, 0o600, 'created readable by its owner only');

  const read = await cli(['keys', 'new', '--scope', 'read', '--file', file]);
  t.equal(read.code, 0, read.stderr);
  t.not(read.stdout, admin.stdout, 'a new key each time');
  t.same(
    parseKeys('', file).map((k) => [k.scope, k.id]),
    [
      ['admin', 'key1'],
      ['read', 'key2'],
    ],
    'appended: both lines parse, with their scopes',
  );
});

t.test('keys new without --file prints the key and writes nothing', async (t) => {
  const r = await cli(['keys', 'new', '--scope', 'score']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout.trimEnd(), KEY);
  t.match(r.stderr, /score key above, shown only now: give it to the service as score:<key> in API_KEYS/);
  t.same(parseKeys(`score:${r.stdout.trimEnd()}`, undefined).length, 1, 'usable as an API_KEYS entry');
});

t.test('a file without a final newline gets one before the new line; an invalid file is left unchanged', async (t) => {
  const dir = tempDir('keys-');
  const file = join(dir, 'keys.txt');
  await writeFile(file, '# ops\nread:0123456789abcdef0123', { mode: 0o600 });
  const r = await cli(['keys', 'new', '--scope', 'score', '--file', file]);
  t.equal(r.code, 0, r.stderr);
  t.same(
    parseKeys('', file).map((k) => k.scope),
    ['read', 'score'],
  );

  const bad = join(dir, 'bad.txt');
  await writeFile(bad, 'root:0123456789abcdef0123\n', { mode: 0o600 });
  const refused = await cli(['keys', 'new', '--scope', 'admin', '--file', bad]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /bad\.txt is not a valid API_KEYS_FILE, left unchanged: API_KEYS: entry 1 must be scope:key/);
  t.equal(refused.stdout, '', 'no key shown that was not kept');
  t.equal(await readFile(bad, 'utf8'), 'root:0123456789abcdef0123\n');

  const open = join(dir, 'open.txt');
  await writeFile(open, '', { mode: 0o644 });
  const warned = await cli(['keys', 'new', '--scope', 'read', '--file', open]);
  t.equal(warned.code, 0, warned.stderr);
  t.match(warned.stderr, /warning: .*open\.txt is readable by others \(mode 644\): chmod 600/);
});

t.test('a wrong scope or command line exits 2 with a clear message, and writes nothing', async (t) => {
  const file = join(tempDir('keys-'), 'keys.txt');
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'new', '--scope', 'root', '--file', file], /keys new: --scope must be one of read, score, admin, not "root"/],
    [['keys', 'new', '--file', file], /keys new: --scope is required \(read, score, admin\)/],
    [['keys'], /keys: missing subcommand \(new\)/],
    [['keys', 'list'], /keys: unknown subcommand "list"/],
    [['keys', 'new', '--scope', 'admin', 'extra'], /keys new: unexpected argument extra/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, message);
    t.equal(r.stdout, '');
  }
  t.notOk(existsSync(file));
});

t.test('start-up names how many keys of each scope are loaded, never the keys; or that access is anonymous', async (t) => {
  const file = join(tempDir('keys-'), 'keys.txt');
  const made = [];
  for (const scope of ['admin', 'read', 'read']) made.push((await cli(['keys', 'new', '--scope', scope, '--file', file])).stdout.trimEnd());
  const keyed = await startService({ STATE_DIR: tempStateDir(), WORKERS: '1', API_KEYS_FILE: file });
  t.teardown(() => keyed.child.kill('SIGKILL'));
  t.match(
    keyed.lines.find((l) => l.msg === 'API keys loaded'),
    { keys: { read: 2, score: 0, admin: 1 } },
  );
  const logged = JSON.stringify(keyed.lines);
  for (const key of made) t.notOk(logged.includes(key), 'no key in the logs');
  t.equal((await fetch(`${keyed.base}/runs`)).status, 401);
  t.equal((await fetch(`${keyed.base}/runs`, { headers: { authorization: `Bearer ${made[0]}` } })).status, 200, 'the key made works');
  keyed.child.kill('SIGKILL');

  const open = await startService({ STATE_DIR: tempStateDir(), WORKERS: '1' });
  t.teardown(() => open.child.kill('SIGKILL'));
  t.match(
    open.lines.find((l) => l.msg === 'no API keys: every request is anonymous and allowed'),
    { anonymous: true },
  );
  t.notOk(
    open.lines.some((l) => l.msg === 'API keys loaded'),
    'no keys line',
  );
});

t.test('a key never starts with a dash, which a command line would read as an option', async (t) => {
  // A leading '-' comes once in 64 keys: among 4,096, one would show with odds of 1 − (63/64)^4096 (certain to 27 places).
  const keys = Array.from({ length: 4096 }, () => newKey());
  t.equal(keys.filter((k) => k.startsWith('-')).length, 0);
  t.ok(
    keys.every((k) => /^[\w-]{43}$/.test(k)),
    '43 base64url characters each',
  );
  t.equal(new Set(keys).size, keys.length, 'all different');
});
