import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import { PaletteSchema } from '../contracts/palette.js';
import { loadConfig, planLimits } from '../config.js';
import { resolvePalette, type ResolvedPalette } from '../plan/palette.js';
import { VERSIONS } from '../scoring/versions.js';
import { RecordEvaluator } from '../audit/evaluate.js';
import { auditTables, renderMarkdown, renderText } from '../audit/render.js';
import { auditDocument, auditStream } from '../audit/run.js';
import { COMPLETION_FIELDS } from '../audit/record.js';
import { Progress } from './progress.js';
import { KEYS_USAGE, keysCommand } from './keys.js';
import { REDTEAM_USAGE, redteamCommand } from './redteam.js';
import { backupCommand, restoreCommand, STATE_USAGE } from './state.js';
import { commandArgs, UsageError } from './usage.js';

// The command-line shell: arguments, files, exit codes. Everything it reports is computed in src/audit/.

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

const USAGE = `Usage: plan-reward audit <plans.jsonl> [--out DIR] [--palette FILE] [--strict] [--quiet]

Scores every plan of a JSONL file with the service's static gate and raw soft rewards, and summarizes
rejections by reason, the topology of accepted plans and per-intent rewards.

  <plans.jsonl>    one JSON object a line: {"completion": text | plan, "profile"?, "query"?, "intent"?, "id"?}
                   (the completion may also be named ${COMPLETION_FIELDS.slice(1)
                     .map((f) => `"${f}"`)
                     .join(' or ')});
                   or a JSON array of such objects, or one pretty-printed object
  --out DIR        where summary.json, summary.md and records.jsonl go (default: <plans.jsonl>.audit/)
  --palette FILE   JSON tool palette replacing the default eight tools: [name | {name, description, phase}]
  --strict         gate on every violation (the MAP-PPL admission gate), as options.strict
  --quiet          no progress on stderr
  -h, --help       this text

Exit status: 0 when the audit completed (whatever the plans scored), 2 on a usage error, 1 on an I/O error.
`;

const ALL_USAGE = `${USAGE}\n${REDTEAM_USAGE}\n${KEYS_USAGE}\n${STATE_USAGE}`;
// After a usage error, the usage of the command it was made in: its one line of error stays in sight.
const USAGE_OF: Record<string, string> = { audit: USAGE, redteam: REDTEAM_USAGE, keys: KEYS_USAGE, backup: STATE_USAGE, restore: STATE_USAGE };
const COMMANDS = `Commands: ${Object.keys(USAGE_OF).join(', ')}; \`plan-reward <command> --help\` for one, \`plan-reward --help\` for all.\n`;

