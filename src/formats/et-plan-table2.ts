/**
 * ET-Plan-Bench's published results (Table 2 of the repository's README, `images/results.png`, as the
 * project typed it in: data/et-plan/table2-released.csv; provenance in data/PROVENANCE.md), each of
 * the 17 settings tied to the family, subset and layout-map setting that measure it here.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { GsrError } from '../util/errors.js';

export const ET_PLAN_TABLE2_FILE = fileURLToPath(new URL('../../data/et-plan/table2-released.csv', import.meta.url));

const num = z.coerce.number();
export const EtPlanTable2RowSchema = z.strictObject({
  setting: z.string().min(1),
  family: z.string().min(1),
  subset: z.enum(['all', 'occlusion-size', 'occlusion-distance']),
  layout_map: z.enum(['true', 'false']).transform((v) => v === 'true'),
  success_gpt4: num, success_llama7b_sft: num, seq_len_gpt4: num, seq_len_llama7b_sft: num,
  lcs_gpt4: num, lcs_ratio_gpt4: num, lcs_llama7b_sft: num, lcs_ratio_llama7b_sft: num,
  distance_gpt4: num, distance_llama7b_sft: num,
});
export type EtPlanTable2Row = z.infer<typeof EtPlanTable2RowSchema>;

/** Reads the typed-in table (default: the shipped one); a bad row is an error naming its line. */
export async function readEtPlanTable2(path = ET_PLAN_TABLE2_FILE): Promise<EtPlanTable2Row[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new GsrError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as unknown[];
  return rows.map((raw, i) => {
    const r = EtPlanTable2RowSchema.safeParse(raw);
    if (!r.success) throw new GsrError(`${path} line ${i + 2}: ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`);
    return r.data;
  });
}
