import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * The AI's Markdown as React elements, with GitHub's tables, strikethrough and task lists: raw
 * HTML in it is dropped (never parsed into the page), and link targets pass react-markdown's
 * URL filter (no `javascript:`), opening in a new tab, underlined so they do not differ from the
 * text by colour alone.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        remarkPlugins={[remarkGfm]}
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {children}
            </a>
          ),
          img: ({ alt }) => <span>[image: {alt ?? ''}]</span>,
          table: ({ children }) => (
            // A frame that may scroll sideways: focusable, so a keyboard can scroll it.
            <div className="markdown-table" role="region" aria-label="Table" tabIndex={0}>
              <table>{children}</table>
            </div>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
