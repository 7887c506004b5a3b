import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import sharp from 'sharp';
import type { GroundingItemRecord, ModelResults, ReasoningItemRecord } from '../analysis/results-types.js';
import type { CocoAnnotation, CocoFile } from '../formats/coco.js';
import { rleDecode } from '../geometry/rle.js';
import { itemBase, resolveItemImage } from '../formats/image-paths.js';
import { readConfined } from '../util/confined.js';
import { errorMessage } from '../util/errors.js';
import { readJsonFile, readJsonl } from '../util/jsonl.js';

/** `no-label`: a grounding object the annotation file has no box for (not scored). */
export type GalleryVerdict = 'hit' | 'miss' | 'correct' | 'wrong' | 'unparsed' | 'missing' | 'no-label';

/** One answer of a gallery card: a grounding answer, or one rotation of a reasoning item. */
export interface GalleryAnswer {
  /** Reasoning: the rotation (shown option order); grounding: empty. */
  detail: string;
  verdict: GalleryVerdict;
  /** The model's output, or its first characters when the full text is in a side file. */
  output: string;
  /** Side file (path relative to the page) holding the whole output, when `output` is a preview. */
  outputFile?: string;
  /** Length in characters of the whole output, when `output` is a preview. */
  outputLength?: number;
  extracted?: string;
  key?: string;
  prompt?: string;
}

/** One gallery card: a grounding answer, or every rotation of one reasoning item (one image, one card). */
export interface GalleryEntry {
  kind: 'grounding' | 'reasoning';
  /** Model name, with `/variant` for subfolder results (e.g. `m/dap`). */
  model: string;
  split: string;
  item: string;
  /**
   * `unparsed`: no readable answer; `missing`: no response or a failed one. A reasoning card is
   * `correct` only when every rotation is (CircularEval's rule), `wrong` when any rotation is wrong.
   */
  verdict: GalleryVerdict;
  /** What was asked: role and phrase, or relation and task. */
  detail: string;
  /** Grounding: which object. */
  role?: string;
  answers: GalleryAnswer[];
  box?: number[] | null;
  gt?: number[] | null;
  iou?: number | null;
  /** Key into the gallery's images, when the image was found. */
  image?: string;
  /** Key into the gallery's images for the annotation mask overlay (same size as the image). */
  mask?: string;
  /** The annotation's depth inside the mask, as text (e.g. "median 1.234 m"). */
  depth?: string;
}

/** A downscaled image, embedded once and shared by entries. */
export interface GalleryImage {
  id: string;
  dataUrl: string;
  /** Original size: boxes are in these pixels. */
  width: number;
  height: number;
}

export interface GalleryOptions {
  /** Manifest JSONL (item id -> image path). */
  manifest?: string;
  /** Prompts JSONL (key -> text shown with the answer). */
  prompts?: string;
  /** COCO annotations (annotations.json): masks drawn over grounding entries, depth shown as text. */
  annotations?: string;
  /** Most entries per (model, kind, split, verdict) group (default 6). */
  perGroup?: number;
  /** Longest side of thumbnails in pixels (default 360). */
  thumbSize?: number;
}

export interface Gallery {
  entries: GalleryEntry[];
  images: Map<string, GalleryImage>;
  warnings: string[];
}

const PRED_FIELDS = ['box', 'parsed', 'parsed_box', 'pred_box'] as const;
const GT_FIELDS = ['gt', 'gt_box'] as const;

