import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { ToolError } from '../../src/errors/tool-error.js';

describe('ToolError', () => {
  it('is an internal tool_failed error whose message is what the AI reads', () => {
    const err = new ToolError('File notes/a.md does not exist. Use file_list to see the files.');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({
      name: 'ToolError',
      code: 'tool_failed',
      status: 500,
      message: 'File notes/a.md does not exist. Use file_list to see the files.',
    });
    expect(err.details).toBeUndefined();
  });
});
