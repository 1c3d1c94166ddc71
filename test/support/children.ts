import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Processes the tests start run outside tap's coverage hooks, and the service and the CLI run the compiled
// build, as `npm start` and `npx plan-reward` do: a start under tsx with the hooks cost 3 s of CPU, from
// dist/ without them 0.9 s, and the suite starts several dozen. tap's `before` step (test/support/build.ts)
// brings dist/ up to date first. What those processes run is asserted by the tests that start them; it is
// not in the coverage figures.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `[command, args]` that run the compiled `dist/<rel>.js` (rel as under src/, without extension) in a
 * plain node. tap adds its hooks to every child's NODE_OPTIONS, whatever the environment given, so `env`
 * takes them out again.
 */
export function builtNode(rel: string, args: string[] = [], nodeArgs: string[] = []): [string, string[]] {
  const file = `${ROOT}dist/${rel}.js`;
  if (!existsSync(file)) throw new Error(`${file} is missing: run the tests through tap, whose before step builds dist/`);
  return plainNode([...nodeArgs, file, ...args]);
}

/** `[command, args]` that run node with `args`, without tap's hooks. */
export const plainNode = (args: string[]): [string, string[]] => ['env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', process.execPath, ...args]];
