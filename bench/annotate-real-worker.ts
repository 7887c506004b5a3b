/**
 * One measured run for bench/annotate-real.bench.ts, in its own process so that its peak RSS is its
 * own. Argument: JSON {mode: 'annotate' | 'depth', manifest, outDir, modelsDir, detector, segmenter,
 * depth, device, threads, precision, session, prefetch, lowMemory}. `depth` mode runs only the depth model
 * (decode, estimate, 16-bit PNG), as the reference's depth-only job. Prints JSON: figures, stage
 * totals (src/util/stage-clock.ts) and the kernel's peak RSS.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { annotate } from '../src/annotate/run.js';
import { fileStemForId, targetsFromManifest } from '../src/annotate/targets.js';
import { encodeDepthPng } from '../src/formats/depth-png.js';
import { loadImage } from '../src/perception/image.js';
import { depthEstimators } from '../src/perception/registry.js';
import type { Device, Precision, SessionTuning } from '../src/perception/types.js';
import { writeFileAtomic, writeJsonAtomic } from '../src/util/fs.js';
import { recordStages, timeStageAsync } from '../src/util/stage-clock.js';

const cfg = JSON.parse(process.argv[2]!) as {
  mode: 'annotate' | 'depth';
  manifest: string;
  outDir: string;
  modelsDir: string;
  detector: string;
  segmenter: string | null;
  depth: string | null;
  device: Device;
  threads: number;
  precision: Precision;
  session?: SessionTuning;
  prefetch?: boolean;
  lowMemory?: boolean;
  params?: Record<string, number>;
};
const targets = await targetsFromManifest(cfg.manifest);
const stages = recordStages(true)!;
const r3 = (v: number) => Math.round(v * 1000) / 1000;
let figures: Record<string, unknown>;
if (cfg.mode === 'annotate') {
  const s = await annotate({ ...cfg, targets, restart: true, lock: false });
  figures = {
    images: s.images_processed,
    images_failed: s.images_failed,
    objects_found: s.objects_found,
    objects_not_found: s.objects_not_found,
    load_seconds: s.load_seconds,
    // Wall time minus loading, the final rebuild of annotations.json included.
    loop_seconds: r3(s.seconds - s.load_seconds),
    images_per_second: Math.round((s.images_processed / (s.seconds - s.load_seconds)) * 1e4) / 1e4,
    device: s.device,
  };
} else {
  const t0 = performance.now();
  const model = await depthEstimators.get(cfg.depth!)({ modelsDir: cfg.modelsDir, device: cfg.device, threads: cfg.threads, precision: cfg.precision, session: cfg.session });
  const t1 = performance.now();
  mkdirSync(join(cfg.outDir, 'depth'), { recursive: true });
  // The PNGs' scales by item id, for the comparison (annotate mode has them in annotations.json).
  const scales: Record<string, { depth_file: string; depth_scale: number }> = {};
  for (const t of targets) {
    const image = await timeStageAsync('decode', () => loadImage(t.imagePath, t.fileName));
    const map = await model.estimate(image);
    await timeStageAsync('write', async () => {
      const { png, scale } = await encodeDepthPng(map);
      const file = `depth/${fileStemForId(t.itemId)}.png`;
      await writeFileAtomic(join(cfg.outDir, file), png);
      scales[t.itemId] = { depth_file: file, depth_scale: scale };
    });
  }
  await writeJsonAtomic(join(cfg.outDir, 'depth-scales.json'), scales);
  const loop = (performance.now() - t1) / 1000;
  await model.dispose();
  figures = { images: targets.length, load_seconds: r3((t1 - t0) / 1000), loop_seconds: r3(loop), images_per_second: r3(targets.length / loop), device: model.device };
}
recordStages(false);
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
process.stdout.write(
  JSON.stringify({
    ...figures,
    stages_ms: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, { ms: Math.round(v.ms * 10) / 10, calls: v.calls }])),
    peak_rss_mib: mib(process.resourceUsage().maxRSS * 1024),
  }) + '\n',
);
