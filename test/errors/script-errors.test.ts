import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import {
  InvalidScriptError,
  ScriptNotFoundError,
  ScriptRefusedError,
} from '../../src/errors/script-errors.js';

describe('ScriptNotFoundError', () => {
  it('is a 404 script_not_found naming the script, its details kept out of the body', () => {
    const err = new ScriptNotFoundError('weather.star');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(ScriptNotFoundError);
    expect(err).toMatchObject({
      name: 'ScriptNotFoundError',
      code: 'script_not_found',
      status: 404,
      message: 'script weather.star not found',
      details: { script: 'weather.star' },
      detailsInBody: false,
    });
  });

  it('takes a message worded elsewhere', () => {
    expect(new ScriptNotFoundError('a.star', 'no such script').message).toBe('no such script');
  });
});

describe('ScriptRefusedError', () => {
  it('refuses a pending script with 403 script_not_approved', () => {
    const err = new ScriptRefusedError('a.star', 'pending');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(ScriptRefusedError);
    expect(err).not.toBeInstanceOf(ScriptNotFoundError);
    expect(err).toMatchObject({
      name: 'ScriptRefusedError',
      code: 'script_not_approved',
      status: 403,
      message:
        'script a.star is pending approval; an administrator must approve it before it can run',
      details: { script: 'a.star', reason: 'pending' },
      detailsInBody: false,
    });
  });

  it('refuses a rejected script with 403 script_not_approved', () => {
    expect(new ScriptRefusedError('a.star', 'rejected')).toMatchObject({
      code: 'script_not_approved',
      status: 403,
      message: 'script a.star was rejected',
      details: { script: 'a.star', reason: 'rejected' },
    });
  });

  it('refuses a script changed since approval with 409 script_modified', () => {
    expect(new ScriptRefusedError('a.star', 'modified')).toMatchObject({
      code: 'script_modified',
      status: 409,
      message:
        'script a.star changed since it was approved; an administrator must approve it again',
      details: { script: 'a.star', reason: 'modified' },
    });
  });

  it('takes a message worded elsewhere but keeps the reason in details', () => {
    const err = new ScriptRefusedError('a.star', 'modified', 'the reviewed text is not current');
    expect(err.message).toBe('the reviewed text is not current');
    expect(err.details.reason).toBe('modified');
  });
});

describe('InvalidScriptError', () => {
  it('is a 400 invalid_script whose line and column go into the body', () => {
    const err = new InvalidScriptError('unexpected token', { line: 3, column: 7 });
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(InvalidScriptError);
    expect(err).toMatchObject({
      name: 'InvalidScriptError',
      code: 'invalid_script',
      status: 400,
      message: 'unexpected token',
      details: { line: 3, column: 7 },
      detailsInBody: true,
    });
  });
});
