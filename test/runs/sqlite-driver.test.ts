import { dirname } from 'node:path';
import t from 'tap';
import { driverProblem } from '../../src/runs/sqlite-store.js';

// What Node.js 20 says loading the better-sqlite3 that `npm ci` built under Node 24 (captured on this machine),
// and what it says on the next try in the same process.
const BUILT_FOR_ANOTHER_NODE = Object.assign(
  new Error(
    "The module '/work/main/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
  ),
  { code: 'ERR_DLOPEN_FAILED' },
);
const NOT_REGISTERED = new Error("Module did not self-register: '/work/main/node_modules/better-sqlite3/build/Release/better_sqlite3.node'.");

t.test('a driver built for another Node is named as such, with the command, and the file is not blamed', async (t) => {
  for (const e of [BUILT_FOR_ANOTHER_NODE, NOT_REGISTERED]) {
    const said = driverProblem(e, null);
    t.match(said, /better-sqlite3\) was built for another Node\.js than this one/);
    t.match(said, /run `npm ci` with this Node/);
    t.match(said, /runs\.sqlite is not at fault and was left as it is/);
  }
  t.match(driverProblem(BUILT_FOR_ANOTHER_NODE, null), /NODE_MODULE_VERSION 137/, 'with what Node said, on one line');
  t.notMatch(driverProblem(BUILT_FOR_ANOTHER_NODE, null), /\n/);
});

t.test("npm's nodedir naming another Node's headers (as `npm start` passes it on): the command that builds against this one's", async (t) => {
  const home = dirname(dirname(process.execPath));
  const said = driverProblem(BUILT_FOR_ANOTHER_NODE, '/usr');
  t.match(said, "npm's nodedir is /usr, another Node's headers");
  t.ok(said!.includes(`\`npm_config_nodedir=${home} npm ci\``), said!);
  t.notMatch(driverProblem(BUILT_FOR_ANOTHER_NODE, home), /nodedir is/, "this Node's own home is no other Node's");
});

t.test('a damaged or foreign file is not a driver problem', async (t) => {
  t.equal(driverProblem(Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' })), null);
  t.equal(driverProblem(new Error('file is not a database')), null);
});
