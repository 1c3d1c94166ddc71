import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { parseKeys, type Scope, SCOPES } from '../http/access.js';
import { commandArgs, UsageError } from './usage.js';

export const KEYS_USAGE = `Usage: plan-reward keys new --scope ${SCOPES.join('|')} [--file PATH]

Makes a random API key (256 bits, base64url, never starting with '-') and prints it once, on stdout alone (a hint goes to stderr):
the service never shows or logs a key, so keep it now.

  --scope S        ${SCOPES.join(', ')}: what the key may call (docs/production.md, Keys and scopes)
  --file PATH      also append the line scope:key to PATH, an API_KEYS_FILE (created readable by its owner only)
`;

type Out = { write(s: string): unknown };

const args = (argv: readonly string[]) =>
  commandArgs(argv, {
    scope: { type: 'string' },
    file: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });

/** 256 random bits, base64url; never with a leading '-', which a command line would take for an option. */
export function newKey(): string {
  for (;;) {
    const key = randomBytes(32).toString('base64url');
    if (!key.startsWith('-')) return key;
  }
}

const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

export async function keysCommand(argv: readonly string[], io: { stdout: Out; stderr: Out }): Promise<void> {
  const { values, positionals } = args(argv);
  if (values.help) {
    io.stdout.write(KEYS_USAGE);
    return;
  }
  const [sub, ...extra] = positionals;
  if (sub !== 'new') throw new UsageError(sub === undefined ? 'keys: missing subcommand (new)' : `keys: unknown subcommand "${sub}"`);
  if (extra.length > 0) throw new UsageError(`keys new: unexpected argument ${extra.join(' ')}`);
  if (values.scope === undefined) throw new UsageError(`keys new: --scope is required (${SCOPES.join(', ')})`);
  if (!isScope(values.scope)) throw new UsageError(`keys new: --scope must be one of ${SCOPES.join(', ')}, not "${values.scope}"`);
  const key = newKey();
  if (values.file !== undefined) await appendKey(values.file, values.scope, key, io.stderr);
  io.stdout.write(`${key}\n`);
  io.stderr.write(
    values.file === undefined
      ? `${values.scope} key above, shown only now: give it to the service as ${values.scope}:<key> in API_KEYS or an API_KEYS_FILE line; clients send Authorization: Bearer <key>\n`
      : `${values.scope} key above, shown only now, appended to ${values.file}: a service running with API_KEYS_FILE=${values.file} takes it on SIGHUP (kill -HUP <pid>), or start one so; clients send Authorization: Bearer <key>\n`,
  );
}

/** Appends `scope:key` to an API_KEYS_FILE, created 0600; a file the service would refuse is left untouched. */
async function appendKey(file: string, scope: Scope, key: string, stderr: Out): Promise<void> {
  let separator = '';
  if (existsSync(file)) {
    try {
      parseKeys('', file);
    } catch (e) {
      throw new Error(`${file} is not a valid API_KEYS_FILE, left unchanged: ${(e as Error).message}`);
    }
    const { mode, size } = await stat(file);
    if ((mode & 0o077) !== 0) stderr.write(`warning: ${file} is readable by others (mode ${(mode & 0o777).toString(8)}): chmod 600 ${file}\n`);
    // A last line without its newline would otherwise run into the new one.
    if (size > 0 && !(await readFile(file, 'utf8')).endsWith('\n')) separator = '\n';
  }
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.appendFile(`${separator}${scope}:${key}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
