// The architecture as rules (.dependency-cruiser.json: no cycles, contracts import only contracts, the
// domain knows nothing of HTTP), and no two folders of src importing each other.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { DirectedGraph } from 'graphology';
import { hasCycle } from 'graphology-dag';
import t from 'tap';
import { plainNode } from './support/children.js';

interface Cruise {
  modules: { source: string; dependencies: { resolved: string; coreModule: boolean; couldNotResolve: boolean }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number };
}

const root = new URL('..', import.meta.url);
const run = promisify(execFile);
const { stdout } = await run(
  ...plainNode(['node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', '--config', '.dependency-cruiser.json', '--output-type', 'json']),
  {
    cwd: root,
    maxBuffer: 64 << 20,
  },
).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' })); // violations exit non-zero; the JSON says which
const cruise = JSON.parse(stdout) as Cruise;

t.test('every source file is cruised and every import resolves', async (t) => {
  const files = (await readdir(new URL('src', root), { recursive: true })).filter((f) => f.endsWith('.ts'));
  t.equal(cruise.modules.filter((m) => m.source.startsWith('src/') && m.source.endsWith('.ts')).length, files.length);
  const unresolved = cruise.modules.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} → ${d.resolved}`));
  t.same(unresolved, []);
});

t.test('no rule of .dependency-cruiser.json is broken', async (t) => {
  const broken = cruise.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`);
  t.same(broken, []);
});

t.test('the folders of src import each other without a cycle', async (t) => {
  const folder = (path: string) => /^src\/([^/]+)\//.exec(path)?.[1] ?? null;
  const g = new DirectedGraph();
  for (const m of cruise.modules) {
    const from = folder(m.source);
    if (from === null) continue;
    for (const d of m.dependencies) {
      const to = folder(d.resolved);
      if (to === null || to === from) continue;
      g.mergeNode(from);
      g.mergeNode(to);
      g.mergeEdge(from, to);
    }
  }
  t.ok(g.order > 10, `${g.order} folders`);
  const mutual = g
    .edges()
    .filter((e) => g.hasEdge(g.target(e), g.source(e)))
    .map((e) => `${g.source(e)} ↔ ${g.target(e)}`);
  t.same(mutual, [], 'no two folders import each other');
  t.notOk(hasCycle(g), 'nor does any longer chain of folders');
});
