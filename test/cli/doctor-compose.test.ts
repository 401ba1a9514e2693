import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { examineCompose } from '../../src/cli/doctor-compose.js';

const repoCompose = path.resolve(__dirname, '../../docker-compose.yml');

describe('steward doctor on a compose file', () => {
  it("checks the compose engine's lockdown: an open engine is flagged, the repository's passes", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-compose-'));
    // The engine service as it was before `steward engine`: OpenCode in the workspace with
    // Steward's secrets and data, project config on.
    writeFileSync(
      path.join(dir, 'open.yml'),
      [
        'x-env: &env',
        '  STEWARD_SECRETS_KEY: k',
        '  ADMIN_JWT_SECRET: j',
        'services:',
        '  engine:',
        '    command: ["opencode", "serve"]',
        '    working_dir: /workspace',
        '    environment:',
        '      <<: *env',
        '    volumes:',
        '      - workspace:/workspace',
        '      - steward-data:/srv/data',
        '',
      ].join('\n'),
    );
    const problems = examineCompose(path.join(dir, 'open.yml')).map((f) => f.problem);
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/STEWARD_SECRETS_KEY/);
    expect(problems.join('\n')).toMatch(/ADMIN_JWT_SECRET/);
    expect(problems.join('\n')).toMatch(/OPENCODE_DISABLE_PROJECT_CONFIG/);
    expect(problems.join('\n')).toMatch(/working directory is \/workspace/);
    expect(problems.join('\n')).toMatch(/data volume/);

    expect(examineCompose(repoCompose)).toEqual([]);
    writeFileSync(
      path.join(dir, 'locked.yml'),
      [
        'services:',
        '  engine:',
        '    working_dir: /engine',
        '    environment:',
        '      OPENCODE_DISABLE_PROJECT_CONFIG: "1"',
        '',
      ].join('\n'),
    );
    expect(examineCompose(path.join(dir, 'locked.yml'))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('flags the compose file: engine env_file with secrets, trusted forwarding on published ports, host networking', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-compose-'));
    writeFileSync(
      path.join(dir, '.env'),
      'STEWARD_SECRETS_KEY=abc\nADMIN_JWT_SECRET=def\nREDIS_PASSWORD=ghi\nMCP_TOKEN=x\n',
    );
    writeFileSync(path.join(dir, 'engine.env'), 'STEWARD_MCP_TOKEN=x\n# STEWARD_SECRETS_KEY=old\n');
    writeFileSync(
      path.join(dir, 'open.yml'),
      [
        'services:',
        '  api:',
        '    build: .',
        '    command: ["api"]',
        '    ports: ["8080:8080"]',
        '    environment:',
        '      STEWARD_TRUST_PROXY: "true"',
        '  replica:',
        '    image: steward',
        '    ports: ["8081:8080"]',
        '    environment: ["STEWARD_TRUST_PROXY=10.0.0.0/24"]',
        '  internal:',
        '    command: ["api"]',
        '    environment: { STEWARD_TRUST_PROXY: "true" }',
        '  direct:',
        '    command: ["start"]',
        '    ports: ["8082:8080"]',
        '    environment: { STEWARD_TRUST_PROXY: "false" }',
        '  worker:',
        '    command: ["worker"]',
        '    network_mode: host',
        '  engine:',
        '    command: ["engine"]',
        '    env_file: [.env, engine.env]',
        '',
      ].join('\n'),
    );
    const findings = examineCompose(path.join(dir, 'open.yml'));
    const text = findings.map((f) => `${f.check}: ${f.problem} | ${f.fix}`);
    const about = (pattern: RegExp) => text.filter((line) => pattern.test(line));

    const envFile = about(/env_file/);
    expect(envFile).toHaveLength(1);
    expect(envFile[0]).toMatch(/\.env.*STEWARD_SECRETS_KEY, ADMIN_JWT_SECRET, REDIS_PASSWORD/);
    expect(envFile[0]).toMatch(/\| .*remove .*env_file/);

    const trusted = about(/X-Forwarded-For/);
    expect(trusted).toHaveLength(2);
    expect(trusted[0]).toMatch(/the api service publishes 8080:8080/);
    expect(trusted[1]).toMatch(/the replica service publishes 8081:8080/);
    for (const line of trusted) expect(line).toMatch(/\| .*publish only the reverse proxy/);

    const host = about(/network_mode: host/);
    expect(host).toHaveLength(1);
    expect(host[0]).toMatch(/worker/);
    expect(host[0]).toMatch(/\| .*networks/);
    expect(findings).toHaveLength(4);

    // The repository's compose file has none of these.
    expect(examineCompose(repoCompose)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
