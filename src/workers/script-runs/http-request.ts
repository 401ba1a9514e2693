import {
  Dict,
  None,
  Secret,
  StarlarkError,
  typeName,
  type Thread,
  type Value,
} from '../../starlark/values/index.js';
import { encodeJSON } from '../../starlark/index.js';
import type { PlacedSecret } from '../../secrets/secret-destinations.js';
import type { HttpCall } from './host-calls.js';
import type { SecretVault } from './secret-handles.js';
import { placeUrl, type PlacedUrl } from './secret-url.js';

/** What a script passed to `http.get`/`http.post`, as Starlark values. */
export interface HttpArgs {
  method: 'GET' | 'POST';
  url: Value;
  headers: Value | undefined;
  /** POST only: a string, a secret, or a value sent as JSON. */
  body?: Value | undefined;
  contentType?: Value | undefined;
}

export interface HttpRequest {
  call: HttpCall;
  /** The host's error text for this request with every secret text in it shown as its handle. */
  hide(message: string): string;
}

/** What Node refuses in a header value (`checkInvalidHeaderChar`). */
const badHeaderText = /[^\t\x20-\x7e\x80-\xff]/;

const label = (s: Secret) => `<secret ${s.names().join(', ')}>`;

/**
 * The request a script's `http` call makes, with its secrets placed: the URL, header values and
 * body become text here, in the host, and `call.secrets` says which secret went where, for the
 * main thread's check against the script's bindings. `vault` is null when scripts hold plain
 * values (`scripts.secret_values: plain`), where no handle exists.
 */
export function buildHttpRequest(
  fn: string,
  args: HttpArgs,
  vault: SecretVault | null,
  thread: Thread,
): HttpRequest {
  const placed: PlacedSecret[] = [];
  const hidden: Array<[string, string]> = [];
  const place = (s: Secret, where: string) => {
    for (const name of s.names()) {
      if (!placed.some((p) => p.name === name && p.place === where))
        placed.push({ name, place: where });
    }
  };
  const textOf = (s: Secret, what: string): string => {
    if (vault === null) throw s.refuse(`${fn}: ${what}`);
    return vault.text(s);
  };

  let url: string;
  let placedUrl: PlacedUrl | null = null;
  if (typeof args.url === 'string') url = args.url;
  else if (args.url instanceof Secret) {
    if (vault === null) throw args.url.refuse(`${fn}: url`);
    placedUrl = placeUrl(fn, args.url, vault.atomText);
    url = placedUrl.url;
    place(args.url, 'url');
    hidden.push(...placedUrl.texts);
  } else
    throw new StarlarkError(`${fn}: for parameter url: got ${typeName(args.url)}, want string`);

  const headers: Record<string, string> = {};
  if (args.headers !== undefined && args.headers !== None) {
    if (!(args.headers instanceof Dict)) throw new StarlarkError(`${fn}: headers must be a dict`);
    for (const [k, v] of args.headers.entries()) {
      if (typeof k !== 'string')
        throw new StarlarkError(`${fn}: headers keys and values must be strings`);
      if (typeof v === 'string') {
        headers[k] = v;
        continue;
      }
      if (!(v instanceof Secret))
        throw new StarlarkError(`${fn}: headers keys and values must be strings`);
      const text = textOf(v, `header ${k}`);
      if (badHeaderText.test(text)) {
        throw new StarlarkError(
          `${fn}: header ${k}: ${label(v)} holds a character a header value cannot carry (a line break, a control character or one beyond U+00FF)`,
        );
      }
      headers[k] = text;
      place(v, `header ${k.toLowerCase()}`);
      hidden.push([text, v.repr()]);
    }
  }

  let body: string | undefined;
  if (args.method === 'POST') {
    const b = args.body;
    if (b === undefined) body = '';
    else if (typeof b === 'string') body = b;
    else {
      const encoded =
        b instanceof Secret ? b : encodeJSON(fn, b, thread, vault?.jsonString ?? null);
      if (typeof encoded === 'string') body = encoded;
      else if (encoded instanceof Secret) {
        body = textOf(encoded, 'body');
        place(encoded, 'body');
      } else throw new StarlarkError(`${fn}: body could not be encoded`);
    }
    const type =
      args.contentType === undefined
        ? 'application/json'
        : wantText(fn, 'content_type', args.contentType);
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
      headers['content-type'] = type;
    }
  }

  return {
    call: {
      method: args.method,
      url,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(placed.length > 0 ? { secrets: placed } : {}),
    },
    hide: (message) => hide(message, placedUrl, hidden),
  };
}

function wantText(fn: string, param: string, v: Value): string {
  if (typeof v === 'string') return v;
  if (v instanceof Secret) throw v.refuse(`${fn}: ${param}`);
  throw new StarlarkError(`${fn}: for parameter ${param}: got ${typeName(v)}, want string`);
}

/**
 * Error text that may quote the request's URL (the host's messages name the URL of the hop that
 * failed) with the URL as shown and every placed text as its handle; a URL that was a secret
 * whole has its host hidden too.
 */
function hide(
  message: string,
  url: PlacedUrl | null,
  texts: ReadonlyArray<[string, string]>,
): string {
  const swaps: Array<[string, string]> = [];
  if (url !== null) {
    swaps.push([url.url, url.shown]);
    if (url.secretHost) {
      const { host, hostname } = new URL(url.url);
      swaps.push([host, '<host of a secret URL>'], [hostname, '<host of a secret URL>']);
    }
  }
  swaps.push(...texts);
  let out = message;
  for (const [text, shown] of swaps.sort((a, b) => b[0].length - a[0].length)) {
    if (text !== '') out = out.split(text).join(shown);
  }
  return out;
}
