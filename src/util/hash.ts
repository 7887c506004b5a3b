/** Content hashes (sha256, hex) of files and strings. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { GsrError, errorMessage } from './errors.js';

/** sha256 of a file's bytes, streamed; an unreadable file is a GsrError `cannot read <what> <path>: CODE`. */
export async function sha256File(path: string, what = 'file'): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (err) {
    throw new GsrError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
  return hash.digest('hex');
}

/** sha256 of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
