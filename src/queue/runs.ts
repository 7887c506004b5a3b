/**
 * The run registry: one Redis hash (`gsr:runs`) mapping each queued run's id to what its workers need
 * (its kind, BullMQ queue name and job spec). Queue names are namespaced per run: `annotate-<id>` or
 * `run-<id>`, where the id is a hash of the output path plus a random part; the submitter keeps the id
 * beside its output so that `--resume` re-attaches to the same queue.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sha256Hex } from '../util/hash.js';
import { KEY_PREFIX } from './connection.js';

export type RunKind = 'annotate' | 'run';

export interface QueueRun<Spec = unknown> {
  id: string;
  kind: RunKind;
  /** BullMQ queue name (under the `gsr` prefix). */
  queue: string;
  created: string;
  /** Output the submitter writes (a folder or a run store), for `gsr queue status`. */
  out: string;
  /** What a worker needs to do this run's jobs. */
  spec: Spec;
}

export const REGISTRY_KEY = `${KEY_PREFIX}:runs`;

/** A new run id: 8 hex digits of the output path's hash, a dash, 6 random hex digits. */
export function newRunId(out: string): string {
  return `${sha256Hex(out).slice(0, 8)}-${randomBytes(3).toString('hex')}`;
}

export function queueNameOf(kind: RunKind, id: string): string {
  return `${kind}-${id}`;
}

export async function registerRun(redis: Redis, run: QueueRun): Promise<void> {
  await redis.hset(REGISTRY_KEY, run.id, JSON.stringify(run));
}

export async function getRun(redis: Redis, id: string): Promise<QueueRun | null> {
  const text = await redis.hget(REGISTRY_KEY, id);
  return text === null ? null : (JSON.parse(text) as QueueRun);
}

/** Every registered run, oldest first. */
export async function listRuns(redis: Redis): Promise<QueueRun[]> {
  const all = await redis.hgetall(REGISTRY_KEY);
  return Object.values(all)
    .map((t) => JSON.parse(t) as QueueRun)
    .sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
}

export async function unregisterRun(redis: Redis, id: string): Promise<void> {
  await redis.hdel(REGISTRY_KEY, id);
}
