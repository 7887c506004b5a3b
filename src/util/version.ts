import { readFileSync } from 'node:fs';

/** The installed gsr-bench version, recorded in every output file's provenance. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
