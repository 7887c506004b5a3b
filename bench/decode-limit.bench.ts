/**
 * Memory of decoding one huge image: a 16000 x 16000 PNG (a few hundred KB on disk, 256 megapixels)
 * under the default decode limit (refused from its header) and with the limit raised above it (the
 * anchor: what every annotate run paid before the limit existed), plus an image just under the
 * default limit. Peak RSS of a fresh process per decode.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DEFAULT_MAX_IMAGE_PIXELS } from '../src/perception/image.js';

const here = fileURLToPath(new URL('.', import.meta.url));

function decode(path: string, limit?: number): unknown {
  const env = { ...process.env, GSR_MAX_IMAGE_PIXELS: limit === undefined ? '' : String(limit) };
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', join(here, 'decode-worker.ts'), path], { env, encoding: 'utf8' }));
}

export default async function decodeLimitBench(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'gsr-decode-bench-'));
  try {
    const huge = join(dir, 'huge.png');
    await sharp({ create: { width: 16000, height: 16000, channels: 3, background: '#808080' } }).png().toFile(huge);
    const side = Math.floor(Math.sqrt(DEFAULT_MAX_IMAGE_PIXELS));
    const under = join(dir, 'under.png');
    await sharp({ create: { width: side, height: side, channels: 3, background: '#808080' } }).png().toFile(under);
    return {
      note: 'machine shared with other engineers; peak RSS of a fresh node process per decode',
      default_limit_pixels: DEFAULT_MAX_IMAGE_PIXELS,
      huge_png: { pixels: 16000 * 16000, bytes_on_disk: (await stat(huge)).size },
      huge_default_limit: decode(huge),
      huge_limit_raised_anchor: decode(huge, 16000 * 16000),
      just_under_default: { size: `${side}x${side}`, ...(decode(under) as object) },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
