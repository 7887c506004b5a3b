import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import type { VspContext, VspItem } from '../../../src/benchmarks/vsp/item.js';
import { vspLayoutSample } from '../../helpers/samples.js';

/** The root of the project's generated sample in VSP's layout (made once per test file). */
export const sampleRoot = vspLayoutSample;

let cached: Promise<{ items: VspItem[]; context: VspContext }> | undefined;
export function sample(): Promise<{ items: VspItem[]; context: VspContext }> {
  return (cached ??= sampleRoot().then((root) => importVsp(root)));
}

export async function sampleItem(id: string): Promise<VspItem> {
  const it = (await sample()).items.find((i) => i.id === id);
  if (!it) throw new Error(`no sample item ${id}`);
  return it;
}
