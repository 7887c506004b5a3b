/**
 * Reading the Transformers reference fixtures of test/fixtures/perception/parity/ (made by
 * make_parity_reference.py there) and the measured-difference table the parity tests keep in
 * docs/perception.md.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO_ROOT } from '../helpers/cli.js';
import { FIXTURES } from './paths.js';

export const PARITY = join(FIXTURES, 'parity');

/**
 * The reference entry for `model` in reference-<model>.json (which also names versions and seed), or
 * in reference-<model>.whatsup-sample.json: the same models on the What'sUp sample photos (optional checks).
 */
export function reference<T>(model: string, set: ReferenceSet = 'project'): T {
  const file = `reference-${model}${set === 'whatsup-sample' ? '.whatsup-sample' : ''}.json`;
  return (JSON.parse(readFileSync(join(PARITY, file), 'utf8')) as Record<string, T>)[model]!;
}

/** The project's own images, or the What'sUp sample photos beside the repository. */
export type ReferenceSet = 'project' | 'whatsup-sample';

export const f32 = (b64: string) => {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
};

const unzipped = mkdtempSync(join(tmpdir(), 'gsr-parity-'));

/** A gzipped fixture ONNX file, unzipped to a temporary folder; returns its path. */
export function onnxFile(name: string): string {
  const out = join(unzipped, name.replace(/\.gz$/, ''));
  writeFileSync(out, gunzipSync(readFileSync(join(PARITY, name))));
  return out;
}

/** 0/1 values stored as numpy packbits, base64. */
export function unpackBits(b64: string, length: number): Uint8Array {
  const bits = Buffer.from(b64, 'base64');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (bits[i >> 3]! >> (7 - (i & 7))) & 1;
  return out;
}

/** One row of the measured-difference table: what, the measured figure, the target. */
export interface MeasuredRow {
  port: string;
  what: string;
  measured: string;
  target: string;
  /** Whether the measured figure meets the target. */
  met: boolean;
}

const DOC = join(REPO_ROOT, 'docs/perception.md');
const MARKER: Record<ReferenceSet, string> = { project: 'parity-table', 'whatsup-sample': 'parity-table-whatsup-sample' };
const begin = (set: ReferenceSet) => `<!-- ${MARKER[set]}: written by test/perception/parity.test.ts (GSR_UPDATE_PARITY=1) -->`;
const end = (set: ReferenceSet) => `<!-- /${MARKER[set]} -->`;

export function renderTable(rows: MeasuredRow[], set: ReferenceSet = 'project'): string {
  const images = set === 'project' ? 'all fixture images' : "the 16 What'sUp sample photos";
  const lines = [`| port | what | measured (${images}) | target | met |`, '| --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.port} | ${r.what} | ${r.measured} | ${r.target} | ${r.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

/** The table of a reference set now in docs/perception.md (between its markers). */
export function documentedTable(set: ReferenceSet = 'project'): string | undefined {
  const doc = readFileSync(DOC, 'utf8');
  const a = doc.indexOf(begin(set));
  const b = doc.indexOf(end(set));
  return a < 0 || b < 0 ? undefined : doc.slice(a + begin(set).length, b).trim();
}

/** Rewrites the table of a reference set in docs/perception.md (with GSR_UPDATE_PARITY=1). */
export function writeDocumentedTable(table: string, set: ReferenceSet = 'project'): void {
  const doc = readFileSync(DOC, 'utf8');
  const a = doc.indexOf(begin(set));
  const b = doc.indexOf(end(set));
  if (a < 0 || b < 0) throw new Error(`${DOC}: ${MARKER[set]} markers missing`);
  writeFileSync(DOC, `${doc.slice(0, a + begin(set).length)}\n\n${table}\n\n${doc.slice(b)}`);
}

/** Short scientific form for the table (2 significant digits, rounded up so it bounds the value). */
export function sci(v: number): string {
  if (v === 0) return '0';
  const e = Math.floor(Math.log10(Math.abs(v)));
  const m = Math.ceil((v / 10 ** e) * 10) / 10;
  return `${m.toFixed(1)}e${e}`;
}
