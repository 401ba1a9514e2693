import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, inputJsonSchema } from '../../src/mcp/tool-types.js';

const tool = defineTool({
  name: 'sample',
  description: 'A sample tool',
  inputSchema: z.object({
    path: z.string().min(1).describe('Where'),
    limit: z.number().int().positive().max(50).optional().describe('How many'),
    mode: z.enum(['fast', 'slow']).default('fast').describe('How'),
    tags: z.array(z.string()).optional().describe('Labels'),
  }),
  handler: async (args) => `${args.path}:${args.mode}`,
});

describe('inputJsonSchema', () => {
  it('is the spec’s Tool.inputSchema: an object with typed, described properties', () => {
    const schema = inputJsonSchema(tool);
    expect(schema.type).toBe('object');
    expect(schema.properties).toEqual({
      path: { type: 'string', minLength: 1, description: 'Where' },
      limit: {
        type: 'integer',
        exclusiveMinimum: 0,
        maximum: 50,
        description: 'How many',
      },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast', description: 'How' },
      tags: { type: 'array', items: { type: 'string' }, description: 'Labels' },
    });
  });

  it('requires only what the caller must send: optional and defaulted fields are not', () => {
    expect(inputJsonSchema(tool).required).toEqual(['path']);
  });

  it('leaves out the $schema dialect key', () => {
    expect(inputJsonSchema(tool)).not.toHaveProperty('$schema');
  });

  it('gives an argument-less tool an object schema with no properties', () => {
    const none = defineTool({
      name: 'none',
      description: 'No arguments',
      inputSchema: z.object({}),
      handler: async () => 'ok',
    });
    const schema = inputJsonSchema(none);
    expect(schema.type).toBe('object');
    expect(schema.properties).toEqual({});
    expect(schema.required).toBeUndefined();
  });
});
