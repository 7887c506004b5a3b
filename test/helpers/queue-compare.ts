/**
 * What a queued run must equal in a local run's outputs: annotation journal records, annotations.json
 * and depth PNGs, or run-store rows; times, latencies and the run's own provenance aside. Used by
 * test/queue/ and the fault matrix (test/helpers/fault-matrix.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunStore } from '../../src/mllm/index.js';

/** Journal records without the header and provenance lines (which carry times and the run's info). */
export function journalRecords(dir: string): string[] {
  if (!existsSync(join(dir, 'journal.jsonl'))) return [];
  return readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n').filter((l) => l !== '' && !l.startsWith('{"type":"header"') && !l.startsWith('{"type":"info"'));
}

export function cocoWithoutInfo(dir: string): unknown {
  const coco = JSON.parse(readFileSync(join(dir, 'annotations.json'), 'utf8')) as { info: Record<string, unknown> };
  const { date_created: _d, ...info } = coco.info;
  return { ...coco, info };
}

/** Depth PNGs of an output folder: file name -> bytes (base64). */
export function depthFiles(dir: string): Map<string, string> {
  const d = join(dir, 'depth');
  if (!existsSync(d)) return new Map();
  return new Map(readdirSync(d).sort().map((f) => [f, readFileSync(join(d, f)).toString('base64')]));
}

/** A store's rows for `model`, sorted by key, without times, latency and attempts (how it went, not what). */
export function storeRows(path: string, model: string): Array<Record<string, unknown>> {
  const s = RunStore.open(path, { create: false });
  try {
    return [...s.responses({ model })].sort((a, b) => a.key.localeCompare(b.key)).map((r) => {
      const { latency_ms: _l, started_at: _s, finished_at: _f, attempts: _a, ...rest } = r as unknown as Record<string, unknown>;
      return rest;
    });
  } finally {
    s.close();
  }
}
