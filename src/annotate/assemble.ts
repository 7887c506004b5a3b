/**
 * Rebuilds annotations.json from the journal, streaming: the journal is read three times
 * (final record per image; images and categories; annotations) and the JSON is written
 * piecewise to a temporary file that is renamed into place, so memory stays flat in the
 * number of images and readers never see a partial file.
 */
import { writeCocoFile, type AnnotationInfo, type CocoAnnotation, type CocoImage } from '../formats/coco.js';
import { METRIC_DEPTH_SCALE } from '../formats/depth-png.js';
import { readJournal, type JournalFailed } from './journal.js';

/** Counts over the final record of every image in the journal. */
export interface AnnotateSummary {
  images_done: number;
  images_failed: number;
  objects_found: number;
  objects_not_found: number;
}

/**
 * Writes `outPath` (COCO JSON) from the journal at `journalPath`. `info` is the journal's last
 * `info` record, else `fallbackInfo`. Image ids follow journal order;
 * categories are the phrases in order of first appearance. Failed images go to `info.failures`, and
 * to `failuresOut` when given.
 */
export async function writeAnnotationsFromJournal(journalPath: string, outPath: string, fallbackInfo: AnnotationInfo, failuresOut?: Array<Omit<JournalFailed, 'type'>>): Promise<AnnotateSummary> {
  // Pass 1: each image's final record (a retry supersedes an earlier failure), its counts, the failures.
  const finals = new Map<string, { line: number; found: number; missing: number }>();
  const failures = new Map<string, Omit<JournalFailed, 'type'>>();
  let depth: AnnotationInfo['depth'];
  let journalInfo = fallbackInfo;
  for await (const { line, record } of readJournal(journalPath)) {
    if (record.type === 'header') continue;
    if (record.type === 'info') {
      journalInfo = record.info;
    } else if (record.type === 'failed') {
      finals.set(record.item_id, { line, found: -1, missing: 0 });
      failures.set(record.item_id, { item_id: record.item_id, file: record.file, error: record.error });
    } else {
      finals.set(record.item_id, { line, found: record.annotations.length, missing: record.image.missing?.length ?? 0 });
      failures.delete(record.item_id);
      if (!depth && record.depth) {
        const metric = record.depth.unit === 'm';
        depth = { ...record.depth, scale: metric ? METRIC_DEPTH_SCALE : 0, ...(metric ? {} : { scale_per_image: true }) };
      }
    }
  }
  const summary: AnnotateSummary = { images_done: 0, images_failed: failures.size, objects_found: 0, objects_not_found: 0 };
  failuresOut?.push(...failures.values());
  for (const f of finals.values()) {
    if (f.found < 0) continue;
    summary.images_done++;
    summary.objects_found += f.found;
    summary.objects_not_found += f.missing;
  }
  const isFinal = (itemId: string, line: number) => finals.get(itemId)?.line === line;

  const categories = new Map<string, number>();
  // Pass 2: images and categories (phrases in order of first appearance).
  async function* images(): AsyncGenerator<CocoImage> {
    let imageId = 0;
    for await (const { line, record } of readJournal(journalPath)) {
      if (record.type !== 'done' || !isFinal(record.item_id, line)) continue;
      imageId++;
      for (const a of record.annotations) if (!categories.has(a.phrase)) categories.set(a.phrase, categories.size + 1);
      yield { id: imageId, ...record.image };
    }
  }
  // Pass 3: annotations, with image ids numbered as in pass 2.
  async function* annotations(): AsyncGenerator<CocoAnnotation> {
    let imageId = 0;
    let annotationId = 0;
    for await (const { line, record } of readJournal(journalPath)) {
      if (record.type !== 'done' || !isFinal(record.item_id, line)) continue;
      imageId++;
      for (const a of record.annotations) {
        annotationId++;
        yield { id: annotationId, image_id: imageId, category_id: categories.get(a.phrase)!, ...a };
      }
    }
  }
  const info = { ...journalInfo, ...(depth ? { depth } : {}), summary, failures: [...failures.values()] };
  await writeCocoFile(outPath, { info, images: images(), annotations: annotations(), categories: () => [...categories].map(([name, id]) => ({ id, name })) });
  return summary;
}
