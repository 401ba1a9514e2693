import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../errors/request-errors.js';
import { secretNameSchema } from '../../contracts/secret-names.js';
import { secretValueSchema } from '../../secrets/secret-values.js';
import type { RedactionService } from '../../secrets/redaction-service.js';
import type { SecretService } from '../../secrets/secret-service.js';

const params = z.object({ name: secretNameSchema });
const setBody = z.object({ value: secretValueSchema });

export const secretInfoSchema = z.object({
  name: z.string(),
  set: z.boolean(),
  last_updated: z.string().nullable(),
});
const setResultSchema = z.object({
  name: z.string(),
  set: z.literal(true),
  warning: z.string().optional(),
});

export interface SecretRoutesOptions {
  secrets: SecretService;
  /** Every name declared by any script's `# @secrets:` header. */
  declaredNames: () => Promise<string[]>;
  /** This process's redactor, refreshed at once after a change (others follow via pub/sub). */
  redaction?: RedactionService;
}

/** `/api/secrets` (SPEC "Secrets"): metadata only; a value goes in and never comes back out. */
export const secretRoutes: FastifyPluginAsync<SecretRoutesOptions> = async (
  app,
  { secrets, declaredNames, redaction },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/secrets',
    { schema: { response: { 200: z.object({ secrets: z.array(secretInfoSchema) }) } } },
    async () => ({ secrets: await secrets.list(await declaredNames()) }),
  );

  r.post(
    '/secrets/:name',
    {
      config: { audit: 'secret.set' },
      schema: { params, body: setBody, response: { 200: setResultSchema } },
    },
    async (req) => {
      const result = await secrets.set(req.params.name, req.body.value);
      await redaction?.refresh();
      return result;
    },
  );

  r.delete(
    '/secrets/:name',
    { config: { audit: 'secret.delete' }, schema: { params } },
    async (req, reply) => {
      if (!(await secrets.delete(req.params.name))) {
        throw new NotFoundError(`secret ${req.params.name} not found`);
      }
      await redaction?.refresh();
      return reply.code(204).send();
    },
  );
};
