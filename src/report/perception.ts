/**
 * The report's perception section for synthetic scenes annotated by models: each model's training
 * record (held-out metrics, written by the training script beside its file), the annotations'
 * quality against the exact truth on the pipeline's own scenes, and overlays of both.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { QualityReport } from '../annotate/quality.js';
import { getManifest, modelFilePath } from '../perception/manifest.js';
import { readJsonFile } from '../util/jsonl.js';
import { escapeHtml as h } from './escape.js';

export interface PerceptionReport {
  /** One line: which models made the labels, and how they did. */
  line: string;
  /** Training records (models/<id>/training.json) of the models that have one. */
  records: Array<{ id: string; record: TrainingRecord }>;
  quality: QualityReport | null;
  overlays: Array<{ item: string; model: string; truth: string }>;
}

/** The parts of a training record the report shows (training/train_det.py, training/train_depth.py). */
export interface TrainingRecord {
  model: string;
  script: string;
  seed: number;
  steps: number;
  data: { train: { seed: number; count: number }; heldout: { seed: number; count: number } };
  time: { wall_seconds: number; cpu_seconds: number };
  heldout: {
    scenes: number;
    map50?: number;
    top1_hit_rate?: number;
    per_kind?: Record<string, { objects: number; ap50: number | null; recall50: number | null; named_objects: number; top1_hit_rate: number | null }>;
    absrel?: number;
    delta1?: number;
    depth_order?: Record<string, Record<string, { pairs: number; accuracy: number | null; unordered?: number }>>;
  };
}

/** The training record beside a model's file, or null (a model without one, or not installed). */
export async function trainingRecord(id: string, modelsDir: string): Promise<TrainingRecord | null> {
  try {
    const manifest = await getManifest(id);
    const path = join(dirname(modelFilePath(manifest, 'model', modelsDir)), 'training.json');
    return existsSync(path) ? await readJsonFile<TrainingRecord>(path) : null;
  } catch {
    return null;
  }
}

/** Overlay JPEGs as data URLs (they are small: written at 640 pixels across for two panels). */
export async function overlayUrls(dir: string, overlays: Array<{ item: string; model: string; truth: string }>): Promise<PerceptionReport['overlays']> {
  const url = async (f: string) => `data:image/jpeg;base64,${(await readFile(join(dir, f))).toString('base64')}`;
  return Promise.all(overlays.map(async (o) => ({ item: o.item, model: await url(o.model), truth: await url(o.truth) })));
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : (100 * v).toFixed(1));

export function perceptionHtml(p: PerceptionReport): string {
  const parts = [`<p data-testid="perception-line">${h(p.line)}</p>`];
  for (const { id, record: r } of p.records) {
    const ho = r.heldout;
    const head = `<h3>${h(id)}</h3><p class="note">Trained by <code>${h(r.script)}</code>, seed ${r.seed}, ${r.steps} steps on ${r.data.train.count} rendered scenes (seed ${r.data.train.seed}); ${Math.round(r.time.cpu_seconds)} s of CPU (${Math.round(r.time.wall_seconds)} s wall). Held out: ${ho.scenes} scenes (seed ${r.data.heldout.seed}).</p>`;
    if (ho.per_kind) {
      const rows = Object.entries(ho.per_kind)
        .map(([k, v]) => `<tr><th scope="row">${h(k)}</th><td>${v.objects}</td><td data-testid="det:${h(k)}:ap50" data-value="${v.ap50 ?? ''}">${pct(v.ap50)}</td><td>${pct(v.recall50)}</td><td>${v.named_objects}</td><td>${pct(v.top1_hit_rate)}</td></tr>`)
        .join('');
      parts.push(
        head +
          `<p>Mean AP@0.5 over the kinds: <b data-testid="det:map50" data-value="${ho.map50}">${pct(ho.map50)}%</b>; the best box of the named object's kind is a hit (IoU ≥ 0.5) for <b>${pct(ho.top1_hit_rate)}%</b> of the named objects.</p>` +
          `<table id="det-heldout"><thead><tr><th>Kind</th><th>objects</th><th>AP@0.5</th><th>recall@0.5</th><th>named objects</th><th>top-1 hit rate</th></tr></thead><tbody>${rows}</tbody></table>`,
      );
    } else {
      const orders = Object.entries(ho.depth_order ?? {})
        .map(([region, byKey]) => Object.entries(byKey).map(([k, v]) => `<tr><th scope="row">${h(region)}</th><td>${h(k)}</td><td>${v.pairs}${v.unordered ? ` (+${v.unordered} with no order)` : ''}</td><td>${pct(v.accuracy)}</td></tr>`).join(''))
        .join('');
      parts.push(
        head +
          `<p>AbsRel <b data-testid="depth:absrel" data-value="${ho.absrel}">${ho.absrel?.toFixed(3)}</b>, δ &lt; 1.25 <b data-testid="depth:delta1" data-value="${ho.delta1}">${pct(ho.delta1)}%</b> (per image, scaled by the median ratio).</p>` +
          `<table id="depth-heldout"><thead><tr><th>Region</th><th>Scenes</th><th>subject-object pairs</th><th>depth order right</th></tr></thead><tbody>${orders}</tbody></table>`,
      );
    }
  }
  const q = p.quality;
  if (q) {
    parts.push(
      `<h3>On this pipeline's scenes, against the exact truth</h3><table id="perception-quality"><tbody>` +
        `<tr><th scope="row">objects boxed (IoU ≥ 0.5)</th><td data-testid="quality:recall" data-value="${q.recall_at_50 ?? ''}">${pct(q.recall_at_50)}% (subjects ${pct(q.recall_at_50_by_role.subject)}%, objects ${pct(q.recall_at_50_by_role.object)}%)</td></tr>` +
        `<tr><th scope="row">box IoU (found)</th><td>median ${q.box_iou.median?.toFixed(3) ?? '—'}, mean ${q.box_iou.mean?.toFixed(3) ?? '—'} (n = ${q.box_iou.n}); not found: ${q.objects.not_predicted} of ${q.objects.truth}</td></tr>` +
        `<tr><th scope="row">subject-object depth order</th><td data-testid="quality:depth-order" data-value="${q.depth_order.agreement ?? ''}">${pct(q.depth_order.agreement)}% of ${q.depth_order.pairs} pairs with an order${q.depth_order.unordered ? ` (${q.depth_order.unordered} more within ${pct(q.depth_order.margin)}% of each other: no order)` : ''}</td></tr></tbody></table>`,
    );
  }
  if (p.overlays.length) {
    const cards = p.overlays
      .map((o) => `<div class="entry" data-testid="overlay:${h(o.item)}"><div class="meta"><b>${h(o.item)}</b>: models (top), exact truth (bottom); boxes red = subject, blue = object; depth warm = near</div><img alt="models" src="${o.model}" style="width:100%"><img alt="truth" src="${o.truth}" style="width:100%"></div>`)
      .join('\n');
    parts.push(`<h3>Overlays</h3><div style="display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:10px">${cards}</div>`);
  }
  return parts.join('\n');
}
