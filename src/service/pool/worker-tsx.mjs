// The pool worker's entry when the service runs from source under tsx (tests, `npm run dev`): on Node 20 a
// worker thread does not get tsx's module hooks from the parent's --import, so it registers them itself.
import { register } from 'tsx/esm/api';

register();
const { default: run } = await import('./worker.ts');
export default run;
