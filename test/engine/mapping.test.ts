import { describe, expect, it } from 'vitest';
import type { EngineMessage, EngineSession } from '../../src/engine/client.js';
import { toMessageView, toSessionView } from '../../src/engine/mapping.js';

const session: EngineSession = {
  id: 'ses_1',
  slug: 'quiet-garden',
  projectID: 'prj_internal',
  directory: '/srv/steward/data/engine',
  title: 'Plan the garden',
  version: '1.18.33',
  cost: 0.42,
  share: { url: 'https://share.example/s/1' },
  time: { created: 1_000, updated: 2_000 },
} as EngineSession;

const user = {
  info: {
    id: 'msg_1',
    sessionID: 'ses_1',
    role: 'user',
    time: { created: 1_100 },
    agent: 'build',
    model: { providerID: 'mock', modelID: 'echo' },
  },
  parts: [{ id: 'prt_1', type: 'text', text: 'hello' }],
} as unknown as EngineMessage;

const assistant = (completed?: number) =>
  ({
    info: {
      id: 'msg_2',
      sessionID: 'ses_1',
      role: 'assistant',
      time: { created: 1_200, ...(completed === undefined ? {} : { completed }) },
      parentID: 'msg_1',
      modelID: 'echo',
      providerID: 'mock',
      mode: 'build',
      agent: 'build',
      path: { cwd: '/srv/steward/data/engine', root: '/' },
      cost: 0.01,
      tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
    },
    parts: [
      { id: 'prt_2', type: 'reasoning', text: 'thinking' },
      { id: 'prt_3', type: 'tool', tool: 'workspace_read', state: { status: 'completed' } },
      { id: 'prt_4', type: 'text', text: 'hi there' },
    ],
  }) as unknown as EngineMessage;

describe('toSessionView', () => {
  it('shows only the fields of the API, leaving engine internals out', () => {
    expect(toSessionView(session)).toEqual({
      id: 'ses_1',
      slug: 'quiet-garden',
      title: 'Plan the garden',
      directory: '/srv/steward/data/engine',
      version: '1.18.33',
      time: { created: 1_000, updated: 2_000 },
    });
  });

  it('gives an untitled session an empty title rather than no title', () => {
    const untitled = { ...session, title: undefined } as unknown as EngineSession;
    expect(toSessionView(untitled).title).toBe('');
  });

  it('does not add active: only the list endpoint knows it', () => {
    expect('active' in toSessionView(session)).toBe(false);
  });
});

describe('toMessageView', () => {
  it('uses a finished reply’s completion time as its update time', () => {
    expect(toMessageView(assistant(1_900)).time).toEqual({ created: 1_200, updated: 1_900 });
  });

  it('uses the creation time while a reply is still running, and for user messages', () => {
    expect(toMessageView(assistant()).time).toEqual({ created: 1_200, updated: 1_200 });
    expect(toMessageView(user).time).toEqual({ created: 1_100, updated: 1_100 });
  });

  it('passes the parts through as they are, every type included', () => {
    const message = assistant(1_900);
    expect(toMessageView(message).parts).toEqual(message.parts);
    expect(toMessageView(user)).toEqual({
      id: 'msg_1',
      sessionID: 'ses_1',
      role: 'user',
      parts: [{ id: 'prt_1', type: 'text', text: 'hello' }],
      time: { created: 1_100, updated: 1_100 },
    });
  });

  it('leaves the engine’s paths, costs and model details out', () => {
    const view = toMessageView(assistant(1_900));
    expect(Object.keys(view).sort()).toEqual(['id', 'parts', 'role', 'sessionID', 'time']);
    expect(JSON.stringify(view)).not.toContain('/srv/steward');
  });
});
