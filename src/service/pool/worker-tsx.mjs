// The pool worker's entry when the service runs from source under tsx (tests, `npm run dev`). On Node 20 a
// worker thread does not get tsx's module hooks from the parent's --import, so it registers them itself; Node
// 24 passes them on, and registering them a second time transforms each source twice, which leaves the
// workers' coverage mapped to the wrong functions.
import { register } from 'tsx/esm/api';

if (Number(process.versions.node.split('.')[0]) < 24) register();
const { default: run } = await import('./worker.ts');
export default run;
