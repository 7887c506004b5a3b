/**
 * Stage `prompts`: one prompt file per task (`<task>.jsonl`), plus `<model>/<task>.jsonl` for models
 * with their own templates. DAP depth hints come from the annotate stage's annotations.
 */
import { join } from 'node:path';
import { buildPromptFile, type BuildPromptsSummary } from '../../prompts/index.js';
import { modelFolder, type ModelConfig, type PipelineConfig, type PipelineTask } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import { sha256File } from '../../util/hash.js';
import { ANNOTATIONS_FILE } from '../../formats/coco.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';

export interface PromptsStageSummary {
  /** Prompt file (relative to the stage folder) by template set ('' = default) and task. */
  files: Record<string, Partial<Record<PipelineTask, string>>>;
  counts: Record<string, { items: number; prompts: number; skipped: number }>;
  skipped_examples: Array<{ file: string; item: string; reason: string }>;
}

/** The prompt file a model reads for a task, relative to the prompts stage folder. */
export function promptFileFor(model: Pick<ModelConfig, 'name' | 'templates'>, task: PipelineTask): string {
  return model.templates ? `${modelFolder(model.name)}/${task}.jsonl` : `${task}.jsonl`;
}

/**
 * The items a prompt file left out, by reason, each reason with up to three of its items: for DAP the
 * items the other tasks ask but this one cannot (no depth for an object), so the comparison is on fewer.
 */
export function skippedNotice(file: string, r: Pick<BuildPromptsSummary, 'items' | 'skipped'>): string {
  const byReason = new Map<string, string[]>();
  for (const s of r.skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.item]);
  const reasons = [...byReason].map(([reason, items]) => `${reason}: ${items.slice(0, 3).join(', ')}${items.length > 3 ? ` and ${items.length - 3} more` : ''}`);
  return `${file}: ${r.skipped.length} of ${r.items + r.skipped.length} items skipped (${reasons.join('; ')})`;
}

export function promptsStage(config: PipelineConfig): Stage {
  const p = config.prompts;
  const sets: Array<{ name: string; templates?: string; model?: string }> = [{ name: '', templates: p.templates }];
  for (const m of config.models) if (m.templates) sets.push({ name: m.name, templates: m.templates, model: m.name });
  return {
    name: 'prompts',
    code: [import.meta.url],
    after: ['dataset', 'annotate'],
    settings: { tasks: p.tasks, permutations: p.permutations, dap: p.dap, sets: sets.map((s) => ({ name: s.name, model: s.model })) },
    async fingerprint() {
      return Promise.all(sets.map(async (s) => (s.templates ? sha256File(s.templates) : null)));
    },
    async run(ctx): Promise<PromptsStageSummary> {
      const manifest = join(ctx.input('dataset'), MANIFEST_FILE);
      const annotations = join(ctx.input('annotate'), ANNOTATIONS_FILE);
      const summary: PromptsStageSummary = { files: {}, counts: {}, skipped_examples: [] };
      ctx.progress.start(sets.length * p.tasks.length, 'prompt files');
      for (const set of sets) {
        summary.files[set.name] = {};
        for (const task of p.tasks) {
          const rel = set.name ? `${modelFolder(set.name)}/${task}.jsonl` : `${task}.jsonl`;
          const r: BuildPromptsSummary = await buildPromptFile({
            manifest, task, out: join(ctx.dir, rel), annotations, permutations: p.permutations, templatesFile: set.templates, model: set.model,
            baseTask: task === 'dap' ? p.dap.base_task : undefined, depthStat: p.dap.depth_stat, relations: task === 'dap' ? p.dap.relations : undefined,
          });
          summary.files[set.name][task] = rel;
          summary.counts[rel] = { items: r.items, prompts: r.prompts, skipped: r.skipped.length };
          for (const s of r.skipped.slice(0, 5)) summary.skipped_examples.push({ file: rel, ...s });
          if (r.skipped.length > 0) ctx.notice(skippedNotice(rel, r));
          ctx.progress.tick();
        }
      }
      return summary;
    },
  };
}
