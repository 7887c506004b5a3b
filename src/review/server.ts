/**
 * The review web server (fastify): the page, its script, and a small JSON API over a ReviewSession.
 * Bound to 127.0.0.1 by default; on any other address every API request must carry the one-time
 * token printed at start. The Host header must name the bound address (no DNS rebinding).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import sharp from 'sharp';
import { GsrError, MachineFault, errorMessage } from '../util/errors.js';
import { EditSchema, REVIEW_STATES, type SlotLabel } from './edits.js';
import { modelBox, slotKey, type Role } from './labels.js';
import { REASON_KINDS } from './queue.js';
import { clientScript, pageHtml } from './page.js';
import type { ReviewSession } from './session.js';

export interface ServeOptions {
  host?: string;
  port?: number;
}

export interface RunningServer {
  url: string;
  /** Set when bound beyond loopback: the page must present it (`?token=` or the x-gsr-token header). */
  token: string | null;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

const IMAGE_TYPES: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp', '.gif': 'image/gif', '.bmp': 'image/bmp', '.tif': 'image/tiff', '.tiff': 'image/tiff' };

function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function labelJson(session: ReviewSession, key: string, label: SlotLabel) {
  return {
    key,
    box: label.box,
    state: label.state,
    absent: label.absent,
    wrong_instance: label.wrongInstance,
    box_changed: label.boxChanged,
    mask: label.mask ? { source: label.mask.source, score: label.mask.score } : null,
    note: label.note,
    reviewer: label.reviewer,
    time: label.time,
    undoable: label.depth,
    version: `${label.depth}-${label.time ?? ''}`,
    /** The segmenter re-segmenting would use; null when none is configured or its files are missing. */
    segmenter: session.segmenterInstalled ? session.segmenterId : null,
  };
}

/**
 * `allowedHosts`: Host header values accepted (loopback binding); null accepts any, the token then
 * guarding every API request.
 */
