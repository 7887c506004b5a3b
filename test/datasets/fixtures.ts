import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import sharp from 'sharp';

/** A fresh temporary folder. */
export function tempDir(prefix = 'gsr-datasets-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes a small solid-colour JPEG. */
export async function writeJpeg(path: string, width = 32, height = 24): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await sharp({ create: { width, height, channels: 3, background: '#808080' } }).jpeg().toFile(path);
}

/** Writes a What'sUp-style data folder: the given JSON files (objects or raw text) and images. */
export async function writeWhatsupFolder(files: Record<string, unknown>, images: string[]): Promise<string> {
  const root = await tempDir('gsr-whatsup-');
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(root, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  for (const image of images) await writeJpeg(join(root, image));
  return root;
}

export const controlled = (image: string, captions: string[]) => ({ image_path: `data/${image}`, caption_options: captions });
export const A_CAPTIONS = ['A mug on a table', 'A mug under a table', 'A mug to the left of a table', 'A mug to the right of a table'];

/** Every file under `dir`, as sorted relative paths. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}