function firstBox(r: Record<string, unknown>, fields: readonly string[]): number[] | null {
  for (const f of fields) {
    const v = r[f];
    if (Array.isArray(v) && v.length === 4 && v.every((n) => typeof n === 'number' && Number.isFinite(n))) return v as number[];
  }
  return null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

class Sampler {
  private readonly counts = new Map<string, number>();
  readonly entries: GalleryEntry[] = [];
  constructor(private readonly perGroup: number) {}
  /** Takes the entry unless its group is full; says whether it did. */
  offer(e: GalleryEntry): boolean {
    const g = `${e.model}\u0000${e.kind}\u0000${e.split}\u0000${e.verdict}`;
    const c = this.counts.get(g) ?? 0;
    if (c >= this.perGroup) return false;
    this.counts.set(g, c + 1);
    this.entries.push(e);
    return true;
  }
}

async function streamInto<T>(path: string, warnings: string[], each: (r: T) => void): Promise<void> {
  if (!existsSync(path)) return;
  try {
    for await (const r of readJsonl<T>(path)) if (r && typeof r === 'object') each(r);
  } catch (err) {
    warnings.push(`gallery: ${errorMessage(err)}`);
  }
}

const reasoningVerdict = (x: ReasoningItemRecord & Record<string, unknown>): GalleryVerdict =>
  x.status === 'missing' || x.status === 'failed' ? 'missing' : x.status === 'unparsed' ? 'unparsed' : x.correct === true ? 'correct' : 'wrong';

/** A reasoning card's verdict from its rotations': right only when every rotation is. */
function cardVerdict(verdicts: GalleryVerdict[]): GalleryVerdict {
  if (verdicts.every((v) => v === 'correct')) return 'correct';
  if (verdicts.includes('wrong')) return 'wrong';
  return verdicts.includes('unparsed') ? 'unparsed' : 'missing';
}

/**
 * Reasoning cards, one per item with all its rotations: a first pass over the item file keeps only
 * each item's verdicts to pick the cards, a second collects the picked items' answers.
 */
async function sampleReasoning(sampler: Sampler, dir: string, model: string, warnings: string[]): Promise<void> {
  const file = join(dir, 'reasoning-items.jsonl');
  const seen = new Map<string, { split: string; verdicts: GalleryVerdict[] }>();
  await streamInto<ReasoningItemRecord & Record<string, unknown>>(file, warnings, (x) => {
    if (typeof x.item !== 'string' || typeof x.split !== 'string') return;
    const s = seen.get(x.item) ?? { split: x.split, verdicts: [] };
    s.verdicts.push(reasoningVerdict(x));
    seen.set(x.item, s);
  });
  const cards = new Map<string, GalleryEntry>();
  for (const [item, s] of seen) {
    const card: GalleryEntry = { kind: 'reasoning', model, split: s.split, item, verdict: cardVerdict(s.verdicts), detail: '', answers: [] };
    if (sampler.offer(card)) cards.set(item, card);
  }
  if (cards.size === 0) return;
  await streamInto<ReasoningItemRecord & Record<string, unknown>>(file, warnings, (x) => {
    const card = typeof x.item === 'string' ? cards.get(x.item) : undefined;
    if (!card) return;
    if (card.answers.length === 0) card.detail = `${text(x.relation)}${x.task ? ` · ${text(x.task)}` : ''}`;
    card.answers.push({
      detail: Array.isArray(x.permutation) ? `options [${x.permutation.join(',')}]` : `answer ${card.answers.length + 1}`,
      verdict: reasoningVerdict(x), output: text(x.output),
      extracted: x.extracted === undefined ? undefined : text(x.extracted), key: typeof x.key === 'string' ? x.key : undefined,
    });
  });
}

/** Picks gallery entries by streaming each model's item files: the first few of every group. */
async function sampleEntries(results: ModelResults[], perGroup: number, warnings: string[]): Promise<GalleryEntry[]> {
  const sampler = new Sampler(perGroup);
  for (const r of results) {
    await streamInto<GroundingItemRecord & Record<string, unknown>>(join(r.dir, 'grounding-items.jsonl'), warnings, (g) => {
      if (typeof g.item !== 'string' || typeof g.split !== 'string') return;
      const box = firstBox(g, PRED_FIELDS);
      const verdict = g.hit === true ? 'hit' : g.status === 'no_label' ? 'no-label' : g.status === 'missing' || g.status === 'failed' ? 'missing' : g.status === 'unparsed' || box === null ? 'unparsed' : 'miss';
      sampler.offer({
        kind: 'grounding', model: r.model, split: g.split, item: g.item, verdict,
        detail: `${text(g.role)}: ${text(g.phrase)}`, role: g.role, box, gt: firstBox(g, GT_FIELDS),
        answers: [{ detail: '', verdict, output: text(g.output), key: typeof g.key === 'string' ? g.key : undefined }],
        iou: typeof g.iou === 'number' ? g.iou : null,
        image: typeof g.image === 'string' ? g.image : undefined,
      });
    });
    for (const v of r.reasoning) await sampleReasoning(sampler, v.variant ? join(r.dir, v.variant) : r.dir, v.variant ? `${r.model}/${v.variant}` : r.model, warnings);
  }
  return sampler.entries;
}

/** Item id -> image path and the root it must stay inside, for the selected items only. */
async function imagePaths(manifest: string, ids: Set<string>, warnings: string[]): Promise<Map<string, ImageRef>> {
  const out = new Map<string, ImageRef>();
  await streamInto<{ id?: unknown; image?: unknown; root?: unknown }>(manifest, warnings, (m) => {
    if (typeof m.id !== 'string' || !ids.has(m.id) || typeof m.image !== 'string') return;
    const item = { id: m.id, image: m.image, root: typeof m.root === 'string' ? m.root : undefined };
    try {
      out.set(m.id, { path: resolveItemImage(item, manifest), root: itemBase(item, manifest) });
    } catch (err) {
      warnings.push(`gallery: ${errorMessage(err)}`);
    }
  });
  if (!existsSync(manifest)) warnings.push(`gallery: manifest not found: ${manifest}`);
  return out;
}

/** An image to show: its path, and the dataset root its real path must stay inside (unset: the path must be real). */
export interface ImageRef {
  path: string;
  root?: string;
}

/** A downsized JPEG data URL of an image, with its original size (boxes are in those pixels). */
export async function thumbnail(ref: ImageRef, size: number): Promise<Omit<GalleryImage, 'id'>> {
  const img = sharp(await readConfined(ref.path, ref.root)).rotate();
  const meta = await img.metadata();
  // After EXIF rotation, 90-degree orientations swap width and height.
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? 0;
  const height = (swap ? meta.width : meta.height) ?? 0;
  const jpeg = await img.resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 72 }).toBuffer();
  return { dataUrl: `data:image/jpeg;base64,${jpeg.toString('base64')}`, width, height };
}

