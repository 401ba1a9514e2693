import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { EgressError } from '../errors/egress-errors.js';

/**
 * Collects a response body, decompressing it if the server compressed it anyway, and stops as
 * soon as the (decompressed) size passes `maxBytes` — a small gzip bomb cannot fill memory.
 */
export function readBody(res: IncomingMessage, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity' && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge(url, maxBytes));
  }
  const stream = decoder(res, encoding);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // Reject first: destroying the response emits 'aborted' synchronously.
        reject(tooLarge(url, maxBytes));
        res.destroy();
        stream.destroy();
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', (err) =>
      reject(
        err instanceof EgressError
          ? err
          : new EgressError('network', `reading ${url} failed: ${err.message}`),
      ),
    );
    res.on('aborted', () =>
      reject(new EgressError('network', `connection to ${url} closed early`)),
    );
  });
}

function decoder(res: IncomingMessage, encoding: string): Readable {
  const make = {
    gzip: createGunzip,
    'x-gzip': createGunzip,
    deflate: createInflate,
    br: createBrotliDecompress,
  }[encoding];
  if (!make) return res;
  const stream = make();
  res.on('error', (err) => stream.destroy(err));
  return res.pipe(stream);
}

function tooLarge(url: string, maxBytes: number): EgressError {
  return new EgressError(
    'too_large',
    `response from ${url} is larger than the limit of ${maxBytes} bytes`,
  );
}
