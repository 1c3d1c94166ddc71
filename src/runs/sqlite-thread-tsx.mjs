// The SQLite thread's entry when the service runs from source under tsx (see pool/worker-tsx.mjs).
import { register } from 'tsx/esm/api';

if (Number(process.versions.node.split('.')[0]) < 24) register();
await import('./sqlite-thread-worker.ts');
