import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { inspectMessage } from './message-guard.js';
import type { ToolRateLimiter } from './rate-limit.js';
import { rpcCodes, rpcErrorResponse } from '../errors/rpc-error.js';

/** Lines longer than this are refused rather than buffered without end. */
const MAX_LINE = 4 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over stdio. Written for the spec's error behaviour: the SDK's own
 * stdio transport drops unparsable lines and malformed messages without a reply.
 */
export class GuardedStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private buffer = '';
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly limiter: ToolRateLimiter,
    private readonly connectionKey = 'stdio',
  ) {}

  async start(): Promise<void> {
    this.input.setEncoding('utf8');
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.output.write(line)) await new Promise((r) => this.output.once('drain', r));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.onclose?.();
  }

  private readonly onData = (chunk: string) => {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() !== '') this.enqueue(line);
    }
    if (this.buffer.length > MAX_LINE) {
      this.buffer = '';
      void this.send(
        rpcErrorResponse(
          null,
          rpcCodes.invalidRequest,
          'Invalid Request: message too large',
        ) as never,
      );
    }
  };

  private readonly onEnd = () => {
    void this.chain.then(() => this.close());
  };

  private readonly onInputError = (err: Error) => this.onerror?.(err);

  /** Lines are handled strictly in order, even though the rate limiter is asynchronous. */
  private enqueue(line: string): void {
    this.chain = this.chain
      .then(() => this.handle(line))
      .catch((err: unknown) => {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      });
  }

  private async handle(line: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      await this.send(
        rpcErrorResponse(null, rpcCodes.parseError, 'Parse error: invalid JSON') as never,
      );
      return;
    }
    const verdict = inspectMessage(raw);
    if (verdict.kind === 'reply') {
      await this.send(verdict.response as never);
      return;
    }
    if (verdict.isRequest && !(await this.limiter.allow(this.connectionKey))) {
      const id = (verdict.message as { id: string | number }).id;
      await this.send(rpcErrorResponse(id, rpcCodes.rateLimited, this.limiter.message) as never);
      return;
    }
    this.onmessage?.(verdict.message);
  }
}
