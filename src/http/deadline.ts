import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone, DeadlineExceeded } from '../common/errors.js';

/**
 * The signal that ends a request's work: its deadline (REQUEST_DEADLINE_MS, or a lower `deadline_ms` from
 * the body), counted from the request's arrival, or the client closing the connection first.
 */
export function requestSignal(req: FastifyRequest, reply: FastifyReply, serverMs: number, bodyMs?: number): AbortSignal {
  const deadlineMs = Math.min(serverMs, bodyMs ?? serverMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded(deadlineMs)), Math.max(0, deadlineMs - reply.elapsedTime));
  timer.unref();
  reply.raw.once('close', () => {
    clearTimeout(timer);
    if (!reply.raw.writableEnded) controller.abort(new ClientGone(`client closed the connection of ${req.method} ${req.url}`));
  });
  return controller.signal;
}
