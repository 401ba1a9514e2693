import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createLogger, redactPaths } from '../../src/log/logger.js';

/** A logger whose lines are captured (after redaction) instead of written to stdout. */
function captured(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger(level, {
    hooks: {
      streamWrite(line) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
        return '';
      },
    },
  });
  return { log, lines };
}

describe('createLogger', () => {
  it('hides credentials in requests, responses and plain fields', () => {
    const { log, lines } = captured();
    log.info(
      {
        req: {
          method: 'GET',
          headers: { authorization: 'Bearer abc', cookie: 'sid=1', host: 'x' },
        },
        res: { statusCode: 200, headers: { 'set-cookie': 'sid=2', 'content-type': 'text/plain' } },
        headers: { authorization: 'Basic xyz', cookie: 'c=1', accept: '*/*' },
        password: 'hunter2',
        confirm_password: 'hunter2',
        token: 't',
        access_token: 'a',
        refresh_token: 'r',
        value: 'secret value',
      },
      'request',
    );
    const [line] = lines;
    expect(line).toMatchObject({
      msg: 'request',
      req: { method: 'GET', headers: { authorization: '[hidden]', cookie: '[hidden]', host: 'x' } },
      res: { headers: { 'set-cookie': '[hidden]', 'content-type': 'text/plain' } },
      headers: { authorization: '[hidden]', cookie: '[hidden]', accept: '*/*' },
      password: '[hidden]',
      confirm_password: '[hidden]',
      token: '[hidden]',
      access_token: '[hidden]',
      refresh_token: '[hidden]',
      value: '[hidden]',
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|Bearer abc|secret value|sid=/);
  });

  it('hides password, token and value one level down, as in a logged body', () => {
    const { log, lines } = captured();
    log.warn({ body: { name: 'API_KEY', value: 'v', token: 't', password: 'p' } }, 'x');
    expect(lines[0]?.body).toEqual({
      name: 'API_KEY',
      value: '[hidden]',
      token: '[hidden]',
      password: '[hidden]',
    });
  });

  it('leaves other fields alone and stamps the pid', () => {
    const { log, lines } = captured();
    log.info({ script: 'daily.star', count: 3 }, 'ran');
    expect(lines[0]).toMatchObject({ script: 'daily.star', count: 3, pid: process.pid, level: 30 });
  });

  it('honours the level', () => {
    const { log, lines } = captured('warn');
    log.info('dropped');
    log.warn('kept');
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
    expect(captured('silent').log.isLevelEnabled('fatal')).toBe(false);
  });

  it('lists only paths pino can compile', () => {
    // pino throws at construction on a malformed path; this keeps the list honest.
    expect(() => createLogger('info', { redact: { paths: [...redactPaths] } })).not.toThrow();
  });
});

describe('createStderrLogger', () => {
  it('writes to stderr only, keeping stdout for protocol messages', () => {
    // The module is run in a child so its real stdout and stderr can be read apart.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-logger-'));
    const source = readFileSync(
      path.resolve(import.meta.dirname, '../../src/log/logger.ts'),
      'utf8',
    );
    const pinoUrl = pathToFileURL(createRequire(import.meta.url).resolve('pino')).href;
    const js = ts
      .transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      .outputText.replace(/from 'pino'/, `from '${pinoUrl}'`);
    writeFileSync(path.join(dir, 'logger.mjs'), js);
    writeFileSync(
      path.join(dir, 'main.mjs'),
      `import { createStderrLogger } from './logger.mjs';
const log = createStderrLogger('info');
log.debug('not at this level');
log.info({ token: 'tok-123', script: 'x' }, 'to stderr');
log.flush();`,
    );
    const child = spawnSync(process.execPath, [path.join(dir, 'main.mjs')], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    const { stdout, stderr } = child;
    expect(stdout).toBe('');
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'to stderr', token: '[hidden]', script: 'x' });
  });
});