/** Annotation per "item\0role", from a COCO file; unreadable files are a warning. */
async function annotationsByObject(path: string, warnings: string[]): Promise<Map<string, CocoAnnotation>> {
  const out = new Map<string, CocoAnnotation>();
  try {
    const coco = await readJsonFile<CocoFile>(path);
    const itemOf = new Map((coco.images ?? []).map((i) => [i.id, i.item_id]));
    for (const a of coco.annotations ?? []) {
      const key = `${itemOf.get(a.image_id)}\u0000${a.role}`;
      const prev = out.get(key);
      if (!prev || a.score > prev.score) out.set(key, a);
    }
  } catch (err) {
    warnings.push(`gallery: ${errorMessage(err)}`);
  }
  return out;
}

/** A translucent green overlay of a COCO RLE mask, downscaled like the thumbnails. */
async function maskOverlay(ann: CocoAnnotation): Promise<string | null> {
  const seg = ann.segmentation;
  if (!seg || !Array.isArray(seg.size)) return null;
  const [h, w] = seg.size;
  const rowMajor = Buffer.from(rleDecode(seg).map((v) => (v ? 255 : 0)));
  const scale = Math.min(1, 360 / Math.max(w, h));
  const tw = Math.max(1, Math.round(w * scale));
  const th = Math.max(1, Math.round(h * scale));
  const small = await sharp(rowMajor, { raw: { width: w, height: h, channels: 1 } }).resize(tw, th).raw().toBuffer();
  const rgba = Buffer.alloc(tw * th * 4);
  for (let i = 0; i < tw * th; i++) {
    rgba[4 * i + 1] = 200;
    rgba[4 * i + 3] = Math.round(small[i] * 0.45);
  }
  const png = await sharp(rgba, { raw: { width: tw, height: th, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/**
 * Builds the gallery: samples entries, finds their images through the manifest (or an `image` field on
 * the record), downsizes each image once with sharp, and attaches prompt texts when a prompts file is given.
 * Missing images or prompts are warnings, never errors.
 */
export async function collectGallery(results: ModelResults[], options: GalleryOptions = {}): Promise<Gallery> {
  const warnings: string[] = [];
  const entries = await sampleEntries(results, options.perGroup ?? 6, warnings);
  const paths = options.manifest ? await imagePaths(options.manifest, new Set(entries.map((e) => e.item)), warnings) : new Map<string, ImageRef>();
  const images = new Map<string, GalleryImage>();
  const idByPath = new Map<string, string | null>();
  for (const e of entries) {
    // The manifest knows where images are; a record's own `image` is used only if it is a readable absolute path.
    const ref = paths.get(e.item) ?? (e.image && isAbsolute(e.image) && existsSync(e.image) ? { path: e.image } : undefined);
    e.image = undefined;
    if (!ref) continue;
    const path = ref.path;
    if (!idByPath.has(path)) {
      try {
        const id = `img${images.size}`;
        images.set(id, { id, ...(await thumbnail(ref, options.thumbSize ?? 360)) });
        idByPath.set(path, id);
      } catch (err) {
        warnings.push(`gallery: cannot read image ${path}: ${errorMessage(err)}`);
        idByPath.set(path, null);
      }
    }
    e.image = idByPath.get(path) ?? undefined;
  }
  if (options.annotations) {
    const anns = await annotationsByObject(options.annotations, warnings);
    for (const e of entries) {
      if (e.kind !== 'grounding') continue;
      const ann = anns.get(`${e.item}\u0000${e.role}`);
      if (!ann) continue;
      if (ann.depth) e.depth = `depth median ${ann.depth.median.toPrecision(4)} ${ann.depth.unit}`;
      const img = e.image ? images.get(e.image) : undefined;
      if (!img) continue;
      try {
        const url = await maskOverlay(ann);
        if (url) {
          const id = `img${images.size}`;
          images.set(id, { id, dataUrl: url, width: img.width, height: img.height });
          e.mask = id;
        }
      } catch (err) {
        warnings.push(`gallery: cannot draw the mask of ${e.item} (${e.detail}): ${errorMessage(err)}`);
      }
    }
  }
  if (options.prompts) {
    const wanted = new Map<string, GalleryAnswer[]>();
    for (const a of entries.flatMap((e) => e.answers)) if (a.key) wanted.set(a.key, [...(wanted.get(a.key) ?? []), a]);
    if (!existsSync(options.prompts)) warnings.push(`gallery: prompts file not found: ${options.prompts}`);
    await streamInto<{ key?: unknown; text?: unknown }>(options.prompts, warnings, (p) => {
      if (typeof p.key !== 'string') return;
      for (const a of wanted.get(p.key) ?? []) a.prompt = text(p.text);
    });
  }
  return { entries, images, warnings };
}
