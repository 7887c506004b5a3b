/**
 * The Redis connection of the job queue: `redis://[user:password@]host:port[/db]` (or `rediss://` for
 * TLS). Commands wait through a lost connection instead of failing (`maxRetriesPerRequest: null`, as
 * BullMQ workers need), and reconnects back off from 100 ms to 5 s, so a Redis restart only pauses a run.
 */
import { Queue } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { notice } from '../util/log.js';
import { GsrError } from '../util/errors.js';

/** Key prefix of everything gsr keeps in Redis (BullMQ queues and the run registry). */
export const KEY_PREFIX = 'gsr';

/** Reconnect delay after `times` failed attempts: doubling from 100 ms, capped at 5 s. */
export function reconnectDelayMs(times: number): number {
  return Math.min(5000, 100 * 2 ** Math.min(times - 1, 6));
}

/** ioredis options for a queue URL; a malformed URL is a one-line error. */
export function redisOptions(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new GsrError(`--queue must be a Redis URL like redis://127.0.0.1:6379/0, got "${url}"`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new GsrError(`--queue must start with redis:// or rediss://, got "${url}"`);
  const dbText = u.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new GsrError(`--queue: the database number must be a non-negative integer, got "${dbText}"`);
  const port = u.port === '' ? 6379 : Number(u.port);
  return {
    host: u.hostname || '127.0.0.1',
    port,
    db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelayMs,
  };
}

/** The URL without its password, for messages and the run registry. */
export function safeQueueUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A connection that says once when Redis goes away and once when it is back (not on every retry),
 * while its commands wait for it.
 */
export function openRedis(url: string, options: Partial<RedisOptions> = {}): Redis {
  const redis = new Redis({ ...redisOptions(url), ...options });
  let down = false;
  redis.on('error', (err: NodeJS.ErrnoException) => {
    if (down) return;
    down = true;
    notice(`Redis at ${safeQueueUrl(url)}: ${err.code ?? err.message}; retrying with backoff`);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    notice(`Redis at ${safeQueueUrl(url)}: connected again`);
  });
  return redis;
}

/**
 * A BullMQ queue on a shared connection from `openRedis`, which reports connection errors itself. The
 * queue re-emits them; without a listener BullMQ prints each with its stack.
 */
export function openQueue(name: string, redis: Redis): Queue {
  const queue = new Queue(name, { connection: redis, prefix: KEY_PREFIX });
  queue.on('error', () => undefined);
  return queue;
}
