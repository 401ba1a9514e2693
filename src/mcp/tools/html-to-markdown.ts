import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface Readable {
  title: string;
  markdown: string;
}

/**
 * The readable part of a page as markdown: Readability picks the article, Turndown converts it.
 * Pages Readability cannot make sense of (app shells, link lists) fall back to the body text.
 */
export function htmlToMarkdown(html: string, pageUrl: string): Readable {
  // linkedom gives a document without a root element for blank input, on which every query
  // throws; an empty page is simply empty.
  if (html.trim() === '') return { title: '', markdown: '' };
  const { document } = parseHTML(html);
  absolutiseLinks(document, pageUrl);
  const pageTitle = (document.querySelector('title')?.textContent ?? '').trim();
  let article: ReturnType<Readability['parse']> = null;
  try {
    // Readability mutates the document, so hand it a separate copy and keep ours for the fallback.
    article = new Readability(parseHTML(document.toString()).document as never).parse();
  } catch {
    article = null;
  }
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  turndown.remove(['script', 'style', 'noscript', 'iframe']);
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    return {
      title: (article.title ?? pageTitle).trim(),
      markdown: tidy(turndown.turndown(article.content)),
    };
  }
  for (const node of document.querySelectorAll('script, style, noscript, template')) node.remove();
  const text = (document.body?.textContent ?? document.documentElement?.textContent ?? '').replace(
    /[ \t]+/g,
    ' ',
  );
  return { title: pageTitle, markdown: tidy(text) };
}

function absolutiseLinks(
  document: ReturnType<typeof parseHTML>['document'],
  pageUrl: string,
): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (!value || value.startsWith('#') || /^(javascript|data):/i.test(value)) continue;
      try {
        element.setAttribute(attribute, new URL(value, pageUrl).href);
      } catch {}
    }
  }
}

function tidy(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      // Turndown pads list markers to four columns ("-   item"); one space reads better and is shorter.
      .replace(/^(\s*)(-|\d+\.) {2,}/gm, '$1$2 ')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
