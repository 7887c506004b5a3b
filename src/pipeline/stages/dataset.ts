/**
 * Stage `dataset`: writes `manifest.jsonl` from synthetic scenes (with their exact annotations and
 * depth maps), a What'sUp root, or an existing manifest (image paths re-anchored so they still resolve).
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { resolveItemImage } from '../../formats/image-paths.js';
import { MANIFEST_FILE, readManifest, writeManifest, type ManifestItem } from '../../formats/manifest.js';
import { VERSION } from '../../util/version.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import { sha256File } from '../../util/hash.js';
import { listFiles } from '../hash.js';

/** Exact annotations the synthetic renderer writes beside its manifest. */

export interface DatasetSummary {
  kind: 'synthetic' | 'whatsup' | 'manifest';
  items: number;
  counts: Record<string, number>;
  /** True when the stage folder holds exact annotations (synthetic scenes). */
  exact_annotations: boolean;
  warnings: string[];
}

/** Fingerprint of a folder tree by names, sizes and modification times (cheap for thousands of images). */
async function treeFingerprint(root: string): Promise<Array<[string, number, number]>> {
  const out: Array<[string, number, number]> = [];
  for (const f of await listFiles(root)) out.push([f.path, f.size, (await stat(join(root, f.path))).mtimeMs]);
  return out;
}

export function datasetStage(config: PipelineConfig): Stage {
  const d = config.dataset;
  return {
    name: 'dataset',
    code: [import.meta.url],
    after: [],
    settings: { dataset: d, version: d.synthetic ? VERSION : undefined },
    async fingerprint() {
      if (d.whatsup) {
        // The record files by content; the images by name, size and time.
        const jsons = (await readdir(d.whatsup.root)).filter((n) => n.endsWith('.json')).sort();
        return { json: await Promise.all(jsons.map(async (n) => [n, await sha256File(join(d.whatsup!.root, n))])), tree: await treeFingerprint(d.whatsup.root) };
      }
      if (d.manifest) {
        // The manifest by content; the images it names by size and time.
        const images: Array<[string, number, number] | [string, null]> = [];
        for await (const item of readManifest(d.manifest)) {
          const path = resolveItemImage(item, d.manifest);
          const s = await stat(path).catch(() => null);
          images.push(s ? [path, s.size, s.mtimeMs] : [path, null]);
        }
        return { manifest: await sha256File(d.manifest), images };
      }
      return null;
    },
    async run(ctx): Promise<DatasetSummary> {
      // Loaded here, not at start-up: the importers and the renderer pull in sharp (docs/cli.md, "Start-up").
      const { importWhatsup, synthesizeDataset } = await import('../../datasets/index.js');
      const out = join(ctx.dir, MANIFEST_FILE);
      if (d.synthetic) {
        ctx.progress.start(d.synthetic.count, 'scenes');
        const r = await synthesizeDataset({ out: ctx.dir, count: d.synthetic.count, seed: d.synthetic.seed, onScene: () => ctx.progress.tick() });
        return { kind: 'synthetic', items: r.scenes, counts: r.counts, exact_annotations: true, warnings: [] };
      }
      if (d.whatsup) {
        const imported = await importWhatsup(d.whatsup.root, { splits: d.whatsup.splits, skipInvalid: true });
        const kept: ManifestItem[] = [];
        const perSplit: Record<string, number> = {};
        for (const item of imported.items) {
          const n = perSplit[item.split] ?? 0;
          if (d.whatsup.limit !== undefined && n >= d.whatsup.limit) continue;
          perSplit[item.split] = n + 1;
          kept.push(item);
        }
        await writeManifest(out, kept);
        for (const s of imported.skipped) ctx.notice(`skipped: ${s}`);
        return { kind: 'whatsup', items: kept.length, counts: perSplit, exact_annotations: false, warnings: [...imported.warnings, ...imported.skipped] };
      }
      // An existing manifest: items without a root resolved against its folder; anchor them there.
      const source = d.manifest!;
      const items: ManifestItem[] = [];
      const counts: Record<string, number> = {};
      for await (const item of readManifest(source)) {
        items.push(item.root === undefined ? { ...item, root: dirname(resolve(source)) } : item);
        counts[item.split] = (counts[item.split] ?? 0) + 1;
      }
      await writeManifest(out, items);
      return { kind: 'manifest', items: items.length, counts, exact_annotations: false, warnings: [] };
    },
  };
}
