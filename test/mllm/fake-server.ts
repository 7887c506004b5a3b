import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the fake endpoint does with one request. */
export type Fault = 'ok' | '500' | '429' | 'hang' | 'malformed' | 'empty' | 'trickle' | 'reset' | '400' | 'null-content' | 'invalid-utf8';

export interface FakeServerOptions {
  /** Decides each request's fate from the prompt text and how many times that text was asked before. */
  fault?: (text: string, previousRequests: number) => Fault;
  latencyMs?: number;
  /** retry-after header value for 429s. */
  retryAfter?: string;
  /** Trickle: total time to send the body in slices. */
  trickleMs?: number;
  /** Answer requests that carry a `response_format` with HTTP 400 naming it (an endpoint without structured outputs). */
  rejectResponseFormat?: boolean;
  /** Hold every answer until this many requests are open at once (proves clients overlap), then answer normally. */
  gate?: number;
  /** The content of an ok answer, from the prompt text, how many times it was asked before and the request body (default: `fakeAnswer`). */
  reply?: (text: string, previousRequests: number, body: unknown) => string;
}

export interface FakeServer {
  url: string;
  /** Requests received per prompt text. */
  requests: Map<string, number>;
  /** Prompt texts answered with 200 and a real answer, per text. */
  answered: Map<string, number>;
  /** Arrival times (ms) per prompt text. */
  times: Map<string, number[]>;
  /** Authorization headers seen. */
  authorization: Set<string>;
  bodies: unknown[];
  /** Request bodies as received, byte for byte (decoded as UTF-8). */
  rawBodies: string[];
  totalRequests(): number;
  /** Most requests open at once. */
  maxInFlight(): number;
  close(): Promise<void>;
}

/** The answer the fake model gives to a prompt text (deterministic, so tests can check it). */
export function fakeAnswer(text: string): string {
  return `answer to: ${text.slice(0, 40)}`;
}

function promptText(body: unknown): string {
  const content = (body as { messages?: Array<{ content?: Array<{ type: string; text?: string }> }> })?.messages?.[0]?.content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}

/** A real HTTP server on 127.0.0.1 (random port) speaking just enough Chat Completions, with faults. */
export async function startFakeServer(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const requests = new Map<string, number>();
  const answered = new Map<string, number>();
  const times = new Map<string, number[]>();
  const authorization = new Set<string>();
  const bodies: unknown[] = [];
  const rawBodies: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let total = 0;
  let gateOpen = opts.gate === undefined;
  const held: Array<() => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => (timers.delete(t), fn()), ms);
    timers.add(t);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400).end('{"error":"bad json"}');
      return;
    }
    bodies.push(body);
    rawBodies.push(raw);
    if (opts.rejectResponseFormat && (body as { response_format?: unknown }).response_format !== undefined) {
      res.writeHead(400).end('{"error":"response_format is not supported by this server"}');
      return;
    }
    if (req.headers.authorization) authorization.add(req.headers.authorization);
    const text = promptText(body);
    const before = requests.get(text) ?? 0;
    requests.set(text, before + 1);
    times.set(text, [...(times.get(text) ?? []), Date.now()]);
    total++;
    const fault = opts.fault?.(text, before) ?? 'ok';
    const ok = JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: opts.reply?.(text, before, body) ?? fakeAnswer(text) }, finish_reason: 'stop' }] });
    const respond = () => {
      switch (fault) {
        case 'ok':
          answered.set(text, (answered.get(text) ?? 0) + 1);
          res.writeHead(200, { 'content-type': 'application/json' }).end(ok);
          return;
        case '500':
          res.writeHead(500).end('{"error":"boom"}');
          return;
        case '400':
          res.writeHead(400).end('{"error":"bad request"}');
          return;
        case '429':
          res.writeHead(429, opts.retryAfter !== undefined ? { 'retry-after': opts.retryAfter } : {}).end('{"error":"slow down"}');
          return;
        case 'hang':
          return; // never answers; the client must time out
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ {"message": ');
          return;
        case 'empty':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": []}');
          return;
        case 'null-content':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [{"message": {"content": null}, "finish_reason": "content_filter"}]}');
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'invalid-utf8': {
          // A well-formed reply whose content holds a lone continuation byte and a truncated sequence.
          const [head, tail] = ok.split('answer to: ');
          res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat([Buffer.from(head + 'answer '), Buffer.from([0x80, 0xe2, 0x82]), Buffer.from(' to: ' + tail)]));
          return;
        }
        case 'trickle': {
          res.writeHead(200, { 'content-type': 'application/json' });
          const slices = 10;
          let i = 0;
          const step = () => {
            if (res.destroyed) return;
            const part = ok.slice(Math.floor((i * ok.length) / slices), Math.floor(((i + 1) * ok.length) / slices));
            i++;
            if (i < slices) {
              res.write(part);
              later((opts.trickleMs ?? 500) / slices, step);
            } else {
              answered.set(text, (answered.get(text) ?? 0) + 1);
              res.end(part);
            }
          };
          step();
          return;
        }
      }
    };
    const go = () => (opts.latencyMs ? later(opts.latencyMs, respond) : respond());
    if (gateOpen) go();
    else held.push(go);
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (!gateOpen && inFlight >= opts.gate!) {
      gateOpen = true;
      // Answer the held requests once this one is registered too.
      setImmediate(() => held.splice(0).forEach((go) => go()));
    }
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answered,
    times,
    authorization,
    bodies,
    rawBodies,
    totalRequests: () => total,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
