#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
import { Command } from 'commander';
import { ConfigError } from '../errors/config-error.js';
import { VERSION } from '../version.js';

const program = new Command();
program
  .name('steward')
  .description('Self-hosted back end for a personal AI assistant')
  .version(VERSION, '-v, --version');

const env = process.env;
const withConfig = (cmd: Command) =>
  cmd.option('-c, --config <file>', 'YAML config file (default: STEWARD_CONFIG or ./steward.yaml)');

function run(fn: (opts: { configFile?: string; env: typeof env }) => Promise<void>) {
  return async (opts: { config?: string }) => {
    try {
      await fn({ ...(opts.config ? { configFile: opts.config } : {}), env });
    } catch (err) {
      fail(err);
    }
  };
}

function fail(err: unknown): never {
  if (err instanceof ConfigError) process.stderr.write(`steward: ${err.message}\n`);
  else process.stderr.write(`steward: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

// The roles load the whole of Steward (a second on a small machine): an HTTP role puts a standby
// on its port first, so probes and clients get answers from the start.
const httpRole = (role: 'runStart' | 'runApi') =>
  run(async (opts) => {
    const { listenEarly } = await import('./early-standby.js');
    const standby = await listenEarly(opts);
    const roles = await import('./roles.js');
    await roles[role]({ ...opts, standby });
  });
withConfig(program.command('start'))
  .description('run every role in one process: API, workers, scheduler and the supervised engine')
  .action(httpRole('runStart'));
withConfig(program.command('api'))
  .description('run the HTTP API only (run several behind a load balancer)')
  .action(httpRole('runApi'));
withConfig(program.command('worker'))
  .description('run the BullMQ workers: script runs (Piscina threads) and schedule runs')
  .action(run(async (opts) => (await import('./roles.js')).runWorker(opts)));
withConfig(program.command('mcp'))
  .description('serve the MCP tool server on stdio (started by the AI engine)')
  .action(run(async (opts) => (await import('./roles.js')).runMcp(opts)));
withConfig(program.command('engine'))
  .description(
    "run the AI engine alone (its own container): OpenCode locked down as under `start`, reaching the tools at an API's /mcp",
  )
  .requiredOption('--mcp-url <url>', "an API process's tool server, e.g. http://api:8080/mcp")
  .option('--host <address>', 'address the engine listens on', '127.0.0.1')
  .option('--port <port>', 'port the engine listens on', '4096')
  .action(async (opts: { config?: string; mcpUrl: string; host: string; port: string }) => {
    try {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new Error(`--port must be a port number, not "${opts.port}"`);
      if (!/^https?:$/.test(URL.parse(opts.mcpUrl)?.protocol ?? ''))
        throw new Error(`--mcp-url must be an http(s) URL, not "${opts.mcpUrl}"`);
      const { runEngine } = await import('./roles.js');
      await runEngine({
        ...(opts.config ? { configFile: opts.config } : {}),
        env,
        host: opts.host,
        port,
        mcpUrl: opts.mcpUrl,
      });
    } catch (err) {
      fail(err);
    }
  });
const secrets = program.command('secrets').description('manage the secrets store');
withConfig(secrets.command('rotate-key'))
  .description('re-encrypt every secret under a new key (restart the other processes afterwards)')
  .action(
    run(async (opts) => {
      const { boot } = await import('../runtime/bootstrap.js');
      const { rotateSecretsKey } = await import('../secrets/rotate.js');
      const ctx = await boot({ ...opts, allowEmbeddedRedis: false });
      try {
        const result = await rotateSecretsKey(ctx.config, ctx.log, { redis: ctx.redis });
        process.stdout.write(
          `re-encrypted ${result.secrets} secret(s)${result.file ? `; new key in ${result.file}` : ''}\n`,
        );
      } finally {
        await ctx.close();
      }
    }),
  );

const audit = program.command('audit').description('the audit log');
withConfig(audit.command('verify'))
  .description(
    'check the audit chain end to end: exit 0 when intact, 1 naming the first broken entry',
  )
  .action(
    run(async (opts) => {
      const { boot } = await import('../runtime/bootstrap.js');
      const { createAuditLog } = await import('../runtime/audit-log.js');
      const { createAuditRepository } = await import('../store/audit-repository.js');
      const ctx = await boot({ ...opts, allowEmbeddedRedis: false });
      try {
        const started = performance.now();
        // Verifying reads; it writes nothing, so it needs no redactor.
        const verdict = await createAuditLog({
          repo: createAuditRepository(ctx.redis),
          redact: (text) => text,
          log: ctx.log,
        }).verify();
        const ms = Math.round(performance.now() - started);
        if (verdict.ok) {
          process.stdout.write(
            `audit log intact: ${verdict.entries} entries verified in ${ms} ms\n`,
          );
          return;
        }
        process.stdout.write(
          `audit log broken at entry ${verdict.id} (${verdict.entries} read): ${verdict.problem}\n`,
        );
        process.exitCode = 1;
      } finally {
        await ctx.close();
      }
    }),
  );

withConfig(program.command('backup'))
  .description(
    'write every Steward key under the prefix, at one point in time, to one file (mode 0600) sealed with the secrets key',
  )
  .option(
    '-o, --out <file>',
    'where to write it, - for standard output (default: steward-backup-<time>.jsonl here)',
  )
  .action(async (opts: { config?: string; out?: string }) => {
    try {
      const { boot } = await import('../runtime/bootstrap.js');
      const { writeBackupFile } = await import('./backup.js');
      const toStdout = opts.out === '-';
      const ctx = await boot({
        ...(opts.config ? { configFile: opts.config } : {}),
        env,
        allowEmbeddedRedis: false,
        logToStderr: toStdout,
      });
      // With the file on standard output, what is said about it goes to standard error.
      const say = toStdout ? process.stderr : process.stdout;
      try {
        const { file, summary } = await writeBackupFile(ctx, opts.out);
        const { header, snapshot } = summary;
        say.write(
          `backup written to ${file}: ${header.records} keys, ${header.audit.entries} audit entries, ${summary.vouched} verified approval(s), schema version ${header.schema_version}, taken at ${header.taken_at}${snapshot.method === 'pause' ? ' (writers paused while it read)' : ''}\n`,
        );
        if (snapshot.unknown_keys > 0) {
          say.write(
            `left out ${snapshot.unknown_keys} key(s) under the prefix that are not Steward's\n`,
          );
        }
      } finally {
        await ctx.close();
      }
    } catch (err) {
      fail(err);
    }
  });
