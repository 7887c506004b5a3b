#!/usr/bin/env node
/**
 * Compares two pipeline output folders file by file (two `npm start` runs, e.g. before and after a
 * speed change; docs/pipeline.md, "Time per stage"), setting aside only what differs between any two runs:
 * - ISO-8601 times anywhere in a text file (dates created, answers' started_at / finished_at, stage
 *   records' completed_at, the report's "Generated" line) and answers' latency_ms;
 * - in each stage record (.stage.json): seconds, and the digests that cover those times or the code
 *   (hash, parts.inputs, parts.code, digest, each file's sha256 and size; the files themselves are
 *   compared here; parts.settings must match when both runs come from one checkout);
 * - SQLite stores (.sqlite) are compared as their rows, sorted, not as pages;
 * - the checkout's path, when the two runs come from different folders (ROOT_A, ROOT_B).
 * Usage: node scripts/compare-outputs.mjs DIR_A DIR_B [ROOT_A ROOT_B]; exits 1 when a file differs.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';

const [a, b, rootA = process.cwd(), rootB = rootA] = process.argv.slice(2);
if (!a || !b) {
  process.stderr.write('usage: node scripts/compare-outputs.mjs DIR_A DIR_B [ROOT_A ROOT_B]\n');
  process.exit(2);
}

function files(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      // A store's -wal / -shm files are SQLite's own, present or not by chance; the store is compared by its rows.
      else if (!/\.sqlite-(wal|shm)$/.test(e.name)) out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const plain = (text, root) => text.split(root).join('<root>').replace(ISO, '<time>').replace(/"latency_ms":\s*[-0-9.e]+/g, '"latency_ms":<ms>');

function stageRecord(text, root) {
  const r = JSON.parse(plain(text, root));
  for (const k of ['hash', 'seconds', 'digest']) delete r[k];
  // The settings' hash covers their paths (models_dir...): comparable only from one checkout.
  r.parts = rootA === rootB ? { settings: r.parts?.settings } : {};
  r.files = r.files.map((f) => f.path);
  return JSON.stringify(r, null, 1);
}

function storeRows(file, root) {
  // Read from a copy: opening a store, even read-only, can leave -wal / -shm files beside it.
  const tmp = mkdtempSync(join(tmpdir(), 'gsr-compare-'));
  try {
    copyFileSync(file, join(tmp, 'store.sqlite'));
    const db = new Database(join(tmp, 'store.sqlite'), { readonly: true });
    const out = [];
    for (const { name } of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all()) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).all().map((r) => plain(JSON.stringify(r), root)).sort();
      out.push(`# ${name}: ${rows.length} rows`, ...rows);
    }
    db.close();
    return out.join('\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const [fa, fb] = [files(a), files(b)];
const inB = new Set(fb);
let differ = 0;
let same = 0;
let sameAside = 0;
for (const f of fa.filter((x) => !inB.has(x))) (differ++, console.log(`only in ${a}: ${f}`));
for (const f of fb.filter((x) => !fa.includes(x))) (differ++, console.log(`only in ${b}: ${f}`));
for (const f of fa.filter((x) => inB.has(x))) {
  const [ba, bb] = [readFileSync(join(a, f)), readFileSync(join(b, f))];
  if (ba.equals(bb)) {
    same++;
    continue;
  }
  let na;
  let nb;
  if (f.endsWith('.sqlite')) [na, nb] = [storeRows(join(a, f), rootA), storeRows(join(b, f), rootB)];
  else if (f.endsWith('.stage.json')) [na, nb] = [stageRecord(ba.toString(), rootA), stageRecord(bb.toString(), rootB)];
  else if (/\.(json|jsonl|html|csv|txt|md|svg|tsv)$/.test(f)) [na, nb] = [plain(ba.toString(), rootA), plain(bb.toString(), rootB)];
  if (na !== undefined && na === nb) {
    sameAside++;
    continue;
  }
  differ++;
  console.log(`differs: ${f}`);
  if (na === undefined) continue;
  const [la, lb] = [na.split('\n'), nb.split('\n')];
  const at = la.findIndex((l, i) => l !== lb[i]);
  console.log(`  first at line ${at + 1}:\n  < ${la[at]?.slice(0, 300)}\n  > ${lb[at]?.slice(0, 300)}`);
}
console.log(`${fa.length} files: ${same} byte-identical, ${sameAside} identical with times set aside, ${differ} differ`);
process.exitCode = differ > 0 ? 1 : 0;
