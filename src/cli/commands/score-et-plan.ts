/**
 * `gsr score et-plan-logs`: an external agent's logs on ET-Plan-Bench's released tasks, scored against
 * their ground truth with the released metrics and the clean ones (docs/et-plan.md, "Scoring agent logs").
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { reportItemFailures } from '../exit.js';
import { choiceOption } from '../parsers.js';
import type { SkippedRecord } from '../../util/jsonl.js';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';
import { textTable } from './dataset-et-plan.js';

const SETS = ['both', 'clean', 'released'] as const;

const num = (x: number | null, digits = 2) => (x === null ? '-' : x.toFixed(digits));

export function registerScoreEtPlan(score: Command): void {
  score
    .command('et-plan-logs')
    .description("Score an agent's logs on ET-Plan-Bench's released tasks with the released metrics and the clean ones (docs/et-plan.md)")
    .requiredOption('--tasks <path>', 'released-tasks.jsonl (from gsr dataset import et-plan), the folder holding it, or a folder of the released task files')
    .requiredOption('--logs <file>', 'agent logs (JSONL: id, success, action_history, optional model, traverse_distance, item_size, init_distance)')
    .addOption(choiceOption('--metrics <set>', 'metric sets: clean, released or both', SETS, 'both'))
    .option('--failures-at-step-max', 'released set: a failure counts STEP_MAX = 40 steps in every family (the released script), not its family cap')
    .addOption(choiceOption('--occlusion-pool <pool>', 'occlusion percentiles per family or pooled over every family', ['family', 'pooled'], 'family'))
    .option('--model <name>', 'model of log records that name none', 'agent')
    .option('--out <dir>', 'folder for log-scores.json (default results/et-plan-logs)')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (o: { tasks: string; logs: string; metrics: (typeof SETS)[number]; failuresAtStepMax?: boolean; occlusionPool: 'family' | 'pooled'; model: string; out?: string; json?: boolean }) => {
        const { loadReleasedTasks } = await import('../../benchmarks/et-plan/released.js');
        const { scoreReleasedLogs } = await import('../../benchmarks/et-plan/released-logs.js');
        const { RELEASED_QUIRKS } = await import('../../benchmarks/et-plan/settings.js');
        const { readEtPlanLogs } = await import('../../formats/et-plan-logs.js');
        const { writeJsonAtomic } = await import('../../util/fs.js');
        const tasks = await loadReleasedTasks(o.tasks);
        const skipped: SkippedRecord[] = [];
        const logs = await readEtPlanLogs(o.logs, skipped);
        if (logs.length === 0 && skipped.length === 0) throw new GsrError(`${o.logs}: no log records`);
        const pool = o.occlusionPool;
        const sets = [
          ...(o.metrics !== 'released' ? [{ quirks: new Set<never>(), occlusionPool: pool }] : []),
          ...(o.metrics !== 'clean' ? [{ quirks: new Set([...RELEASED_QUIRKS, ...(o.failuresAtStepMax ? (['failures-at-step-max'] as const) : [])]), occlusionPool: pool }] : []),
        ];
        const r = scoreReleasedLogs(tasks, logs, { sets, defaultModel: o.model });
        const file = join(resolve(o.out ?? join('results', 'et-plan-logs')), 'log-scores.json');
        await writeJsonAtomic(file, { tasks: tasks.length, logs: logs.length, ...r });
        const bad = [...skipped.map((s) => `skipped ${s.file}:${s.line}: ${s.reason}`), ...r.unmatched];
        reportItemFailures('log records', { failed: bad.length, total: logs.length + skipped.length, succeeded: logs.length - r.unmatched.length }, bad);
        if (o.json) return printJson({ file, tasks: tasks.length, logs: logs.length, ...r });
        for (const m of r.models) {
          const missing = Object.entries(r.unlogged[m.model]).map(([f, n]) => `${f} ${n}`).join(', ');
          notice(`${m.model}: ${m.logs} of ${tasks.length} released tasks logged${missing ? ` (not logged, left out: ${missing})` : ''}`);
        }
        for (const set of r.sets) {
          const rows = [['model', 'family', 'subset', 'n', 'success %', 'seq length', 'LCS length', 'LCS ratio', 'distance']];
          for (const x of set.rows) rows.push([x.model, x.task, x.subset, String(x.n), x.success_rate === null ? '-' : (x.success_rate * 100).toFixed(1), num(x.sequence_length), num(x.lcs_length), num(x.lcs_ratio, 3), num(x.distance)]);
          const byNote = new Map<string, string[]>();
          for (const x of set.rows) if (x.note !== null) byNote.set(x.note, [...(byNote.get(x.note) ?? []), `${x.model} ${x.task}/${x.subset}`]);
          const notes = [...byNote].map(([note, where]) => `  ${note}: ${where.length === set.rows.length ? 'every row' : where.join(', ')}`);
          process.stdout.write(`metrics: ${set.mode}\n${textTable(rows)}\n${notes.length ? `empty values:\n${notes.join('\n')}\n` : ''}\n`);
        }
        process.stdout.write(`wrote ${file}\n`);
      }, (o) => ({ inside: [o.out ?? 'results'] })),
    );
}
