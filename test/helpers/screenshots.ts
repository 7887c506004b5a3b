/**
 * Where browser tests save their screenshots: a temporary folder, or docs/screenshots/ (committed,
 * listed in data/PROVENANCE.md) when GSR_UPDATE_SCREENSHOTS=1, so a plain test run leaves the tree clean.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

let dir: string | undefined;

export function screenshotPath(name: string): string {
  dir ??= process.env.GSR_UPDATE_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'gsr-shots-'));
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
