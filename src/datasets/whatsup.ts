/**
 * `gsr dataset import whatsup`: reads the official What'sUp JSON files under a root folder and
 * writes one manifest. Path rule (documented in docs/datasets.md):
 *   - if ROOT holds the JSON files, ROOT is the What'sUp `data/` folder: an `image_path` such as
 *     `data/controlled_images/x.jpeg` resolves to ROOT/controlled_images/x.jpeg;
 *   - if ROOT/data holds them, ROOT is the folder the official loader runs from: `image_path`
 *     resolves to ROOT/data/controlled_images/x.jpeg unchanged.
 * QA images are `val2017/{id:012d}.jpg` and `vg_images/{id}.jpg` inside the data folder.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { confinedRealPath } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { readJsonFile } from '../util/jsonl.js';
import { writeManifest, type ManifestItem } from '../formats/manifest.js';
import { isInside, normaliseRelativePath } from '../formats/image-paths.js';
import { WHATSUP_FILES, convertControlledRecord, convertQaRecord, type WhatsupFileSpec } from './whatsup-records.js';

export interface WhatsupImportOptions {
  /** Splits (or official file names) to read; each must exist. Default: every official file present. */
  splits?: string[];
  /** Skip bad records (listed in `skipped`) instead of failing. Default false: any bad record fails the import. */
  skipInvalid?: boolean;
  /** Read each image's width and height (header only). Default true. */
  readSizes?: boolean;
}

export interface WhatsupImport {
  root: string;
  items: ManifestItem[];
  /** Items per split, in the official split order (splits that were read, including zero counts). */
  counts: Record<string, number>;
  files: string[];
  warnings: string[];
  skipped: string[];
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** Where the JSON files are and the prefix that turns a data-folder path into a root-relative one. */
async function locateDataFolder(root: string): Promise<{ dataDir: string; prefix: string }> {
  for (const spec of WHATSUP_FILES) if (await isFile(join(root, spec.file))) return { dataDir: root, prefix: '' };
  for (const spec of WHATSUP_FILES) if (await isFile(join(root, 'data', spec.file))) return { dataDir: join(root, 'data'), prefix: 'data/' };
  return { dataDir: root, prefix: '' };
}

function selectSpecs(wanted: string[] | undefined): WhatsupFileSpec[] {
  if (wanted === undefined || wanted.length === 0) return [...WHATSUP_FILES];
  return wanted.map((name) => {
    const spec = WHATSUP_FILES.find((s) => s.split === name || s.file === name);
    if (!spec) {
      const known = WHATSUP_FILES.map((s) => s.split).join(', ');
      throw new GsrError(`unknown What'sUp split "${name}" (known: ${known})`);
    }
    return spec;
  });
}

/** Gives repeated stems (several questions about one image) stable `-2`, `-3` suffixes in file order. */
function uniqueId(split: string, stem: string, used: Map<string, number>): string {
  const base = `${split}/${stem}`;
  const n = (used.get(base) ?? 0) + 1;
  used.set(base, n);
  return n === 1 ? base : `${base}-${n}`;
}

async function imageSize(path: string): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(path).metadata();
    if (!meta.width || !meta.height) return null;
    // EXIF orientations 5-8 swap the displayed width and height.
    return (meta.orientation ?? 1) >= 5 ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch {
    return null;
  }
}

/** Reads the What'sUp files under `root` into manifest items; throws GsrError naming file and record on bad input. */
export async function importWhatsup(rootArg: string, options: WhatsupImportOptions = {}): Promise<WhatsupImport> {
  const root = resolve(rootArg);
  if (!(await isDirectory(root))) throw new GsrError(`What'sUp root not found or not a folder: ${root}`);
  const specs = selectSpecs(options.splits);
  const { dataDir, prefix } = await locateDataFolder(root);
  const explicit = options.splits !== undefined && options.splits.length > 0;
  const result: WhatsupImport = { root, items: [], counts: {}, files: [], warnings: [], skipped: [] };
  // Errors keep record order (image checks finish out of order) so the first one reported is stable.
  const errors: Array<{ seq: number; message: string; id?: string }> = [];
  let seq = 0;
  const used = new Map<string, number>();

  for (const spec of specs) {
    const file = join(dataDir, spec.file);
    if (!(await isFile(file))) {
      if (explicit) throw new GsrError(`file not found: ${file} (needed for split ${spec.split})`);
      continue;
    }
    const records = await readJsonFile<unknown>(file);
    if (!Array.isArray(records)) throw new GsrError(`${file}: expected a JSON array of records`);
    result.files.push(file);
    result.counts[spec.split] = 0;
    const sizes: Array<Promise<void>> = [];
    for (const [index, record] of records.entries()) {
      const where = `${file}: record ${index}`;
      const at = seq++;
      const converted = spec.kind === 'controlled' ? convertControlledRecord(spec, record) : convertQaRecord(spec, record);
      if (!converted.ok) {
        errors.push({ seq: at, message: `${where}: ${converted.reason}` });
        continue;
      }
      const { stem, item: partial, warnings } = converted.value;
      const image = normaliseRelativePath(prefix + partial.image);
      const abs = image === null ? null : resolve(root, image);
      if (image === null || abs === null || !isInside(root, abs)) {
        errors.push({ seq: at, message: `${where}: image path "${partial.image}" escapes the dataset root` });
        continue;
      }
      const item: ManifestItem = { id: uniqueId(spec.split, stem, used), root, ...partial, image };
      for (const w of warnings) result.warnings.push(`${where} (${item.id}): ${w}`);
      sizes.push(
        (async () => {
          if (!(await isFile(abs))) {
            errors.push({ seq: at, id: item.id, message: `${where} (${item.id}): image not found: ${abs}` });
            return;
          }
          try {
            await confinedRealPath(abs, root);
          } catch (err) {
            errors.push({ seq: at, id: item.id, message: `${where} (${item.id}): image path "${partial.image}" leaves the dataset root: ${errorMessage(err)}` });
            return;
          }
          if (options.readSizes === false) return;
          const size = await imageSize(abs);
          if (size === null) errors.push({ seq: at, id: item.id, message: `${where} (${item.id}): not a readable image: ${abs}` });
          else Object.assign(item, size);
        })(),
      );
      result.items.push(item);
    }
    await Promise.all(sizes);
  }
  if (result.files.length === 0) {
    throw new GsrError(`no What'sUp files in ${root} or ${join(root, 'data')} (looked for ${WHATSUP_FILES.map((s) => s.file).join(', ')})`);
  }
  if (errors.length > 0) {
    errors.sort((a, b) => a.seq - b.seq);
    if (!options.skipInvalid) {
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more bad record${errors.length > 2 ? 's' : ''})` : '';
      throw new GsrError(`${errors[0].message}${more}`);
    }
    result.skipped = errors.map((e) => e.message);
    const bad = new Set(errors.map((e) => e.id));
    result.items = result.items.filter((it) => !bad.has(it.id));
  }
  for (const item of result.items) result.counts[item.split] = (result.counts[item.split] ?? 0) + 1;
  return result;
}

/** Imports and writes the manifest atomically (nothing is written when the import fails). */
export async function importWhatsupToManifest(root: string, out: string, options: WhatsupImportOptions = {}): Promise<WhatsupImport> {
  const imported = await importWhatsup(root, options);
  await writeManifest(out, imported.items);
  return imported;
}
