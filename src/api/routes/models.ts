import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { modelRefSchema, type ModelsService } from '../../engine/models-service.js';

export const modelSchema = z.object({
  provider_id: z.string(),
  model_id: z.string(),
  context_limit: z.number().int(),
  output_limit: z.number().int(),
});

/** `/api/models`: the engine's models and the default for new sessions (SPEC "Models"). */
export const modelRoutes: FastifyPluginAsync<{ models: ModelsService }> = async (
  app,
  { models },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/models',
    {
      schema: {
        response: {
          200: z.object({ models: z.array(modelSchema), default: modelRefSchema.nullable() }),
        },
      },
    },
    async () => models.list(),
  );

  r.put(
    '/models/default',
    {
      schema: {
        body: modelRefSchema,
        response: { 200: z.object({ ok: z.literal(true), default: modelRefSchema }) },
      },
    },
    async (req) => models.setDefault(req.body),
  );
};
