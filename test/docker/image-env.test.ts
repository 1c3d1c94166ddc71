// The Docker image as far as this machine can check it without an engine: the built dist/ started the way
// the Dockerfile starts it — its final stage's environment, an unprivileged user, a working directory
// that user cannot write — keeps its run state on the declared volume and serves.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { plainNode, ROOT as repo } from '../support/children.js';
import { tempDir } from '../support/temp.js';

const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const imageEnv = Object.fromEntries(
  [...finalStage.matchAll(/^ENV (.+)$/gm)].flatMap((m) =>
    m[1]!
      .trim()
      .split(/\s+/)
      .map((kv) => kv.split('=') as [string, string]),
  ),
);
const volume = /^VOLUME (\S+)$/m.exec(finalStage)?.[1];
const cmd = JSON.parse(/^CMD (\[.+\])$/m.exec(finalStage)![1]!) as string[];
const workdir = /^WORKDIR (\S+)$/m.exec(finalStage)?.[1];

// Who runs the service. As root: `nobody` (the image's `node` user) where `nobody` can reach this checkout,
// and root without the capabilities that let root ignore file permissions (a read-only directory is
// read-only to it too), which is all a clone under a private directory (/root, 0700) allows; the tests run
// as each that applies. Otherwise, ourselves, in a directory made read-only, which is what a root-owned
// WORKDIR is to the image's user.
type Identity = { name: string; wrap: string[]; ids: { uid?: number; gid?: number } };
const PERMISSION_CAPS = '-dac_override,-dac_read_search,-fowner';
function identities(): Identity[] {
  if (userInfo().uid !== 0) return [{ name: 'this user', wrap: [], ids: {} }];
  const ids = {
    uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })),
  };
  const reaches = spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(join(repo, 'dist/main.js'))})`], ids).status === 0;
  const capless: Identity = { name: `root without ${PERMISSION_CAPS}`, wrap: ['setpriv', '--bounding-set', PERMISSION_CAPS, '--'], ids: {} };
  return reaches ? [{ name: 'nobody', wrap: [], ids }, capless] : [capless];
}

/** `[command, args, options]` that run node with `args` as `who`. */
function asImageUser(who: Identity, args: string[]): [string, string[], { uid?: number; gid?: number }] {
  const [command, argv] = plainNode(args);
  return who.wrap.length > 0 ? [who.wrap[0]!, [...who.wrap.slice(1), command, ...argv], who.ids] : [command, argv, who.ids];
}

function writableDir(who: Identity): string {
  const d = tempDir('image-data-');
  if (who.ids.uid !== undefined) chownSync(d, who.ids.uid, who.ids.gid!);
  return d;
}
function readOnlyWorkdir(): string {
  const d = tempDir('image-app-');
  chmodSync(d, 0o555);
  return d;
}

function start(who: Identity, env: Record<string, string>) {
  const [command, argv, user] = asImageUser(
    who,
    cmd.slice(1).map((a) => (a.startsWith('dist/') ? join(repo, a) : a)),
  );
  const child = spawn(command, argv, {
    cwd: readOnlyWorkdir(),
    env: { PATH: process.env.PATH!, ...env, PORT: '0', HOST: '127.0.0.1', WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...user,
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let stderr = '';
  const stdoutLines: string[] = [];
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdoutLines.push(line);
      const msg = String((JSON.parse(line) as { msg?: string }).msg ?? '');
      if (msg.startsWith('Server listening at ')) resolve(msg.slice('Server listening at '.length));
    });
    void exited.then((code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  return { child, exited, listening, output: () => `${stderr}\n${stdoutLines.slice(-5).join('\n')}` };
}

t.test('the final stage declares the state volume and points STATE_DIR at it', async (t) => {
  t.equal(cmd[0], 'node');
  t.equal(imageEnv.STATE_DIR, '/data');
  t.equal(volume, '/data');
  t.match(finalStage, /^USER node$/m);
  t.match(finalStage, /chown node:node \/data/);
});

for (const who of identities()) {
  t.test(`with the image's environment, as ${who.name} in a directory it cannot write: serves and keeps state on the volume`, async (t) => {
    const data = writableDir(who);
    const s = start(who, { ...imageEnv, STATE_DIR: data });
    t.teardown(() => s.child.kill('SIGKILL'));
    const base = await s.listening;
    for (let i = 0; ; i++) {
      const ready = await fetch(`${base}/ready`);
      if (ready.status === 200) break;
      if (i > 300) throw new Error('never ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const scored = await fetch(`${base}/score-plan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'img', step: 0 }),
    });
    t.equal(scored.status, 200);
    t.equal(((await scored.json()) as { run: { counted: boolean } }).run.counted, true);
    t.ok(existsSync(join(data, 'runs.sqlite')), 'run state is on the volume');
    s.child.kill('SIGTERM');
    t.equal(await s.exited, 0, `SIGTERM drains and exits 0: ${s.output()}`);

    // `plan-reward backup` as `docker compose exec` runs it: through the image's link on the PATH, with its environment.
    const [command, argv, user] = asImageUser(who, [planRewardLink(), 'backup', join(data, 'backup.sqlite')]);
    const backup = spawnSync(command, argv, {
      cwd: readOnlyWorkdir(),
      env: { PATH: process.env.PATH!, ...imageEnv, STATE_DIR: data },
      encoding: 'utf8',
      ...user,
    });
    t.equal(backup.status, 0, backup.stderr);
    t.match(backup.stdout, /^backed up .*runs\.sqlite to .*backup\.sqlite \(1 runs\)$/m);
  });
}

/** The image's `plan-reward` link, made here to this checkout's bin/ (the image's WORKDIR). */
function planRewardLink(): string {
  const [target, link] = /ln -s (\S+) (\S+)/.exec(finalStage)!.slice(1) as [string, string];
  const dir = tempDir('image-bin-');
  chmodSync(dir, 0o755);
  const here = join(dir, link.split('/').at(-1)!);
  symlinkSync(join(repo, target.slice(`${workdir}/`.length)), here);
  return here;
}

t.test('plan-reward is on the PATH: a link to the bin/ the final stage copies', async (t) => {
  t.match(finalStage, /^COPY bin \.\/bin$/m);
  t.match(/ln -s (\S+) (\S+)/.exec(finalStage)?.slice(1), [`${workdir}/bin/plan-reward.js`, '/usr/local/bin/plan-reward']);
  const key = spawnSync(...plainNode([planRewardLink(), 'keys', 'new', '--scope', 'read']), {
    env: { PATH: process.env.PATH!, ...imageEnv },
    encoding: 'utf8',
  });
  t.equal(key.status, 0, key.stderr);
  t.match(key.stdout, /^[A-Za-z0-9_-]{43}\n$/);
});

for (const who of identities()) {
  t.test(`without the volume (STATE_DIR left at ./state in the read-only WORKDIR), as ${who.name}, it refuses to start, saying why`, async (t) => {
    const env = { ...imageEnv };
    delete env.STATE_DIR;
    const s = start(who, env);
    t.teardown(() => s.child.kill('SIGKILL'));
    await t.rejects(s.listening);
    t.not(await s.exited, 0);
    t.match(s.output(), /cannot keep run state in \.\/state \(STATE_DIR.*EACCES/);
  });
}
