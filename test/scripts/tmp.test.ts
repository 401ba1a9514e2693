import { it } from 'vitest';
import { createScriptsHarness } from '/work/main/test/scripts/harness.js';
it('x', async () => {
  const h = await createScriptsHarness();
  await h.app.inject({ method: 'POST', url: '/api/scripts', payload: { name: 'a.star', source: 'x=1\n' } });
  const r = await h.app.inject({ method: 'POST', url: '/api/scripts/a.star/approve' });
  console.log(r.body);
  await h.close();
});
