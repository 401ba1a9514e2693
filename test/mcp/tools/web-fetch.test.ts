import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import { webFetch } from '../../../src/mcp/tools/web-fetch.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { run, testConfig, testContext } from './tool-context.js';

const article = `<!doctype html>
<html><head><meta charset="utf-8"><title>Growing Tomatoes</title></head>
<body>
  <nav><a href="/">Home</a> | <a href="/about">About</a> | <a href="/shop">Shop</a></nav>
  <div class="ad">Buy now! Limited offer!</div>
  <article>
    <h1>Growing Tomatoes</h1>
    <p>Tomatoes need <strong>six to eight hours</strong> of sun every day. Plant them after the last frost,
       in soil rich in compost, and water them deeply twice a week rather than a little every day.</p>
    <p>Read the <a href="/guides/soil">soil guide</a> before you start. Staking keeps the fruit off the ground
       and the leaves dry, which prevents most fungal diseases that gardeners run into in humid summers.</p>
    <h2>Pruning</h2>
    <ul><li>Remove suckers weekly.</li><li>Cut yellow leaves.</li></ul>
    <p>Harvest when the fruit is fully coloured and gives slightly when pressed; ripe tomatoes keep for days.</p>
  </article>
  <footer>© Garden Site. All rights reserved.</footer>
  <script>window.tracking = true;</script>
</body></html>`;

let server: LocalServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const send = (type: string, body: string | Buffer, status = 200) => {
      res.statusCode = status;
      res.setHeader('content-type', type);
      res.end(body);
    };
    switch (req.url) {
      case '/article':
        return send('text/html; charset=utf-8', article);
      case '/moved':
        res.statusCode = 301;
        res.setHeader('location', '/article');
        return res.end();
      case '/shell':
        return send(
          'text/html',
          '<html><head><title>App</title></head><body><div id="root">Loading the app</div><script>boot()</script></body></html>',
        );
      case '/plain':
        return send('text/plain; charset=utf-8', 'just text\nline two');
      case '/data':
        return send('application/json', '{"ok":true,"items":[1,2]}');
      case '/latin1':
        return send('text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case '/image':
        return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      case '/long':
        return send('text/plain', 'x'.repeat(5_000));
      default:
        return send('text/plain', 'no such page', 404);
    }
  });
});

afterAll(() => server.close());

const ctx = () => testContext(testConfig({ 'web.max_length': 2_000 }));

describe('web_fetch', () => {
  it('turns an HTML article into readable markdown', async () => {
    const out = await run(webFetch, { url: `${server.url}/article` }, ctx());
    expect(out).toContain(`Source: ${server.url}/article`);
    expect(out).toContain('# Growing Tomatoes');
    expect(out).toContain('**six to eight hours**');
    expect(out).toContain(`[soil guide](${server.url}/guides/soil)`);
    expect(out).toMatch(/## Pruning/);
    expect(out).toMatch(/- Remove suckers weekly\./);
    expect(out).not.toContain('tracking');
    expect(out).not.toContain('All rights reserved');
  });

  it('follows redirects and names the final URL', async () => {
    const out = await run(webFetch, { url: `${server.url}/moved` }, ctx());
    expect(out).toContain(`Source: ${server.url}/article`);
  });

  it('falls back to the body text when there is no article', async () => {
    const out = await run(webFetch, { url: `${server.url}/shell` }, ctx());
    expect(out).toContain('Loading the app');
    expect(out).not.toContain('boot()');
  });

  it('passes text and JSON through, decoding the charset', async () => {
    expect(await run(webFetch, { url: `${server.url}/plain` }, ctx())).toContain(
      'just text\nline two',
    );
    expect(await run(webFetch, { url: `${server.url}/data` }, ctx())).toContain(
      '{"ok":true,"items":[1,2]}',
    );
    expect(await run(webFetch, { url: `${server.url}/latin1` }, ctx())).toContain('café');
  });

  it('truncates to max_length with a note, never beyond web.max_length', async () => {
    const out = await run(webFetch, { url: `${server.url}/long`, max_length: 100 }, ctx());
    expect(out).toContain(`${'x'.repeat(100)}\n\n[truncated: showing 100 of 5000 characters`);
    const capped = await run(webFetch, { url: `${server.url}/long`, max_length: 1_000_000 }, ctx());
    expect(capped).toContain('showing 2000 of 5000');
  });

  it('reports HTTP errors, non-text content and refused addresses as tool errors', async () => {
    await expect(run(webFetch, { url: `${server.url}/missing` }, ctx())).rejects.toThrow(
      /HTTP 404: no such page/,
    );
    await expect(run(webFetch, { url: `${server.url}/image` }, ctx())).rejects.toThrow(
      /image\/png/,
    );
    const blocked = run(webFetch, { url: 'http://169.254.169.254/latest/meta-data/' }, ctx());
    await expect(blocked).rejects.toBeInstanceOf(ToolError);
    await expect(run(webFetch, { url: 'http://169.254.169.254/' }, ctx())).rejects.toThrow(
      /metadata address/,
    );
    await expect(run(webFetch, { url: 'file:///etc/passwd' }, ctx())).rejects.toThrow(
      /only http and https/,
    );
  });

  it('applies the egress size limit', async () => {
    const small = testContext(testConfig({ 'egress.max_body_bytes': 1_000 }));
    await expect(run(webFetch, { url: `${server.url}/long` }, small)).rejects.toThrow(
      /larger than the limit of 1000 bytes/,
    );
  });
});
