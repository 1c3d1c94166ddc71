// The shared test files of part `rest` (test/support/shared-process.ts), in this one process.
import t from 'tap';
import { runShared } from '../support/shared-process.js';

const files = await runShared('rest');
t.ok(files.length > 0, `${files.length} files: ${files.join(', ')}`);
