/**
 * models.lock.json: what `gsr models pull` fetched for each model file (docs/perception.md, "Pinned
 * downloads"), kept beside the model folders. A later pull that gets a different file is refused
 * unless asked to update. Schema-first; one reader and one atomic writer.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonAtomic } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';

/** File name of the lock inside a models folder. */
export const MODELS_LOCK_FILE = 'models.lock.json';

const hex = (n: number) => z.string().regex(new RegExp(`^[0-9a-f]{${n}}$`));

/** How a pulled file's content was checked. */
export const LOCK_VERIFIED = ['manifest', 'hub-sha256', 'hub-git-sha1', 'none'] as const;

/** One model file as it was pulled. */
export const ModelsLockEntrySchema = z.object({
  /** Model id and file role (the key), and the file name inside `<models>/<id>/`. */
  id: z.string().min(1),
  role: z.string().min(1),
  path: z.string().min(1),
  /** Null for a file placed by hand (the manifest has no URL). */
  url: z.string().min(1).nullable(),
  /** Commit the hub said it served (`X-Repo-Commit`), else the manifest's revision; null when neither. */
  revision: hex(40).nullable(),
  bytes: z.number().int().nonnegative(),
  sha256: hex(64),
  /** `manifest`: against the manifest's sha256; `hub-sha256` / `hub-git-sha1`: against the hash the hub sent; `none`. */
  verified: z.enum(LOCK_VERIFIED),
  /** When it was pulled (ISO 8601). */
  time: z.string().min(1),
});
export type ModelsLockEntry = z.infer<typeof ModelsLockEntrySchema>;

export const ModelsLockSchema = z.object({
  version: z.literal(1),
  files: z.array(ModelsLockEntrySchema),
});
export type ModelsLock = z.infer<typeof ModelsLockSchema>;

/** The lock file of a models folder. */
export function modelsLockPath(modelsDir: string): string {
  return join(modelsDir, MODELS_LOCK_FILE);
}

/** Reads a lock file; an absent one is an empty lock, a malformed one a GsrError naming the field. */
export async function readModelsLock(path: string): Promise<ModelsLock> {
  if (!existsSync(path)) return { version: 1, files: [] };
  const parsed = ModelsLockSchema.safeParse(await readJsonFile(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GsrError(`${path}: invalid models lock at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The entry of one model file, if locked. */
export function lockEntry(lock: ModelsLock, id: string, role: string): ModelsLockEntry | undefined {
  return lock.files.find((f) => f.id === id && f.role === role);
}

/** The lock with `entry` added or replacing the one of its model file, sorted by id and role. */
export function withLockEntry(lock: ModelsLock, entry: ModelsLockEntry): ModelsLock {
  const files = [...lock.files.filter((f) => !(f.id === entry.id && f.role === entry.role)), entry];
  files.sort((a, b) => (a.id === b.id ? (a.role < b.role ? -1 : a.role > b.role ? 1 : 0) : a.id < b.id ? -1 : 1));
  return { version: 1, files };
}

/** Writes a lock file atomically. */
export async function writeModelsLock(path: string, lock: ModelsLock): Promise<void> {
  await writeJsonAtomic(path, ModelsLockSchema.parse(lock));
}
