import { describe, expect, it } from 'vitest';
import { inputJsonSchema } from '../../../src/mcp/tool-types.js';
import { builtinTools } from '../../../src/mcp/tools/index.js';
import { testConfig, tmpDir } from './tool-context.js';

const names = (config: Parameters<typeof builtinTools>[0]) =>
  builtinTools(config).map((t) => t.name);

describe('builtinTools', () => {
  it('offers only configured capabilities', () => {
    expect(names(testConfig())).toEqual([
      'workspace_read',
      'workspace_write',
      'workspace_list',
      'memory_read',
      'memory_write',
      'web_fetch',
    ]);
  });

  it('adds vault, calendar and GitHub tools when configured', () => {
    const config = testConfig({
      'vault.path': tmpDir(),
      'calendar.feeds': [{ name: 'work', url: 'http://127.0.0.1:1/work.ics' }],
      'github.token': 'x',
    });
    expect(names(config)).toEqual([
      'workspace_read',
      'workspace_write',
      'workspace_list',
      'memory_read',
      'memory_write',
      'vault_read',
      'vault_write',
      'vault_list',
      'vault_search',
      'calendar_read',
      'github_list_issues',
      'github_create_issue',
      'web_fetch',
    ]);
  });

  it('gives every tool a JSON Schema whose properties all have a type and a description', () => {
    const config = testConfig({
      'vault.path': tmpDir(),
      'calendar.feeds': [{ name: 'w', url: 'http://x.test/' }],
      'github.token': 'x',
    });
    for (const tool of builtinTools(config)) {
      const schema = inputJsonSchema(tool);
      expect(schema.type, tool.name).toBe('object');
      expect(tool.description.length, tool.name).toBeGreaterThan(10);
      for (const [key, property] of Object.entries(schema.properties)) {
        expect(typeof property.type, `${tool.name}.${key}`).toBe('string');
        expect(property.description, `${tool.name}.${key}`).toBeTruthy();
      }
    }
  });

  it('matches the spec for workspace_read', () => {
    const tool = builtinTools(testConfig()).find((t) => t.name === 'workspace_read');
    const schema = inputJsonSchema(tool!);
    expect(schema.required).toEqual(['path']);
    expect(schema.properties.path?.type).toBe('string');
  });
});
