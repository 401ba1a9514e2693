import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/mcp/tools/html-to-markdown.js';

const page = 'https://garden.test/guides/tomatoes/index.html';
const filler =
  'Tomatoes want six to eight hours of sun, soil rich in compost, and deep watering twice a week. ';

const article = (body: string, head = '<title>Tomato guide | Garden</title>') =>
  `<!doctype html><html><head>${head}</head><body><nav><a href="/">Home</a></nav><article><h1>Tomato guide</h1><p>${filler.repeat(4)}</p>${body}<p>${filler.repeat(3)}</p></article><footer>© Garden</footer></body></html>`;

describe('htmlToMarkdown', () => {
  it('keeps the article and drops the page furniture', () => {
    const { title, markdown } = htmlToMarkdown(article('<h2>Pruning</h2>'), page);
    expect(title).toBe('Tomato guide | Garden');
    expect(markdown).toContain('## Pruning');
    expect(markdown).toContain('six to eight hours');
    expect(markdown).not.toContain('© Garden');
  });

  it('makes relative links and images absolute against the page URL', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<p>See <a href="../soil.html">the soil guide</a>, <a href="/shop?q=1">the shop</a> and <a href="#care">below</a>.</p><p><img src="img/plant.png" alt="plant"></p>',
      ),
      page,
    );
    expect(markdown).toContain('[the soil guide](https://garden.test/guides/soil.html)');
    expect(markdown).toContain('[the shop](https://garden.test/shop?q=1)');
    expect(markdown).toContain('![plant](https://garden.test/guides/tomatoes/img/plant.png)');
    expect(markdown).toContain('[below](#care)');
  });

  it('leaves javascript: and data: links as they are instead of resolving them', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<p><a href="javascript:alert(1)">click</a> and <a href="data:text/html,x">data</a></p>',
      ),
      page,
    );
    expect(markdown).not.toContain('https://garden.test/javascript');
    expect(markdown).not.toContain('https://garden.test/data');
  });

  it('writes lists with one space after the marker and fences code', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<ul><li>Remove suckers</li><li>Cut yellow leaves</li></ul><ol><li>Plant</li><li>Water</li></ol><pre><code>water(days=2)</code></pre>',
      ),
      page,
    );
    expect(markdown).toMatch(/^- Remove suckers$/m);
    expect(markdown).toMatch(/^- Cut yellow leaves$/m);
    expect(markdown).toMatch(/^1\. Plant$/m);
    expect(markdown).toMatch(/^2\. Water$/m);
    expect(markdown).toContain('```\nwater(days=2)\n```');
  });

  it('never carries script or style text into the result', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<script>steal(document.cookie)</script><style>.x{color:red}</style><noscript>enable js</noscript>',
      ),
      page,
    );
    expect(markdown).not.toMatch(/steal|color:red|enable js/);
  });

  it('falls back to the body text of a page with no article', () => {
    const { title, markdown } = htmlToMarkdown(
      '<html><head><title> App </title><script>boot()</script></head><body><div id="root">Loading…</div><template><p>hidden</p></template><script>init()</script></body></html>',
      page,
    );
    expect(title).toBe('App');
    expect(markdown).toBe('Loading…');
  });

  // linkedom's parseHTML('') yields a document without a documentElement, on which every query
  // throws: web_fetch of an empty text/html page answered -32603 instead of an empty result.
  it('copes with an empty document', () => {
    expect(htmlToMarkdown('', page)).toEqual({ title: '', markdown: '' });
    expect(htmlToMarkdown(' \n ', page)).toEqual({ title: '', markdown: '' });
  });
});
