/** One decode for bench/decode-limit.bench.ts, in its own process so its peak RSS is its own. Argument: image path. */
import { loadImage } from '../src/perception/image.js';

const t = performance.now();
let outcome: string;
try {
  const img = await loadImage(process.argv[2]!);
  outcome = `decoded ${img.width}x${img.height}`;
} catch (err) {
  outcome = (err as Error).message;
}
process.stdout.write(JSON.stringify({ outcome, seconds: +((performance.now() - t) / 1000).toFixed(2), max_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024) }) + '\n');
