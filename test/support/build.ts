// tap's `before` step: brings dist/ up to date (incremental: ~0.4 s when it is) for the processes the
// tests start (test/support/children.ts).
import { execFileSync } from 'node:child_process';
import { plainNode, ROOT } from './children.js';

execFileSync(...plainNode([`${ROOT}node_modules/typescript/bin/tsc`, '-b', `${ROOT}tsconfig.build.json`]), { stdio: 'inherit' });
