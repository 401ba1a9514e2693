import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createAllowlist } from './allowlist.js';
import { EgressError } from '../errors/egress-errors.js';
import { readBody } from './read-body.js';
import {
  parseUrl,
  resolveTarget,
  systemResolver,
  type Resolver,
  type Target,
} from './resolve-target.js';

export { EgressError } from '../errors/egress-errors.js';

export interface EgressOptions {
  /** `egress.allow` entries: host, IP or CIDR, optionally `:port`. */
  allow: readonly string[];
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  /** Replaces the system resolver (tests). */
  resolver?: Resolver;
}

export interface EgressRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Lower (never higher) than the client's maxBodyBytes. */
  maxBytes?: number;
  /** Lower (never higher) than the client's timeoutMs; covers all redirects and the body. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Sees each request as it is about to leave, the first and every redirect hop, before its host
   * is even looked up in DNS; throwing refuses it (the secret-destination check of script runs).
   */
  inspect?: (hop: OutgoingRequest) => void;
}

export interface OutgoingRequest {
  url: URL;
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | undefined;
}

export interface EgressResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The final URL after redirects. */
  url: string;
}

export interface Egress {
  fetch(url: string, request?: EgressRequest): Promise<EgressResponse>;
  /** Throws the EgressError a request to `url` would meet, without sending anything. */
  check(url: string): Promise<void>;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization'];

export function createEgress(options: EgressOptions): Egress {
  const allow = createAllowlist(options.allow);
  const resolver = options.resolver ?? systemResolver;

  async function fetchUrl(rawUrl: string, request: EgressRequest = {}): Promise<EgressResponse> {
    const timeoutMs = Math.min(request.timeoutMs ?? options.timeoutMs, options.timeoutMs);
    const maxBytes = Math.min(request.maxBytes ?? options.maxBodyBytes, options.maxBodyBytes);
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        controller.abort(
          new EgressError('timeout', `request to ${rawUrl} timed out after ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
    const onAbort = () =>
      controller.abort(new EgressError('aborted', `request to ${rawUrl} was cancelled`));
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await withAbort(
        follow(rawUrl, request, maxBytes, controller.signal),
        controller.signal,
      );
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  async function follow(
    rawUrl: string,
    request: EgressRequest,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<EgressResponse> {
    let url = parseUrl(rawUrl);
    let method = (request.method ?? 'GET').toUpperCase();
    let body = request.body;
    // Framing headers are computed from the body actually sent, never taken from the caller.
    let headers = withoutKeys(lowerKeys(request.headers ?? {}), [
      'content-length',
      'transfer-encoding',
      'connection',
    ]);
    for (let hop = 0; ; hop++) {
      request.inspect?.({ url, method, headers, body });
      const target = await resolveTarget(url, allow, resolver).catch((err: unknown) => {
        if (hop > 0 && err instanceof EgressError) {
          throw new EgressError(err.code, `${err.message} (reached by a redirect from ${rawUrl})`);
        }
        throw err;
      });
      signal.throwIfAborted();
      const res = await send(target, method, headers, body, signal);
      const location = res.headers.location;
      if (!redirectStatuses.has(res.statusCode ?? 0) || !location) {
        const data = await readBody(res, maxBytes, url.href);
        return {
          status: res.statusCode ?? 0,
          headers: flatten(res.headers),
          body: data,
          url: url.href,
        };
      }
      res.resume();
      if (hop >= options.maxRedirects) {
        throw new EgressError(
          'too_many_redirects',
          `too many redirects (more than ${options.maxRedirects}) starting at ${rawUrl}`,
        );
      }
      const next = (() => {
        try {
          return parseUrl(location, url.href);
        } catch (err) {
          if (!(err instanceof EgressError)) throw err;
          throw new EgressError(err.code, `${err.message} (redirect from ${url.href})`);
        }
      })();
      if (
        res.statusCode === 303 ||
        ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
      ) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers = withoutKeys(headers, ['content-type', 'content-length']);
      }
      // Credentials meant for one origin must not travel to another one a redirect names.
      if (next.origin !== url.origin) headers = withoutKeys(headers, credentialHeaders);
      url = next;
    }
  }

  return {
    fetch: fetchUrl,
    async check(url) {
      await resolveTarget(parseUrl(url), allow, resolver);
    },
  };
}

function send(
  target: Target,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  // Node's connect calls this instead of DNS, so the socket goes to an address already checked.
  // With autoSelectFamily (on by default) it gets all of them and falls back from one to the next.
  const [first] = target.addresses;
  const pinned: LookupFunction = (_host, opts, callback) => {
    if (opts.all) callback(null, target.addresses);
    else callback(null, first?.address ?? '', first?.family ?? 4);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  const finalHeaders: Record<string, string> = { 'accept-encoding': 'identity', ...headers };
  if (body !== undefined) finalHeaders['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = transport.request(
      {
        protocol: target.url.protocol,
        hostname: target.host,
        port: target.port,
        path: target.url.pathname + target.url.search,
        method,
        headers: finalHeaders,
        lookup: pinned,
        agent: false,
        signal,
        ...(target.url.protocol === 'https:'
          ? { servername: isIpLiteral(target.host) ? undefined : target.host }
          : {}),
      },
      resolve,
    );
    req.on('error', (err) =>
      reject(
        signal.aborted
          ? signal.reason
          : new EgressError('network', `request to ${target.url.href} failed: ${err.message}`),
      ),
    );
    req.end(body);
  });
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** Rejects with the abort reason the moment the signal fires, whatever stage the request is at. */
function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise
      .then(resolve, (err) => reject(signal.aborted ? signal.reason : err))
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutKeys(headers: Record<string, string>, drop: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !drop.includes(k)));
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