export interface CliIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stderrIsTTY: boolean;
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === '-h' || command === '--help' || command === 'help') {
      io.stdout.write(ALL_USAGE);
      return EXIT_OK;
    }
    if (command === undefined) throw new UsageError('missing command');
    if (command === 'redteam') {
      await redteamCommand(rest, io.stdout);
      return EXIT_OK;
    }
    if (command === 'keys') {
      await keysCommand(rest, io);
      return EXIT_OK;
    }
    if (command === 'backup' || command === 'restore') {
      (command === 'backup' ? backupCommand : restoreCommand)(rest, io.stdout);
      return EXIT_OK;
    }
    if (command !== 'audit') throw new UsageError(`unknown command "${command}"`);
    return await audit(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`plan-reward: ${err.message}\n\n${USAGE_OF[argv[0] ?? ''] ?? COMMANDS}`);
      return EXIT_USAGE;
    }
    io.stderr.write(`plan-reward: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
}

const auditArgs = (argv: readonly string[]) =>
  commandArgs(argv, {
    out: { type: 'string' },
    palette: { type: 'string' },
    strict: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });

async function audit(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = auditArgs(argv);
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (positionals.length === 0) throw new UsageError('missing input file');
  if (positionals.length > 1) throw new UsageError(`expected one input file, got ${positionals.length}: ${positionals.join(' ')}`);
  const input = positionals[0]!;
  const info = await stat(input).catch(() => null);
  if (!info) throw new UsageError(`input file not found: ${input}`);
  if (!info.isFile()) throw new UsageError(`input is not a file: ${input}`);

  const palette = values.palette === undefined ? resolvePalette(undefined) : await loadPalette(values.palette);
  const config = loadConfig();
  const limits = planLimits(config);
  const evaluator = new RecordEvaluator(palette, limits, { strict: values.strict, lambda_hard: config.LAMBDA_HARD, reward_profile: config.REWARD_PROFILE });

  const outDir = values.out ?? `${input}.audit`;
  await mkdir(outDir, { recursive: true });
  const format = await inputFormat(input);
  const records = createWriteStream(path.join(outDir, 'records.jsonl'));
  const stream = format === 'jsonl' ? createReadStream(input) : null;
  const progress = values.quiet
    ? null
    : new Progress(io.stderr, { tty: io.stderrIsTTY, totalBytes: info.size, bytesRead: () => stream?.bytesRead ?? info.size });

  const started = performance.now();
  const options = { evaluator, records, onProgress: (n: number) => progress?.update(n), progressEvery: 256 };
  const summary = stream ? await auditStream(stream, options) : await auditDocument(await readDocument(input), options);
  records.end();
  await finished(records);
  const seconds = (performance.now() - started) / 1000;
  progress?.done(summary.lines.total);

  const tables = auditTables(summary);
  const report = {
    input: { file: path.resolve(input), bytes: info.size, format },
    run: {
      seconds: round(seconds, 3),
      plans_per_second: Math.round(summary.lines.scored / Math.max(seconds, 1e-9)),
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    },
    options: {
      strict: values.strict,
      lambda_hard: config.LAMBDA_HARD,
      reward_profile: config.REWARD_PROFILE,
      limits,
      palette: { source: palette.source, tools: [...palette.tools.keys()] },
    },
    versions: VERSIONS,
    quantiles:
      'exact while a metric has ≤ 2048 distinct values (linear interpolation, numpy default); beyond, a log-bucketed sketch within 0.5 % relative error',
    ...summary,
  };
  await writeFile(path.join(outDir, 'summary.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(outDir, 'summary.md'), renderMarkdown(tables, `Plan audit: ${path.basename(input)}`));
  io.stdout.write(renderText(tables));
  io.stdout.write(`\nwrote ${path.join(outDir, 'summary.json')}, summary.md, records.jsonl (${summary.lines.scored} plans in ${seconds.toFixed(1)} s)\n`);
  return EXIT_OK;
}

/**
 * JSONL (one record a line), a JSON array of records, or one pretty-printed JSON object, told apart by the
 * first bytes: `[` starts an array; a first line that is `{` alone starts a pretty-printed object; any
 * other `{` starts JSONL, whose malformed lines are counted rather than fatal.
 */
async function inputFormat(file: string): Promise<'jsonl' | 'array' | 'document'> {
  const handle = await open(file);
  const head = Buffer.alloc(64 * 1024);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const text = head
    .subarray(0, bytesRead)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start === '') return 'jsonl';
  if (start.startsWith('[')) return 'array';
  if (start.startsWith('{')) return start.split('\n', 1)[0]!.trim() === '{' ? 'document' : 'jsonl';
  throw new UsageError(`${file} is not JSONL, a JSON array or a JSON object: it starts with ${JSON.stringify(start.slice(0, 20))}`);
}

async function readDocument(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

async function loadPalette(file: string): Promise<ResolvedPalette> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`palette file not found: ${file}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`palette file ${file} is not JSON: ${(err as Error).message}`);
  }
  // Accept the bare list or a request-shaped {"palette": [...]}, as POST /score-plan takes it.
  const list = json !== null && typeof json === 'object' && !Array.isArray(json) && 'palette' in json ? json.palette : json;
  const parsed = PaletteSchema.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`invalid palette in ${file} at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return resolvePalette(parsed.data);
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
