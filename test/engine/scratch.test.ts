import { test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { startFakeModel } from '../support/fake-model.js';
import { startTestEngine } from '../support/opencode.js';

test('scratch', async () => {
  const fake = await startFakeModel();
  process.stderr.write('fake up\n'); const engine = await startTestEngine({ modelURL: fake.baseURL });
  const t0 = Date.now(); process.stderr.write('engine up\n');
  try {
    const ev = await fetch(`${engine.url}/event`);
    const events: string[] = [];
    const reader = ev.body!.getReader();
    void (async () => { const d = new TextDecoder(); for (;;) { const { value, done } = await reader.read(); if (done) break; events.push(`${Date.now()} ` + d.decode(value)); } })();
    process.stderr.write('event connected\n');
    const s = await (await fetch(`${engine.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
    console.log('session', JSON.stringify(s));
    fake.enqueue({ kind: 'text', text: 'Hello there world', chunks: 3, reasoning: 'thinking hard' });
    const r = await fetch(`${engine.url}/session/${s.id}/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ parts: [{ type: 'text', text: 'hi' }] }) });
    console.log('prompt', r.status, (await r.text()).slice(0, 1500));
    console.log('prompt done', Date.now()); await new Promise((r) => setTimeout(r, 3000));
    console.log('elapsed', Date.now() - t0);
    writeFileSync('/tmp/scratch-events.txt', events.join(''));
    writeFileSync('/tmp/scratch-requests.json', JSON.stringify(fake.requests, null, 1));
    const doc = await (await fetch(`${engine.url}/doc`)).text();
    writeFileSync('/tmp/scratch-doc.json', doc);
    const msgs = await (await fetch(`${engine.url}/session/${s.id}/message?limit=1`)).text();
    console.log('msgs', msgs.slice(0, 2000));
    const prov = await (await fetch(`${engine.url}/config/providers`)).text();
    writeFileSync('/tmp/scratch-providers.json', prov);
    const nf = await fetch(`${engine.url}/session/ses_nope`);
    console.log('notfound', nf.status, await nf.text());
  } finally {
    await engine.stop();
    await fake.close();
  }
});
