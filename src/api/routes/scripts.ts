import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { NotFoundError } from '../../errors/request-errors.js';
import { unifiedDiff } from '../../scripts/diff.js';
import { commitPattern } from '../../contracts/script-hashes.js';
import { refusalError, type RunCheck, type ScriptRunner } from '../../scripts/script-runner.js';
import type { ScriptService } from '../../scripts/script-service.js';
import { scriptDetailSchema } from '../../scripts/script-schema.js';
import { toDetail, toListEntry } from '../../scripts/script-views.js';
import { redactDeep } from '../../secrets/redact-deep.js';
import { isRefused, redactRunResult } from '../../queue/script-runs.js';
import {
  approveBody,
  approvedSchema,
  changedSchema,
  commitParams,
  createBody,
  diffQuery,
  diffSchema,
  nameParams,
  rejectBody,
  rejectedSchema,
  restoredSchema,
  runResultSchema,
  scriptListSchema,
  testBody,
  updateBody,
  versionListSchema,
  versionSourceSchema,
} from './scripts/schemas.js';
import { channelOf } from '../plugins/audit-trail.js';

/** The authenticated administrator; the guard sets `request.user` on protected routes. */
function actor(request: FastifyRequest): string {
  const user = (request as unknown as { user?: { username?: unknown } }).user;
  return typeof user?.username === 'string' ? user.username : 'admin';
}

export interface ScriptRoutesOptions {
  scripts: ScriptService;
  runner: ScriptRunner;
  /** This process's redaction: a run's result leaves Steward here. */
  redact: (text: string) => string;
}

export const scriptRoutes: FastifyPluginAsync<ScriptRoutesOptions> = async (
  app,
  { scripts, runner, redact },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // approve/delete are often sent with a JSON content type and no body; that is not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      const err = Object.assign(new Error('request body is not valid JSON'), {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      });
      done(err, undefined);
    }
  });

  const version = async (name: string, commit: string) => {
    await scripts.mustGet(name);
    const found = commitPattern.test(commit) ? await scripts.version(name, commit) : null;
    if (!found) throw new NotFoundError(`script ${name} has no version ${commit}`);
    return found;
  };

  r.get('/scripts', { schema: { response: { 200: scriptListSchema } } }, async () => ({
    scripts: (await scripts.list()).map(toListEntry),
  }));

  r.get(
    '/scripts/:name',
    { schema: { params: nameParams, response: { 200: scriptDetailSchema } } },
    async (req) => {
      const record = await scripts.mustGet(req.params.name);
      const [history, approvedVersion] = await Promise.all([
        scripts.executionHistory(record.name),
        scripts.approvedVersion(record),
      ]);
      return toDetail(record, history, approvedVersion);
    },
  );

  r.post(
    '/scripts',
    { schema: { body: createBody, response: { 201: changedSchema } } },
    async (req, reply) => {
      const record = await scripts.create(
        req.body.name,
        req.body.source,
        actor(req),
        undefined,
        channelOf(req),
      );
      return reply.code(201).send({ name: record.name, status: record.status, hash: record.hash });
    },
  );

  r.put(
    '/scripts/:name',
    { schema: { params: nameParams, body: updateBody, response: { 200: changedSchema } } },
    async (req) => {
      const record = await scripts.update(
        req.params.name,
        req.body.source,
        actor(req),
        undefined,
        channelOf(req),
      );
      return { name: record.name, status: record.status, hash: record.hash };
    },
  );

  r.delete('/scripts/:name', { schema: { params: nameParams } }, async (req, reply) => {
    await scripts.remove(req.params.name, actor(req), channelOf(req));
    return reply.code(204).send();
  });

  r.post(
    '/scripts/:name/approve',
    {
      schema: {
        params: nameParams,
        body: approveBody,
        response: { 200: approvedSchema },
      },
    },
    async (req) => {
      const record = await scripts.approve(
        req.params.name,
        actor(req),
        req.body?.hash,
        channelOf(req),
      );
      return {
        name: record.name,
        status: 'approved' as const,
        approved_at: record.approved_at ?? '',
        approved_by: record.approved_by ?? '',
      };
    },
  );

  r.post(
    '/scripts/:name/reject',
    {
      schema: {
        params: nameParams,
        body: rejectBody,
        response: { 200: rejectedSchema },
      },
    },
    async (req) => {
      const record = await scripts.reject(
        req.params.name,
        actor(req),
        req.body.reason,
        undefined,
        channelOf(req),
      );
      return {
        name: record.name,
        status: 'rejected' as const,
        rejected_at: record.rejected_at ?? '',
        rejected_by: record.rejected_by ?? '',
        reason: record.reason ?? '',
      };
    },
  );

  // A run's checks only read (the record, the file's hash), so they start once the guards have
  // let the request in, beside its rate-limit count: their round trip overlaps the count's
  // instead of following it. The handler, reached only when the count allows the request,
  // awaits them; a request refused before it leaves them unread.
  const checks = new WeakMap<FastifyRequest, Promise<RunCheck>>();
  const startCheck = (req: FastifyRequest) => {
    const params = nameParams.safeParse(req.params);
    if (!params.success) return;
    const check = runner.check(params.data.name);
    check.catch(() => {});
    checks.set(req, check);
  };
  r.post(
    '/scripts/:name/test',
    {
      schema: { params: nameParams, body: testBody, response: { 200: runResultSchema } },
      onRequest: (req, _reply, done) => {
        startCheck(req);
        done();
      },
    },
    async (req) => {
      const outcome = await runner.run(
        {
          name: req.params.name,
          args: req.body?.args ?? {},
          ...(req.body?.function !== undefined ? { function: req.body.function } : {}),
          origin: 'api',
        },
        checks.get(req),
      );
      if (isRefused(outcome)) throw refusalError(req.params.name, outcome);
      // The worker redacted with its secret set; this one may know a secret set since.
      return redactRunResult(outcome, (value) => redactDeep(value, redact));
    },
  );

  r.get(
    '/scripts/:name/history',
    {
      schema: {
        params: nameParams,
        response: { 200: versionListSchema },
      },
    },
    async (req) => ({ versions: await scripts.versions(req.params.name) }),
  );

  r.get(
    '/scripts/:name/history/:commit',
    {
      schema: {
        params: commitParams,
        response: { 200: versionSourceSchema },
      },
    },
    async (req) => {
      const found = await version(req.params.name, req.params.commit);
      return { commit: found.commit, source: found.source };
    },
  );

  r.get(
    '/scripts/:name/diff',
    {
      schema: {
        params: nameParams,
        querystring: diffQuery,
        response: { 200: diffSchema },
      },
    },
    async (req) => {
      const { name } = req.params;
      const record = await scripts.mustGet(name);
      // Without `to` the current version; without `from` the one before `to`.
      const toCommit = req.query.to ?? record.head;
      let fromCommit = req.query.from;
      if (fromCommit === undefined) {
        const commits = (await scripts.versions(name)).map((v) => v.commit);
        fromCommit = commits[commits.indexOf(toCommit) + 1] ?? toCommit;
      }
      const [from, to] = await Promise.all([version(name, fromCommit), version(name, toCommit)]);
      return { diff: unifiedDiff(name, from.source, to.source) };
    },
  );

  r.post(
    '/scripts/:name/restore/:commit',
    {
      schema: {
        params: commitParams,
        response: { 200: restoredSchema },
      },
    },
    async (req) => {
      const { name, commit } = req.params;
      await version(name, commit);
      const record = await scripts.restore(name, commit, actor(req), channelOf(req));
      return { name: record.name, status: record.status, restored_from: commit };
    },
  );
};
