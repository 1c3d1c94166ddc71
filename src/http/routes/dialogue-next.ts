import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DialogueNextRequestSchema, DialogueNextResponseSchema } from '../../contracts/dialogue-next.js';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { nextNode } from '../../dialogue/interaction-manager.js';
import { normalizeRole } from '../../metrics/dialogue/conversation.js';

export const dialogueNextRoute: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/dialogue/next',
    {
      schema: {
        operationId: 'dialogueNext',
        tags: ['WikiHowAgent'],
        summary: "The interaction manager (WikiHowAgent's Algorithm 1): who speaks next, and the new state",
        body: DialogueNextRequestSchema,
        response: { 200: DialogueNextResponseSchema, 400: ErrorResponseSchema },
      },
    },
    async (req) => nextNode(req.body.state, { role: normalizeRole(req.body.last.role)!, text: req.body.last.text }),
  );
};
