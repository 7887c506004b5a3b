/**
 * One measured `annotate()` run for bench/annotate.bench.ts, in its own process so that its peak
 * RSS is its own. Argument: JSON {manifest, outDir, detector, segmenter, depth, modelsDir, params}.
 * Prints JSON: the run summary plus peak RSS (kernel max) and sampled peak heap/external/RSS.
 */
import { annotate } from '../src/annotate/run.js';
import { targetsFromManifest } from '../src/annotate/targets.js';

const cfg = JSON.parse(process.argv[2]!) as {
  manifest: string;
  outDir: string;
  detector: string;
  segmenter: string | null;
  depth: string | null;
  modelsDir: string;
  params?: Record<string, number>;
};
const peak = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
const sample = () => {
  const m = process.memoryUsage();
  peak.rss = Math.max(peak.rss, m.rss);
  peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  peak.external = Math.max(peak.external, m.external);
  peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
};
const timer = setInterval(sample, 100);
const targets = await targetsFromManifest(cfg.manifest);
const summary = await annotate({ ...cfg, targets, device: 'cpu', restart: true });
sample();
clearInterval(timer);
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
process.stdout.write(
  JSON.stringify({
    images: summary.images_total,
    images_done: summary.images_done,
    images_failed: summary.images_failed,
    objects_found: summary.objects_found,
    objects_not_found: summary.objects_not_found,
    images_per_second: summary.images_per_second,
    load_seconds: summary.load_seconds,
    seconds: summary.seconds,
    peak_rss_mib: mib(process.resourceUsage().maxRSS * 1024),
    sampled_peak_mib: { rss: mib(peak.rss), heap_used: mib(peak.heapUsed), external: mib(peak.external), array_buffers: mib(peak.arrayBuffers) },
  }) + '\n',
);
