// The shared test files of part `metrics` (test/support/shared-process.ts), in this one process.
import t from 'tap';
import { runShared } from '../support/shared-process.js';

const files = await runShared('metrics');
t.ok(files.length > 0, `${files.length} files: ${files.join(', ')}`);
