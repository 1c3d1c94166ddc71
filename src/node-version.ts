import { readFileSync } from 'node:fs';

// The first import of main.ts: ES modules run in import order, so on a Node.js too old for the service this
// is what the operator reads, not the stack of whatever failed first (issue 78). The minimum is package.json's
// engines.node, the one place it is written.

/** The one line that gets 24 LTS and builds native modules against its headers (README, "Two commands"). */
export const GET_LTS = 'home=$(bash scripts/node-lts.sh) && export PATH="$home/bin:$PATH" npm_config_nodedir="$home"';

/** Why `version` (e.g. "20.20.2") cannot run the service whose engines field is `engines` (">=22.13"), or null. */
export function nodeTooOld(version: string, engines: string): string | null {
  const min = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines);
  if (!min) throw new Error(`package.json engines.node is "${engines}", not ">=MAJOR.MINOR"`);
  const [major, minor] = version.split('.').map(Number) as [number, number];
  const [needMajor, needMinor] = [Number(min[1]), Number(min[2] ?? 0)];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return (
    `Node.js ${version} is too old: the service needs ${needMajor}.${needMinor} or later (24 LTS is what CI tests). ` +
    `Get it with \`${GET_LTS}\`, then run \`npm ci\` again (its native modules are built for the Node that installs them) and \`npm start\``
  );
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const tooOld = nodeTooOld(process.versions.node, pkg.engines.node);
if (tooOld) {
  process.stderr.write(`tutor-reward: cannot start: ${tooOld}\n`);
  process.exit(1);
}
