import { extname } from 'node:path';
import { readConfined } from '../util/confined.js';
import { GsrError, errorMessage, isMachineFaultOnRead } from '../util/errors.js';
import { AnswerError } from './errors.js';

const MIME: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp', '.gif': 'image/gif' };

/**
 * base64 data URLs of image files, with a small LRU: the rotations of one item share an image and
 * are usually asked close together, so a few entries save most re-reads.
 */
export class DataUrlCache {
  private readonly entries = new Map<string, Promise<string>>();
  constructor(private readonly capacity = 64) {}

  get(path: string): Promise<string> {
    const hit = this.entries.get(path);
    if (hit !== undefined) {
      this.entries.delete(path);
      this.entries.set(path, hit);
      return hit;
    }
    const mime = MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
    // Prompt files hold real paths; a path that now leads through a symbolic link is never read.
    const loading = readConfined(path).then(
      (bytes) => `data:${mime};base64,${bytes.toString('base64')}`,
      (err: NodeJS.ErrnoException) => {
        this.entries.delete(path);
        if (isMachineFaultOnRead(err)) throw err;
        throw new AnswerError(err instanceof GsrError ? err.message : `cannot read image ${path}: ${err.code ?? errorMessage(err)}`, false);
      },
    );
    this.entries.set(path, loading);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return loading;
  }
}
