import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
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

/**
 * The logger as a role uses it, in a child process whose standard output and error are pipes,
 * files or a terminal: `script` (util-linux) gives it a pseudo-terminal, as a person's terminal.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-logger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logger = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/log/logger.js')).href;
const program = path.join(dir, 'log.mjs');
writeFileSync(
  program,
  `import { writeFileSync } from 'node:fs';
import { createLogger, createStderrLogger, headline } from ${JSON.stringify(logger)};
const [kind, format, marker] = process.argv.slice(2);
const log = kind === 'stderr' ? createStderrLogger('info', format) : createLogger('info', { format });
log.debug('not at this level');
log.info({ script: 'daily.star', token: 'tok-123' }, 'ran');
log.child({ component: 'engine' }).info({ port: 4096 }, 'engine starting');
log.warn(headline, 'first-run setup: open http://localhost:8080/');
log.info('a name\\u001b]0;owned\\u0007 with\\u001b[2J escapes\\n[10:00:00] INFO: and a line of its own');
if (kind === 'hangup') {
  process.on('SIGHUP', () => {
    for (let i = 0; i < 50; i++) log.info({ i }, 'shutting down');
    writeFileSync(marker, 'logged through the hang-up');
    process.exit(0);
  });
  log.info('waiting');
  setInterval(() => {}, 1000);
}
`,
);
const env = { PATH: process.env.PATH ?? '', TERM: 'xterm-256color' };
const run = (...args: string[]) =>
  spawnSync(process.execPath, [program, ...args], { encoding: 'utf8', env });
/** Runs `command` with a pseudo-terminal as its standard output and error; returns what it shows. */
const inTerminal = (command: string) =>
  spawnSync('script', ['-qfec', command, '/dev/null'], {
    encoding: 'utf8',
    env,
    cwd: dir,
  }).stdout.replace(/\r\n/g, '\n');
const node = `${JSON.stringify(process.execPath)} ${JSON.stringify(program)}`;
const lines = (text: string) => text.trim().split('\n');
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('createLogger formats', () => {
  it('writes JSON lines by default, and with auto when the output is not a terminal', () => {
    for (const format of ['json', 'auto']) {
      const child = run('stdout', format);
      expect(child.status).toBe(0);
      const parsed = lines(child.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(parsed.map((l) => l.msg)).toEqual([
        'ran',
        'engine starting',
        'first-run setup: open http://localhost:8080/',
        'a name\u001b]0;owned\u0007 with\u001b[2J escapes\n[10:00:00] INFO: and a line of its own',
      ]);
      expect(parsed[0]).toMatchObject({ token: '[hidden]', script: 'daily.star' });
      expect(parsed[1]).toMatchObject({ component: 'engine', port: 4096 });
      expect(parsed[2]).toMatchObject({ headline: true, level: 40 });
      // JSON escapes what a terminal would obey.
      expect(child.stdout).not.toContain('\u001b');
    }
  });

  it('writes readable lines with auto on a terminal: time, level, message, the fields that matter', () => {
    const shown = inTerminal(`${node} stdout auto`);
    const text = plain(shown);
    expect(lines(text)).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] INFO: ran \{"script":"daily\.star","token":"\[hidden\]"\}$/,
      ),
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] INFO: \[engine\] engine starting \{"port":4096\}$/,
      ),
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] WARN: » first-run setup: open http:\/\/localhost:8080\/$/,
      ),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: a name\]0;owned with\[2J escapes$/),
      // A newline in a message cannot start a line that looks like Steward's own.
      '    [10:00:00] INFO: and a line of its own',
    ]);
    // Coloured levels, and the headline bold in its level's colour.
    expect(shown).toContain('\u001b[33mWARN\u001b[39m');
    expect(shown).toContain('\u001b[1m\u001b[33m» first-run setup');
    // Only colour codes reach the terminal: no title change, no screen clear.
    expect(shown.replace(/\u001b\[[0-9;]*m/g, '')).not.toContain('\u001b');
  });

  it('keeps JSON on a terminal when log.format is json, and is readable anywhere with pretty', () => {
    const json = inTerminal(`${node} stdout json`);
    expect(lines(json).map((l) => (JSON.parse(l) as { msg: string }).msg)[0]).toBe('ran');
    const pretty = run('stdout', 'pretty');
    expect(pretty.status).toBe(0);
    // Not a terminal: readable but without colour codes or anything else a file should not hold.
    expect(pretty.stdout).not.toContain('\u001b');
    expect(lines(pretty.stdout)[2]).toMatch(/WARN: » first-run setup/);
  });
});

describe('createStderrLogger', () => {
  it('writes to stderr only, keeping stdout for protocol messages', () => {
    const child = run('stderr', 'auto');
    expect(child.status).toBe(0);
    expect(child.stdout).toBe('');
    const parsed = lines(child.stderr).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(4);
    expect(parsed[0]).toMatchObject({ msg: 'ran', token: '[hidden]', script: 'daily.star' });
  });

  it('is readable when stderr is a terminal, and stdout still carries nothing', () => {
    const out = path.join(dir, 'protocol.out');
    const shown = plain(inTerminal(`${node} stderr auto > ${JSON.stringify(out)}`));
    expect(readFileSync(out, 'utf8')).toBe('');
    expect(lines(shown)[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: ran \{"script":"daily\.star","token":"\[hidden\]"\}$/,
    );
  });
});

describe('a terminal that closes', () => {
  it('does not end the process when it logs after the hang-up', async () => {
    // The shutdown a closed terminal starts (SIGHUP) logs to a terminal that answers EIO.
    const marker = path.join(dir, 'survived');
    const session = spawn(
      'script',
      ['-qfc', `${node} hangup auto ${JSON.stringify(marker)}`, '/dev/null'],
      {
        env,
        cwd: dir,
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let shown = '';
    session.stdout.on('data', (c: Buffer) => (shown += c.toString('utf8')));
    const deadline = Date.now() + 20_000;
    while (!shown.includes('waiting') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(shown).toContain('waiting');
    session.kill('SIGKILL');
    while (!existsSync(marker) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'no marker').toBe(
      'logged through the hang-up',
    );
  });
});
