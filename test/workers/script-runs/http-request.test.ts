import { describe, expect, it } from 'vitest';
import { Dict, List, Secret, toStarlark, type Value } from '../../../src/starlark/index.js';
import { buildHttpRequest } from '../../../src/workers/script-runs/http-request.js';
import { createSecretVault } from '../../../src/workers/script-runs/secret-handles.js';
import { FakeThread } from '../../starlark/values/fake-thread.js';

const KEY = 'Quiet Horse:Staple-88';
const vault = createSecretVault(
  new Map<string, string | null>([
    ['API_KEY', KEY],
    ['OTHER', 'ötherß"'],
  ]),
);
const k = vault.handle('API_KEY') as Secret;
const other = vault.handle('OTHER') as Secret;
const cat = (...pieces: Array<string | Secret>) =>
  new Secret(pieces.flatMap((p) => (typeof p === 'string' ? [p] : p.parts)));
const dict = (entries: Record<string, Value>) => {
  const d = new Dict();
  for (const [key, v] of Object.entries(entries)) d.put(key, v);
  return d;
};

describe('an http request with its secrets placed', () => {
  it('puts each value in its header, URL or body, and says which secret went where', () => {
    const { call } = buildHttpRequest(
      'http.post',
      {
        method: 'POST',
        url: cat('https://api.example.com/v1/', other, '?key=', k),
        headers: dict({ Authorization: cat('Bearer ', k), 'X-Plain': 'p' }),
        body: dict({ token: other, list: new List(['a', k]), n: 1 }),
      },
      vault,
      new FakeThread(),
    );
    expect(call).toEqual({
      method: 'POST',
      url: 'https://api.example.com/v1/%C3%B6ther%C3%9F%22?key=Quiet%20Horse:Staple-88',
      headers: {
        Authorization: `Bearer ${KEY}`,
        'X-Plain': 'p',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ list: ['a', KEY], n: 1, token: 'ötherß"' }),
      secrets: [
        { name: 'OTHER', place: 'url' },
        { name: 'API_KEY', place: 'url' },
        { name: 'API_KEY', place: 'header authorization' },
        // JSON objects are written with sorted keys: "list" before "token".
        { name: 'API_KEY', place: 'body' },
        { name: 'OTHER', place: 'body' },
      ],
    });
  });

  it('sends a string or secret body as it is, and a request without secrets carries none', () => {
    const thread = new FakeThread();
    const text = buildHttpRequest(
      'http.post',
      { method: 'POST', url: 'https://h.example/', headers: undefined, body: cat('k=', k) },
      vault,
      thread,
    ).call;
    expect(text).toMatchObject({ body: `k=${KEY}`, secrets: [{ name: 'API_KEY', place: 'body' }] });
    const plain = buildHttpRequest(
      'http.get',
      { method: 'GET', url: 'https://h.example/', headers: toStarlark({ a: 'b' }) },
      vault,
      thread,
    ).call;
    expect(plain).toEqual({ method: 'GET', url: 'https://h.example/', headers: { a: 'b' } });
  });

  it('shows every placed text as its handle in the error text the host answers', () => {
    const { call, hide } = buildHttpRequest(
      'http.get',
      {
        method: 'GET',
        url: cat('https://api.example.com/', k),
        headers: dict({ 'X-Key': other }),
      },
      vault,
      new FakeThread(),
    );
    const shown = hide(
      `request to ${call.url} timed out; redirect from ${call.url}?again (${KEY}, ötherß")`,
    );
    expect(shown).toBe(
      'request to https://api.example.com/<secret API_KEY> timed out; redirect from https://api.example.com/<secret API_KEY>?again (<secret API_KEY>, <secret OTHER>)',
    );
    expect(shown).not.toContain('Quiet Horse');
  });

  it('hides the host of a URL that is a secret whole', () => {
    const hook = createSecretVault(new Map([['HOOK', 'https://hooks.example.com/s/T0/x']]));
    const { hide } = buildHttpRequest(
      'http.post',
      { method: 'POST', url: hook.handle('HOOK'), headers: undefined, body: '{}' },
      hook,
      new FakeThread(),
    );
    expect(hide('request to hooks.example.com refused: it carries secret HOOK')).toBe(
      'request to <host of a secret URL> refused: it carries secret HOOK',
    );
  });
});
