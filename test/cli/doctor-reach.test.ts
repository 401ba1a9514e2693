import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { examineReach } from '../../src/cli/doctor-reach.js';
import { loadConfig } from '../../src/config/load.js';

const deployment = (overrides: Record<string, unknown>) => ({
  config: loadConfig({
    cwd: mkdtempSync(path.join(os.tmpdir(), 'steward-doctor-')),
    env: {},
    overrides,
  }),
});

describe('steward doctor on where data may go', () => {
  it('flags secrets free to go anywhere, egress to this host or the cloud metadata, plain http', () => {
    const { config } = deployment({
      'scripts.secret_egress': 'any',
      'egress.allow': [
        '127.0.0.1:8089',
        'localhost',
        '169.254.169.254',
        '169.254.0.0/16',
        'fe80::/64',
        '::1',
        '0.0.0.0',
        '::ffff:169.254.169.254',
        'api.example.com',
        '203.0.113.0/24',
        '10.1.2.3:443',
      ],
      'webhooks.channels': {
        ops: 'http://hooks.example.com/steward',
        safe: 'https://hooks.example.com/steward',
        here: 'http://127.0.0.1:9000/hook',
      },
      'admin.cors.allowed_origins': ['http://admin.example.com', 'https://admin.example.com'],
    });
    const findings = examineReach(config);
    const by = (check: string) => findings.filter((f) => f.check === check);

    const egress = by('secret egress');
    expect(egress).toHaveLength(1);
    expect(egress[0]?.problem).toMatch(/scripts\.secret_egress is "any"/);
    expect(egress[0]?.fix).toMatch(/-> host/);
    expect(egress[0]?.fix).toMatch(/secret_egress: bound/);

    const local = by('egress').map((f) => f.problem);
    const flagged = (entry: string) => local.find((p) => p.includes(`"${entry}"`));
    expect(flagged('127.0.0.1:8089')).toMatch(/loopback/);
    expect(flagged('localhost')).toMatch(/loopback/);
    expect(flagged('::1')).toMatch(/loopback/);
    expect(flagged('0.0.0.0')).toMatch(/loopback/);
    expect(flagged('169.254.169.254')).toMatch(/metadata/);
    expect(flagged('::ffff:169.254.169.254')).toMatch(/metadata/);
    expect(flagged('169.254.0.0/16')).toMatch(/metadata/);
    expect(flagged('fe80::/64')).toMatch(/link-local/);
    for (const fine of ['api.example.com', '203.0.113.0/24', '10.1.2.3:443']) {
      expect(flagged(fine), fine).toBeUndefined();
    }
    expect(local).toHaveLength(8);
    for (const f of by('egress')) expect(f.fix).toMatch(/remove .* from egress\.allow/);

    const http = by('plain http').map((f) => `${f.problem} | ${f.fix}`);
    expect(http).toHaveLength(2);
    expect(http.join('\n')).toMatch(
      /webhooks\.channels\.ops.*http:\/\/hooks\.example\.com.*\| .*https:/,
    );
    expect(http.join('\n')).toMatch(
      /admin\.cors\.allowed_origins.*http:\/\/admin\.example\.com.*\| .*https:/,
    );
  });
});