withConfig(program.command('restore'))
  .description(
    'restore a backup file into an empty store (it must be sealed with this secrets key); --force replaces the Steward data there',
  )
  .argument('<file>', 'a file written by steward backup')
  .option('--force', 'replace the Steward data the store holds')
  .action(async (file: string, opts: { config?: string; force?: boolean }) => {
    try {
      const { boot } = await import('../runtime/bootstrap.js');
      const { restoreBackupFile } = await import('./backup.js');
      const ctx = await boot({
        ...(opts.config ? { configFile: opts.config } : {}),
        env,
        allowEmbeddedRedis: false,
      });
      try {
        const report = await restoreBackupFile(ctx, file, { force: opts.force === true });
        process.stdout.write(
          `restored ${report.records} keys and ${report.auditEntries} audit entries${report.replaced > 0 ? `, replacing ${report.replaced} key(s)` : ''}; ${report.resigned.length} approval(s) signed with this deployment's approval key${report.migrated ? `; data moved from schema version ${report.migrated.from} to ${report.migrated.to}` : ''}\n`,
        );
        if (report.unverified.length > 0) {
          process.stdout.write(
            `restored without a valid approval (they did not verify when the backup was taken; approve them again): ${report.unverified.join(', ')}\n`,
          );
        }
      } finally {
        await ctx.close();
      }
    } catch (err) {
      fail(err);
    }
  });

const approvals = program.command('approvals').description('manage script approvals');
withConfig(approvals.command('rotate-key'))
  .description(
    'sign every valid approval with a new approval key (restart the other processes afterwards)',
  )
  .action(
    run(async (opts) => {
      const { boot } = await import('../runtime/bootstrap.js');
      const { rotateApprovalKey } = await import('./rotate-approval-key.js');
      const ctx = await boot({ ...opts, allowEmbeddedRedis: false });
      try {
        const result = await rotateApprovalKey(ctx);
        process.stdout.write(
          `re-signed ${result.resigned.length} approval(s)${result.file ? `; new key in ${result.file}` : ''}\n`,
        );
        if (result.unverified.length > 0) {
          process.stdout.write(
            `not re-signed (their approval did not verify; approve them again): ${result.unverified.join(', ')}\n`,
          );
        }
      } finally {
        await ctx.close();
      }
    }),
  );

withConfig(program.command('doctor'))
  .description(
    'check this deployment (exposure, setup, Redis durability, file modes, secrets, egress, compose engine) and print findings with fixes; exit 1 on any',
  )
  .option(
    '--compose <file>',
    'docker-compose file to check (default: ./docker-compose.yml when present)',
  )
  .action(async (opts: { config?: string; compose?: string }) => {
    try {
      const { runDoctor } = await import('./doctor.js');
      process.exitCode = await runDoctor({
        ...(opts.config ? { configFile: opts.config } : {}),
        ...(opts.compose ? { composeFile: opts.compose } : {}),
        env,
      });
    } catch (err) {
      fail(err);
    }
  });

program
  .command('starlark')
  .description('run or check a Starlark script locally: starlark run FILE | starlark check FILE')
  .helpOption(false)
  .allowUnknownOption(true)
  .argument('[args...]')
  .action(async (args: string[]) => {
    const { starlarkCommand } = await import('../starlark/cli.js');
    process.exitCode = await starlarkCommand(args);
  });

program
  .command('version')
  .description('print the version')
  .action(() => {
    process.stdout.write(`${VERSION}\n`);
  });

await program.parseAsync(process.argv);
