/**
 * Stage `photos` (only when the pipeline has `photos:`): imports a folder of real photos in What'sUp's
 * layout, annotates them with a detector (boxes only), and measures its hit rate (IoU >= 0.5) against
 * reference boxes. The report shows each photo with both boxes.
 */
import { join, resolve } from 'node:path';
import { ANNOTATIONS_FILE, readCocoFile, type CocoFile } from '../../formats/coco.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';
import { PHOTOS_FILE, type PhotoObject, type PhotosSummary } from '../../formats/photos.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import { boxIou, xywhToXyxy } from '../../geometry/boxes.js';
import { writeJsonAtomic } from '../../util/fs.js';
import { confinedRealPath } from '../../util/confined.js';
import { sha256File } from '../../util/hash.js';
import type { Stage } from '../engine.js';
import { failuresOf } from './annotate.js';

export type PhotosStageSummary = PhotosSummary;

/** Every reference object with the detector's box for the same item and role (highest score). */
export function photoObjects(pred: CocoFile, reference: CocoFile, imageOf: Map<string, string>): PhotoObject[] {
  const key = (file: CocoFile, imageId: number) => file.images.find((im) => im.id === imageId)?.item_id ?? '';
  const best = new Map<string, { box: number[]; score: number }>();
  for (const a of pred.annotations) {
    const k = `${key(pred, a.image_id)}\0${a.role}`;
    if (!best.has(k) || a.score > best.get(k)!.score) best.set(k, { box: xywhToXyxy(a.bbox), score: a.score });
  }
  return reference.annotations.map((a) => {
    const item = key(reference, a.image_id);
    const ref = xywhToXyxy(a.bbox);
    const det = best.get(`${item}\0${a.role}`)?.box ?? null;
    const iou = det ? boxIou(det, ref) : null;
    return { item, image: imageOf.get(item) ?? '', role: a.role, phrase: a.phrase, reference: ref, detected: det, iou, hit: iou !== null && iou >= 0.5 };
  });
}

export function photosStage(config: PipelineConfig): Stage | null {
  const p = config.photos;
  if (!p) return null;
  const modelsDir = p.models_dir ?? resolve('models');
  return {
    name: 'photos',
    stopping: 'finishing the photos in hand',
    code: [import.meta.url],
    after: [],
    settings: { root: p.root, detector: p.detector, reference: p.reference, models_dir: modelsDir, note: p.note ?? null },
    async fingerprint() {
      return { reference: await sha256File(p.reference) };
    },
    async run(ctx): Promise<PhotosStageSummary> {
      // Loaded here, not at start-up: they pull in sharp and onnxruntime (docs/cli.md, "Start-up").
      const { annotate, annotationQuality, targetsFromManifest } = await import('../../annotate/index.js');
      const { importWhatsupToManifest } = await import('../../datasets/index.js');
      const manifest = join(ctx.dir, MANIFEST_FILE);
      const imported = await importWhatsupToManifest(p.root, manifest);
      const targets = await targetsFromManifest(manifest);
      ctx.progress.start(targets.length, 'photos');
      const r = await annotate({
        targets, outDir: ctx.dir, detector: p.detector, segmenter: null, depth: null, modelsDir, device: 'cpu',
        progress: { tick: (n, failed) => ctx.progress.tick(n, failed), stop() {} }, signal: ctx.signal,
        lock: false, // the engine holds the lock of the whole output folder
      });
      if (r.interrupted) throw new Error('interrupted (annotated photos are kept in the journal; run again to resume)');
      const pred = await readCocoFile(join(ctx.dir, ANNOTATIONS_FILE));
      const reference = await readCocoFile(p.reference);
      // Real paths, checked inside their dataset root: the report reads them with no root, so a root
      // given through a symbolic link must not reach it as a linked path.
      const imageOf = new Map(
        await Promise.all(
          imported.items.map(async (i): Promise<[string, string]> => {
            const root = i.root ?? p.root;
            const path = resolve(root, i.image);
            return [i.id, await confinedRealPath(path, root).catch(() => path)];
          }),
        ),
      );
      const objects = photoObjects(pred, reference, imageOf);
      const quality = annotationQuality(pred, reference);
      await writeJsonAtomic(join(ctx.dir, PHOTOS_FILE), { quality, objects });
      const count = (role: string) => ({ hits: objects.filter((o) => o.role === role && o.hit).length, objects: objects.filter((o) => o.role === role).length });
      const hits = objects.filter((o) => o.hit).length;
      const ious = objects.flatMap((o) => (o.iou === null ? [] : [o.iou]));
      return {
        detector: p.detector,
        note: p.note ?? null,
        images: reference.images.length,
        objects: objects.length,
        hits,
        hit_rate: objects.length ? hits / objects.length : null,
        subject: count('subject'),
        object: count('object'),
        mean_iou: ious.length ? ious.reduce((s, v) => s + v, 0) / ious.length : null,
        ...failuresOf(r),
      };
    },
  };
}
