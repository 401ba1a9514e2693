import ReactMarkdown from 'react-markdown';

/**
 * The AI's Markdown as React elements: raw HTML in it is dropped (never parsed into the page),
 * and link targets pass react-markdown's URL filter (no `javascript:`), opening in a new tab.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <ReactMarkdown
      skipHtml
      components={{
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow">
            {children}
          </a>
        ),
        img: ({ alt }) => <span>[image: {alt ?? ''}]</span>,
      }}
    >
      {text}
    </ReactMarkdown>
  );
}
