import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { configSchema } from '../../src/config/schema.js';
import { freePort } from '../../src/store/embedded-redis.js';
import { startFakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider } from '../support/opencode.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { startReaper, startShell, type ShellResult } from '../support/shell.js';
import { startTelegramStandIn } from '../support/telegram-stand-in.js';
import { waitUntil } from '../support/wait.js';

const root = path.resolve(import.meta.dirname, '../..');

interface Block {
  heading: string;
  lang: string;
  text: string;
}

/**
 * The fenced blocks of README.md from `## Start it` to the next `## ` heading, each with the
 * heading it sits under; a block indented in a list item loses that indentation.
 */
function readmeBlocks(): Block[] {
  const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n');
  const start = lines.indexOf('## Start it');
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const blocks: Block[] = [];
  let heading = 'Start it';
  let open: { indent: number; lang: string; body: string[] } | null = null;
  for (const line of lines.slice(start + 1, end)) {
    const fence = /^(\s*)```(\w*)\s*$/.exec(line);
    if (open) {
      if (fence) {
        blocks.push({ heading, lang: open.lang, text: open.body.join('\n') });
        open = null;
      } else open.body.push(line.slice(open.indent));
    } else if (fence) open = { indent: fence[1]?.length ?? 0, lang: fence[2] ?? '', body: [] };
    else if (/^#{3,} /.test(line)) heading = line.replace(/^#+ /, '');
  }
  return blocks;
}

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
function merge(a: Plain, b: Plain): Plain {
  const out: Plain = { ...a };
  for (const [k, v] of Object.entries(b))
    out[k] = isPlain(v) && isPlain(out[k]) ? merge(out[k], v) : v;
  return out;
}

/**
 * README.md's "Start it" and chat sections, followed as a newcomer would: every shell block runs
 * in bash, in order, against a real `steward start` run with the command of `npm start`; every
 * YAML block is a valid configuration. Only what must differ is substituted: the port, the bot
 * token and user id (a Telegram stand-in answers for Telegram), the model (a fake one), and the
 * configuration file is the README's blocks plus what keeps this test on loopback. A change to
 * the product the README does not follow, or a block the test does not know, fails here.
 */
describe('README: from npm start to a reply in Telegram', () => {
  const prefix = uniquePrefix('readme');
  const home = mkdtempSync(path.join(os.tmpdir(), 'steward-readme-'));
  afterAll(async () => {
    await dropPrefix(prefix);
    rmSync(home, { recursive: true, force: true });
  });

  it('runs every shell block of the Start it and chat sections', async () => {
    const blocks = readmeBlocks();
    const next = (heading: string, lang: string, shape: RegExp): string => {
      const block = blocks.shift();
      expect(block, `README: a ${lang} block under "${heading}"`).toMatchObject({ heading, lang });
      expect(block?.text, `README "${heading}"`).toMatch(shape);
      return block?.text ?? '';
    };
    const fake = await startFakeModel();
    const telegram = await startTelegramStandIn();
    const reaper = startReaper();
    const port = await freePort();
    const exampleToken = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
    const exampleUser = 123456789;
    const user = { id: 501, first_name: 'Ada' };

    // The checkout as `npm start` sees it, but with its own data, workspace and steward.yaml.
    symlinkSync(path.join(root, 'dist'), path.join(home, 'dist'));
    const engineHome = path.join(home, 'engine-home');
    mkdirSync(engineHome);
    // Not in the README: the engine's own environment keeps OpenCode off the network.
    let config: Plain = { engine: { env: isolatedEnv(engineHome) } };
    const writeConfig = () => writeFileSync(path.join(home, 'steward.yaml'), toYaml(config));
    writeConfig();
    const env = {
      // `npm start` and the README's `node -p` find the node running this test.
      PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
      HOME: home,
      REDIS_URL: testRedisUrl(),
      STEWARD_REDIS_PREFIX: prefix,
      STEWARD_PORT: String(port),
      STEWARD_HOST: '127.0.0.1',
    };
    const onPort = (block: string) => {
      for (const address of block.match(/localhost:\d+/g) ?? [])
        expect(address).toBe('localhost:8080');
      return block.replaceAll('localhost:8080', `localhost:${port}`);
    };

    let steward: ChildProcess | null = null;
    let lines: Array<Record<string, unknown>> = [];
    const notJson: string[] = [];
    const engines: number[] = [];
    let output = '';
    const startCommand = (
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
        scripts: { start: string };
      }
    ).scripts.start;
    expect(startCommand).toMatch(/ dist\/cli\/main\.js start$/);
    /** The first terminal: `npm start`'s command, in its own process group like a foreground job. */
    const startSteward = async () => {
      lines = [];
      const child = spawn('bash', ['-c', startCommand], {
        cwd: home,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      steward = child;
      reaper.watch(child.pid as number);
      let partial = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const parts = (partial + chunk.toString('utf8')).split('\n');
        partial = parts.pop() ?? '';
        for (const text of parts) {
          // Standard output is a pipe here: the log is JSON, one object a line.
          let line: Record<string, unknown>;
          try {
            line = JSON.parse(text) as Record<string, unknown>;
          } catch {
            notJson.push(text);
            continue;
          }
          lines.push(line);
          // The engine runs in a process group of its own (its pid, the child logger's `pid`).
          if (line.msg === 'engine starting' && typeof line.pid === 'number') {
            engines.push(line.pid);
            reaper.watch(line.pid);
          }
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      await waitUntil(
        () => lines.find((l) => l.headline === true && /^Steward is ready/.test(String(l.msg))),
        60_000,
        `steward start: ${output}`,
      );
    };
    const stopSteward = async (signal: NodeJS.Signals) => {
      const child = steward as ChildProcess | null;
      if (!child || child.exitCode !== null || child.signalCode !== null) return null;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      process.kill(-(child.pid as number), signal);
      // It ends within 10 s by itself; past that, the test ends it.
      const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 15_000);
      return exited.finally(() => clearTimeout(timer));
    };
    /**
     * A person writes and waits for the answer. On a loaded machine the engine's first session
     * can take longer than `engine.request_timeout` (its MCP server starting); the gateway then
     * drops the message, and the person writes again, once.
     */
    const converse = async (
      from: { id: number; first_name: string },
      text: string,
      reply: string,
    ) => {
      for (let attempt = 1; ; attempt += 1) {
        const dropped = lines.filter((l) => l.msg === 'chat message not handled').length;
        telegram.userWrites(from, text);
        const outcome = await waitUntil(
          () =>
            (telegram.chatTexts(from.id).at(-1) === reply && 'answered') ||
            (lines.filter((l) => l.msg === 'chat message not handled').length > dropped &&
              'dropped'),
          120_000,
          `the reply to ${text}: ${output}`,
        );
        if (outcome === 'answered') return;
        if (attempt === 2) throw new Error(`the message was dropped twice: ${output}`);
      }
    };
    const headlines = () => lines.filter((l) => l.headline === true).map((l) => String(l.msg));

    const shell = startShell(home, { PATH: env.PATH, HOME: home });
    const ok = (result: ShellResult) => {
      expect(result.status, result.stderr).toBe(0);
      return result.stdout;
    };
    try {
      // ## Start it
      expect(next('Start it', 'sh', /^npm install && npm start$/)).toBe('npm install && npm start');
      await startSteward();
      expect(headlines()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^AI engine: OpenCode, but no model is configured/),
          `Steward is ready: open http://127.0.0.1:${port}/ in a browser (the administrator web UI)`,
          expect.stringMatching(/^first-run setup: create the administrator account at /),
        ]),
      );

      const setup = ok(await shell.run(onPort(next('Start it', 'sh', /\/api\/setup/))));
      expect(setup).toMatch(/^OK/);
      expect(setup).toContain('"reason":"admin_setup"');
      expect(setup).toContain('"success":true');

      // ### Call the API with curl: the token every later block uses.
      const login = ok(await shell.run(onPort(next('Call the API with curl', 'sh', /TOKEN=/))));
      expect(login).toContain('{"message":"logged in"}');
      expect(login).toContain('{"username":"admin","role":"admin"}');

      // ### AI engine: a valid configuration naming a model; here the fake model answers.
      const engineYaml = parseYaml(next('AI engine', 'yaml', /model:/)) as Plain;
      expect(() => configSchema.parse(engineYaml)).not.toThrow();
      config = merge(config, {
        engine: {
          config: {
            provider: mockProvider(fake.baseURL),
            model: 'mock/echo',
            small_model: 'mock/echo',
          },
        },
      });

      // ### Talk to it from Telegram: steward.yaml, a restart (Ctrl-C, npm start), the token.
      const telegramYaml = parseYaml(
        next('Talk to it from Telegram', 'yaml', /telegram:/),
      ) as Plain;
      expect(telegramYaml).toEqual({
        chat: { telegram: { token_secret: 'TELEGRAM_TOKEN', allow: [exampleUser] } },
      });
      config = merge(config, {
        chat: {
          telegram: {
            token_secret: 'TELEGRAM_TOKEN',
            allow: [user.id],
            api_root: telegram.apiRoot,
          },
        },
      });
      expect(() => configSchema.parse(config)).not.toThrow();
      writeConfig();
      expect(await stopSteward('SIGINT')).toBe(0);
      await startSteward();
      expect(headlines()).toContain('AI engine: OpenCode with model mock/echo');
      expect(headlines().some((h) => h.startsWith('first-run setup'))).toBe(false);

      const tokenBlock = next('Talk to it from Telegram', 'sh', /\/api\/secrets\/TELEGRAM_TOKEN/);
      expect(tokenBlock).toContain(exampleToken);
      const stored = ok(await shell.run(onPort(tokenBlock.replace(exampleToken, telegram.token))));
      expect(stored).toBe('{"name":"TELEGRAM_TOKEN","set":true}');
      await waitUntil(
        () => telegram.calls.some((c) => c.method === 'getUpdates'),
        30_000,
        'polling',
      );
      // "once the AI engine is up (the terminal shows `[engine] engine running`)"
      await waitUntil(() => lines.some((l) => l.msg === 'engine running'), 90_000, 'the engine');
      fake.setFallback({ kind: 'text', text: 'Hello, I read the README too.' });
      await converse(user, 'hello?', 'Hello, I read the README too.');

      // Someone not in allow gets a pairing code; the README's block approves it.
      const stranger = { id: 777, first_name: 'Grace' };
      telegram.userWrites(stranger, 'hi');
      const notice = await waitUntil(() => telegram.chatTexts(stranger.id)[0], 20_000, 'a code');
      const code = /pairing code ([A-Z0-9]{8})/.exec(notice)?.[1] as string;
      expect(code).toBeDefined();
      const pairingBlock = next(
        'Talk to it from Telegram',
        'sh',
        /\/api\/chat\/pairings\/CODE\/approve/,
      );
      const paired = ok(await shell.run(onPort(pairingBlock.replaceAll('CODE', code))));
      expect(paired).toContain(`"code":"${code}"`);
      expect(paired).toContain('"user_id":"777"');
      fake.setFallback({ kind: 'text', text: 'Welcome, Grace.' });
      await converse(stranger, 'hello again', 'Welcome, Grace.');

      // ### Slack and ### Discord: the secrets through the same token; their YAML is valid.
      const slackSecrets = ok(await shell.run(onPort(next('Slack', 'sh', /SLACK_BOT_TOKEN/))));
      expect(slackSecrets).toContain('{"name":"SLACK_BOT_TOKEN","set":true}');
      expect(slackSecrets).toContain('{"name":"SLACK_APP_TOKEN","set":true}');
      expect(() => configSchema.parse(parseYaml(next('Slack', 'yaml', /slack:/)))).not.toThrow();
      const discordSecret = ok(await shell.run(onPort(next('Discord', 'sh', /DISCORD_TOKEN/))));
      expect(discordSecret).toBe('{"name":"DISCORD_TOKEN","set":true}');
      expect(() =>
        configSchema.parse(parseYaml(next('Discord', 'yaml', /discord:/))),
      ).not.toThrow();

      // ### Review scripts from your phone: valid beside the Telegram configuration.
      const approvals = parseYaml(
        next('Review scripts from your phone', 'yaml', /approvals:/),
      ) as Plain;
      expect(() => configSchema.parse(merge(telegramYaml, approvals))).not.toThrow();

      expect(blocks, 'README blocks this test does not run').toEqual([]);
      expect(notJson).toEqual([]);
      expect(output).not.toContain(telegram.token);
    } finally {
      await shell.close();
      // Closing the terminal: Steward stops and takes its engine with it.
      const code = await stopSteward('SIGHUP');
      const alive = engines.filter((pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      });
      // Whatever is left, the reaper kills as it ends.
      if (alive.length === 0) reaper.close();
      else reaper.killAll();
      await telegram.close();
      await fake.close();
      expect(code).toBe(0);
      expect(alive, 'engines left running').toEqual([]);
    }
  }, 300_000);
});
