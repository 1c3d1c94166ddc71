#!/usr/bin/env node
import { runCli } from './main.js';

// exitCode, not exit(): let stdout drain when it is a pipe.
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTTY: process.stderr.isTTY === true,
});
