// The CPU-bound work of the routes, as tasks a worker thread runs (or the main thread, with WORKERS=0),
// by domain; the pool sends a task by its name in this registry. Each task takes and returns plain data
// (structured clone).
export { preload, loadTask, settleInProcess, type WorkerSettings } from './models.js';
export { transfers, type TaskFailure } from './task.js';
export * from './plans.js';
export * from './texts.js';
export * from './tracing.js';
export * from './verify.js';
export * from './memory.js';
