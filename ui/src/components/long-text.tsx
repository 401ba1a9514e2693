import { Button, Group, Text } from '@mantine/core';
import { useId, useState, type ReactNode } from 'react';
import { isLong, lineCount } from './long-text-measure';

/**
 * A log, an output or an AI reply that can be longer than a screen: collapsed to a box that
 * scrolls inside itself, with its line count, a button that expands it and one that downloads
 * it whole. Lines wrap, so an unbroken line never widens the page. `children` shows the text
 * rendered (Markdown); without them it is shown as it is.
 */
export function LongText({
  text,
  label,
  filename,
  children,
}: {
  text: string;
  /** What the text is ("Output", "Logs"): names the box and its buttons. */
  label: string;
  filename: string;
  children?: ReactNode;
}) {
  const long = isLong(text);
  const [expanded, setExpanded] = useState(false);
  const id = useId();
  const lines = lineCount(text);
  const body = children ?? <pre className="long-text-pre">{text}</pre>;
  if (!long) return <div className="long-text">{body}</div>;

  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  };

  return (
    <div className="long-text">
      <Group gap="xs" justify="space-between" mb={4}>
        <Text size="xs" c="dimmed">
          {lines} {lines === 1 ? 'line' : 'lines'}, {text.length.toLocaleString('en')} characters
        </Text>
        <Group gap="xs">
          <Button
            size="compact-xs"
            variant="default"
            aria-expanded={expanded}
            aria-controls={id}
            onClick={() => setExpanded((e) => !e)}
          >
            {expanded ? `Collapse ${label.toLowerCase()}` : `Show all of ${label.toLowerCase()}`}
          </Button>
          <Button size="compact-xs" variant="default" onClick={download}>
            Download {label.toLowerCase()}
          </Button>
        </Group>
      </Group>
      {/* Scrolls inside itself while collapsed: focusable, so a keyboard can scroll it too. */}
      <div
        id={id}
        className={expanded ? 'long-text-box' : 'long-text-box collapsed'}
        role="region"
        aria-label={label}
        tabIndex={0}
      >
        {body}
      </div>
    </div>
  );
}
