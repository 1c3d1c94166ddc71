// Runs the shared test files of the part this file is named for (test/support/shared-process.ts).
import { runShared } from '../support/shared-process.js';

await runShared(import.meta.url);
