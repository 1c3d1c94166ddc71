// The knowledge-tracing tasks: a dialogue traced, and BKT parameters fitted from a log.
import { FitRequestSchema } from '../../contracts/trace-knowledge.js';
import { readJsonBody } from '../../request-body/json.js';
import { DeadlineExceeded, InvalidRequest } from '../../common/errors.js';
import { fitBySkill, FitStopped, type FitOptions, type FitResult } from '../../tracing/em.js';
import { traceKnowledge, type TraceInput } from '../../tracing/trace.js';
import { encoder } from './models.js';
import { task, utf8, type Stop } from './task.js';

export interface FitJsonInput {
  /** The request body as the client sent it, UTF-8. */
  json: Uint8Array;
  maxDepth: number;
  /** When the request arrived (Date.now()) and the server's deadline: the body may lower it. */
  arrivedAt: number;
  deadlineMs: number;
}

/** /trace-knowledge/fit from its body's bytes: decoded, read, validated and fitted here, so the main thread only passes them on. */
export function fitJsonTask(input: FitJsonInput, stop: Stop) {
  return task(stop, (): { rows: number; fits: [string, FitResult][] } => {
    const { rows, options = {} } = readJsonBody(utf8(input.json), FitRequestSchema, input.maxDepth);
    const deadlineMs = Math.min(input.deadlineMs, options.deadline_ms ?? input.deadlineMs);
    const fitOptions: FitOptions = {
      restarts: options.restarts,
      maxIterations: options.max_iterations,
      tolerance: options.tolerance,
      seed: options.seed,
      forgets: options.forgets,
      maxGuess: options.max_guess,
      maxSlip: options.max_slip,
      // The server's deadline also terminates this worker; a lower one from the body is only known here.
      stop: () => stop() || Date.now() - input.arrivedAt > deadlineMs,
    };
    try {
      return { rows: rows.length, fits: [...fitBySkill(rows, fitOptions)] };
    } catch (e) {
      if (e instanceof FitStopped) throw new DeadlineExceeded(deadlineMs);
      // The fit's documented signal for input that cannot be fitted (e.g. `order` on some rows only).
      throw e instanceof RangeError ? new InvalidRequest(e.message, [{ path: '$.rows', message: e.message }]) : e;
    }
  });
}

export function traceTask(input: Omit<TraceInput, 'embed'>, stop: Stop) {
  return task(stop, async () => {
    const e = await encoder();
    const result = await traceKnowledge({ ...input, embed: (texts) => e.embed(texts) });
    return { result, encoder: e.manifest.name };
  });
}
