import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone, DeadlineExceeded } from '../common/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Aborted (with ShuttingDown) when a shutdown's grace period is nearly over: every request's work ends. */
    closing: AbortController;
  }
}

/**
 * The signal that ends a request's work: its deadline (REQUEST_DEADLINE_MS, or a lower `deadline_ms` from
 * the body), counted from the request's arrival, the client closing the connection first, or the end of a
 * shutdown's grace period.
 */
export function requestSignal(req: FastifyRequest, reply: FastifyReply, serverMs: number, bodyMs?: number): AbortSignal {
  const deadlineMs = Math.min(serverMs, bodyMs ?? serverMs);
  const controller = new AbortController();
  const closing = req.server.closing.signal;
  const onClosing = () => controller.abort(closing.reason);
  if (closing.aborted) onClosing();
  else closing.addEventListener('abort', onClosing, { once: true });
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded(deadlineMs)), Math.max(0, deadlineMs - reply.elapsedTime));
  timer.unref();
  reply.raw.once('close', () => {
    clearTimeout(timer);
    closing.removeEventListener('abort', onClosing);
    if (!reply.raw.writableEnded) controller.abort(new ClientGone(`client closed the connection of ${req.method} ${req.url}`));
  });
  return controller.signal;
}
