// The shared test files of part `http` (test/support/shared-process.ts), in this one process.
import t from 'tap';
import { runShared } from '../support/shared-process.js';

const files = await runShared('http');
t.ok(files.length > 0, `${files.length} files: ${files.join(', ')}`);