export async function buildServer(session: ReviewSession, options: { token: string | null; allowedHosts: Set<string> | null }): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  const script = await clientScript();
  const page = pageHtml(script);

  app.addHook('onRequest', async (req, reply) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (options.allowedHosts && !options.allowedHosts.has(host)) return reply.code(421).send({ error: 'unexpected Host header' });
    if (options.token && req.url.startsWith('/api/')) {
      const given = req.headers['x-gsr-token'] ?? (req.query as Record<string, unknown> | undefined)?.token;
      if (!tokenMatches(options.token, given)) return reply.code(401).send({ error: 'missing or wrong token' });
    }
  });
  app.setErrorHandler((err: unknown, _req, reply) => {
    // A full or failing disk is the server's trouble, not a bad request: 507, with the message for the page.
    const status = err instanceof MachineFault ? 507 : err instanceof GsrError ? 400 : ((err as { statusCode?: number }).statusCode ?? 500);
    void reply.code(status).send({ error: errorMessage(err) });
  });

  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');
  app.get('/', async (_req, reply) => noStore(reply).type('text/html; charset=utf-8').header('content-security-policy', page.csp).send(page.html));

  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send());

  const keyOf = (req: FastifyRequest) => {
    const { item, role } = req.params as { item: string; role: string };
    if (role !== 'subject' && role !== 'object') throw new GsrError(`role must be subject or object, got "${role}"`);
    return slotKey(item, role as Role);
  };

  app.get('/api/session', async (_req, reply) => {
    const splits = [...new Set(session.slots.map((s) => s.split))].sort();
    const nouns = [...new Set(session.slots.map((s) => s.phrase))].sort();
    return noStore(reply).send({
      reviewer: session.options.reviewer,
      annotations: session.options.annotations,
      total: session.slots.length,
      splits,
      nouns,
      reasons: REASON_KINDS,
      states: REVIEW_STATES,
      segmenter: session.segmenterId,
      segmenter_installed: session.segmenterInstalled,
    });
  });

  app.get('/api/queue', async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const entries = [];
    let rank = 0;
    for (const e of session.queue) {
      rank++;
      const slot = session.slot(e.key);
      const label = session.label(e.key);
      if (q.split && slot.split !== q.split) continue;
      if (q.noun && slot.phrase !== q.noun) continue;
      if (q.reason && !e.reasons.some((r) => r.kind === q.reason)) continue;
      if (q.state && label.state !== q.state) continue;
      entries.push({ key: e.key, rank, item: slot.item, role: slot.role, phrase: slot.phrase, split: slot.split, suspicion: e.suspicion, reasons: e.reasons, state: label.state });
    }
    return noStore(reply).send({ entries, total: session.queue.length });
  });

  app.get('/api/slot/:item/:role', async (req, reply) => {
    const key = keyOf(req);
    const slot = session.slot(key);
    const other = session.slots.find((s) => s.item === slot.item && s.role !== slot.role);
    const entry = session.queue.find((e) => e.key === key)!;
    const m = slot.manifest;
    return noStore(reply).send({
      key,
      item: slot.item,
      role: slot.role,
      phrase: slot.phrase,
      split: slot.split,
      width: slot.image.width,
      height: slot.image.height,
      caption: m.options[m.answer],
      relation: m.relation,
      model: slot.model ? { box: modelBox(slot), score: slot.model.score, runners_up: (slot.model.runners_up ?? []).map((r) => ({ box: [r.bbox[0], r.bbox[1], r.bbox[0] + r.bbox[2], r.bbox[1] + r.bbox[3]], score: r.score })) } : null,
      other: other ? { role: other.role, phrase: other.phrase, box: session.label(other.key).box } : null,
      suspicion: entry.suspicion,
      reasons: entry.reasons,
      label: labelJson(session, key, session.label(key)),
    });
  });

  app.post('/api/slot/:item/:role/edit', async (req, reply) => {
    const key = keyOf(req);
    const parsed = EditSchema.safeParse(req.body);
    if (!parsed.success || parsed.data.kind === 'mask') return reply.code(400).send({ error: 'not a review edit' });
    const label = session.edit(key, parsed.data);
    return noStore(reply).send(labelJson(session, key, label));
  });

  app.post('/api/slot/:item/:role/segment', async (req, reply) => {
    const key = keyOf(req);
    let label: SlotLabel;
    try {
      label = await session.resegment(key);
    } catch (err) {
      if (err instanceof GsrError && !(err instanceof MachineFault)) return reply.code(409).send({ error: err.message });
      throw err;
    }
    return noStore(reply).send(labelJson(session, key, label));
  });

  app.get('/api/image/:item', async (req, reply) => {
    const { item } = req.params as { item: string };
    const path = await session.imagePath(item);
    const type = IMAGE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
    return reply.header('cache-control', 'private, max-age=3600').type(type).send(await readFile(path));
  });

  app.get('/api/mask/:item/:role', async (req, reply) => {
    const key = keyOf(req);
    const m = session.maskOf(key);
    if (!m) return reply.code(404).send({ error: 'no mask' });
    const rgba = Buffer.alloc(m.width * m.height * 4);
    for (let i = 0; i < m.mask.length; i++) {
      if (!m.mask[i]) continue;
      rgba[i * 4] = 255;
      rgba[i * 4 + 1] = 200;
      rgba[i * 4 + 2] = 0;
      rgba[i * 4 + 3] = 110;
    }
    const png = await sharp(rgba, { raw: { width: m.width, height: m.height, channels: 4 } }).png({ compressionLevel: 3 }).toBuffer();
    return noStore(reply).type('image/png').send(png);
  });

  return app;
}

/** Starts the server; beyond loopback it makes a one-time token. */
export async function serveReview(session: ReviewSession, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const token = isLoopback(host) ? null : randomBytes(24).toString('base64url');
  const allowedHosts = token ? null : new Set<string>();
  const app = await buildServer(session, { token, allowedHosts });
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (err) {
    throw new GsrError(`cannot listen on ${host}:${options.port ?? 0}: ${errorMessage(err)}`);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 0;
  const shown = host.includes(':') ? `[${host}]` : host;
  for (const h of [shown, 'localhost', '127.0.0.1', '[::1]']) allowedHosts?.add(`${h}:${port}`.toLowerCase());
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : shown}:${port}/${token ? `?token=${token}` : ''}`;
  return { url, token, close: () => app.close() };
}
