import { join } from 'node:path';
import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import type { VspContext, VspItem } from '../../../src/benchmarks/vsp/item.js';

/** The bundled sample (data/vsp-sample). */
export const SAMPLE_ROOT = join(import.meta.dirname, '../../../data/vsp-sample');

let cached: Promise<{ items: VspItem[]; context: VspContext }> | undefined;
export function sample(): Promise<{ items: VspItem[]; context: VspContext }> {
  return (cached ??= importVsp(SAMPLE_ROOT));
}

export async function sampleItem(id: string): Promise<VspItem> {
  const it = (await sample()).items.find((i) => i.id === id);
  if (!it) throw new Error(`no sample item ${id}`);
  return it;
}
