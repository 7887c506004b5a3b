/**
 * The run journal: an append-only JSON Lines file in the output folder, one fsync'd line per
 * finished image (done or failed). It is what makes a run resumable: after a crash or Ctrl-C the
 * next run skips every image it lists. A crash can leave a partial last line; it is cut off on open.
 * The first line is a header holding the run's settings, so a resume cannot mix models or thresholds.
 */
import { createReadStream, closeSync, existsSync, fsyncSync, openSync, readSync, fstatSync, ftruncateSync, writeSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { readJsonlWithLines } from '../util/jsonl.js';
import { GsrError, machineFaultInMessage } from '../util/errors.js';
import { faultPoint } from '../util/faults.js';
import type { AnnotationInfo, CocoAnnotation, CocoImage, DepthUnit } from '../formats/coco.js';

export const JOURNAL_FILE = 'journal.jsonl';

/** Settings that must not change within one output folder. */
export type RunSettings = Record<string, unknown>;

export interface JournalHeader {
  type: 'header';
  created: string;
  settings: RunSettings;
}

/** An image annotated: its COCO image record and annotations, before ids are assigned. */
export interface JournalDone {
  type: 'done';
  item_id: string;
  image: Omit<CocoImage, 'id'>;
  annotations: Array<Omit<CocoAnnotation, 'id' | 'image_id' | 'category_id'>>;
  /** The depth map's semantics, when depth was estimated (becomes `info.depth`). */
  depth?: { unit: DepthUnit; larger: 'farther' | 'nearer' };
}

/** An image that could not be annotated, with the one-line reason. */
export interface JournalFailed {
  type: 'failed';
  item_id: string;
  file: string;
  error: string;
}

/** The provenance (`info`) of the run that appended the records after it; the last one wins. */
export interface JournalInfo {
  type: 'info';
  info: AnnotationInfo;
}

export type JournalEntry = JournalDone | JournalFailed;
export type JournalLine = JournalHeader | JournalInfo | JournalEntry;

/** Streams a journal's lines with their 1-based line numbers; a malformed line is an error naming it. */
export async function* readJournal(path: string): AsyncGenerator<{ line: number; record: JournalLine }> {
  for await (const { line, value } of readJsonlWithLines<JournalLine>(path)) yield { line, record: value };
}

/** Cuts a partial last line (no trailing newline) left by a crash. Returns the bytes removed. */
export function dropPartialLastLine(path: string): number {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(65536);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const at = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (at >= 0) {
        const keep = start + at + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** Open journal: the ids it already holds and an fsync'd appender. */
export interface Journal {
  readonly path: string;
  readonly header: JournalHeader;
  /** Final status per item id already in the journal (a later line supersedes an earlier one). */
  readonly finished: Map<string, 'done' | 'failed'>;
  /** The journal was resumed and its header lacked settings that `fillOlder` filled in. */
  readonly older: boolean;
  /** Appends a record; an info equal to the journal's last one is not repeated (a resumed run then ends as an uninterrupted one). */
  append(entry: JournalEntry | JournalInfo): void;
  close(): void;
}

function describeDifference(a: RunSettings, b: RunSettings): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const diff = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  return diff.map((k) => `${k}: ${JSON.stringify(a[k])} -> ${JSON.stringify(b[k])}`).join('; ');
}

export interface OpenJournalOptions {
  /** Discard an existing journal. */
  restart?: boolean;
  /**
   * The settings a header written by an older version stands for, with what it did not record filled
   * in; null when nothing is missing. These are compared instead of the header's own.
   */
  fillOlder?: (recorded: RunSettings) => RunSettings | null;
  /**
   * Told when the journal recorded faults of the machine (a full disk...) as failed images, as older
   * versions did: the journal is cut before the first such record, so those images and the ones
   * after them are annotated again, in order, and the run ends as an uninterrupted one would.
   */
  onMachineFailures?: (found: { failed: number; first: { item_id: string; error: string }; dropped: number }) => void;
}

/** Cuts the journal before its 1-based line `line` (lines are `\n`-terminated JSON). */
async function cutBeforeLine(path: string, line: number): Promise<void> {
  let offset = 0;
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (++n === line) break;
    offset += Buffer.byteLength(text) + 1;
  }
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens (or starts) the journal at `path`. An existing journal written with other settings is
 * an error unless `restart` is set, which discards it.
 */
export async function openJournal(path: string, settings: RunSettings, options: OpenJournalOptions = {}): Promise<Journal> {
  if (options.restart) rmSync(path, { force: true });
  let header: JournalHeader | undefined;
  let older = false;
  const finished = new Map<string, 'done' | 'failed'>();
  /** The recorded reason of each item whose last record is `failed`. */
  const failedErrors = new Map<string, string>();
  let lastInfo: string | null = null;
  let machineFailed: { line: number; failed: number; first: { item_id: string; error: string }; records: number } | null = null;
  let records = 0;
  if (existsSync(path)) {
    dropPartialLastLine(path);
    for await (const { line, record } of readJournal(path)) {
      if (record.type === 'header') {
        if (line !== 1 || header) throw new GsrError(`${path}:${line}: unexpected journal header`);
        header = record;
      } else if (record.type === 'info') {
        lastInfo = JSON.stringify(record);
      } else if (record.type === 'done' || record.type === 'failed') {
        finished.set(record.item_id, record.type);
        records++;
        if (record.type === 'failed') failedErrors.set(record.item_id, record.error);
        else failedErrors.delete(record.item_id);
        if (record.type === 'failed' && machineFaultInMessage(record.error) !== null) {
          if (machineFailed === null) machineFailed = { line, failed: 0, first: { item_id: record.item_id, error: record.error }, records };
          machineFailed.failed++;
        }
      } else {
        throw new GsrError(`${path}:${line}: unknown journal record type`);
      }
    }
    if (header && finished.size === 0) {
      // Nothing finished yet (e.g. a model failed to load): the new settings simply replace the old.
      rmSync(path, { force: true });
      header = undefined;
      lastInfo = null;
    } else if (header) {
      const filled = options.fillOlder?.(header.settings) ?? null;
      older = filled !== null;
      const diff = describeDifference(filled ?? header.settings, settings);
      if (diff !== '') {
        throw new GsrError(`${path} was written with other settings (${diff}); use another --out or pass --force`);
      }
      if (machineFailed !== null) {
        await cutBeforeLine(path, machineFailed.line);
        options.onMachineFailures?.({ failed: machineFailed.failed, first: machineFailed.first, dropped: records - machineFailed.records + 1 });
        return openJournal(path, settings, { ...options, onMachineFailures: undefined });
      }
    }
  }
  const fd = openSync(path, 'a');
  const writeLine = (value: unknown) => {
    faultPoint(path);
    writeSync(fd, JSON.stringify(value) + '\n');
    fsyncSync(fd);
  };
  if (!header) {
    if (finished.size > 0) throw new GsrError(`${path}: journal has no header line (delete it or pass --force)`);
    header = { type: 'header', created: new Date().toISOString(), settings };
    writeLine(header);
  }
  return {
    path,
    header,
    finished,
    older,
    append(entry) {
      if (entry.type === 'info') {
        const text = JSON.stringify(entry);
        if (text === lastInfo) return;
        lastInfo = text;
      }
      // A retried image that fails again for the same reason: its record stands (a resumed run then ends as an uninterrupted one).
      if (entry.type === 'failed' && finished.get(entry.item_id) === 'failed' && failedErrors.get(entry.item_id) === entry.error) return;
      writeLine(entry);
      if (entry.type !== 'info') {
        finished.set(entry.item_id, entry.type);
        if (entry.type === 'failed') failedErrors.set(entry.item_id, entry.error);
        else failedErrors.delete(entry.item_id);
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
