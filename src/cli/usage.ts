import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A wrong command line: the CLI prints the message and its usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command's arguments: its options and positionals, strictly; a wrong one is a UsageError. */
export function commandArgs<O extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true as const, strict: true as const, options });
  } catch (err) {
    // parseArgs names the offending flag ("Unknown option '--x'"); keep its wording.
    throw new UsageError((err as Error).message);
  }
}
