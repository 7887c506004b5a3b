import { setMaxListeners } from 'node:events';
import type { Command } from 'commander';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { PipelineResult } from '../../pipeline/index.js';
import { formatSummaryTable } from '../../pipeline/summary.js';
import { notice } from '../../util/log.js';
import { GsrError } from '../../util/errors.js';
import { action, printJson } from '../action.js';
import { EXIT } from '../exit.js';
import { formatP } from '../../util/stats.js';

// The pipeline pulls in every stage (statistics and plotting are slow to load): load it when a command runs.
const pipelineLib = () => import('../../pipeline/index.js');

const pct = (v: number | null) => (v === null ? '-' : `${(100 * v).toFixed(1)}%`);

function resultText(r: PipelineResult): string {
  const ran = r.stages.filter((s) => s.status === 'ran').length;
  const lines = [`pipeline ${r.name}: ${r.stages.length} stages (${ran} ran, ${r.stages.length - ran} unchanged) in ${r.seconds.toFixed(1)} s`];
  if (r.perception) lines.push(`perception: ${r.perception}`);
  for (const m of r.skipped_models) lines.push(`model ${m.name} not run: ${m.reason}`);
  for (const x of r.skipped_sections ?? []) lines.push(`${x.name} not run: ${x.reason}; ${x.how}`);
  if (r.rows.length > 0) {
    lines.push(
      '',
      'CircularEval and Avg G-Score, % (DAP: with hint, without in brackets; unparsed: grounding answers no rule could read; no label: grounding objects without a pseudo-label, not scored)',
      formatSummaryTable(r.rows),
    );
    for (const n of r.notes ?? []) lines.push(`G-Score: ${n}`);
  }
  // A plug-in's pipeline has no summary table but may warn.
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  if (r.rows.length > 0) lines.push('');
  const g = r.regression;
  if (g) {
    lines.push(
      g.slope === null
        ? `regression ${g.y} ~ ${g.x}: not fitted (${g.note})`
        : `regression ${g.y} ~ ${g.x} across ${g.models} models: slope ${g.slope.toFixed(3)}, p = ${formatP(g.p)}, R² = ${g.r2?.toFixed(3)}`,
    );
    for (const m of g.left_out ?? []) lines.push(`  left out: ${m.label}: ${m.reason}`);
    const s = g.simulated;
    if (s) {
      lines.push(`simulated answerers (seeded stand-ins, not models): ${s.models.join(', ')}`);
      if (s.slope !== null) lines.push(`  their own regression: slope ${s.slope.toFixed(3)}, p = ${formatP(s.p)}`);
      if (s.true_slope !== null) {
        lines.push(
          `  true effect built in: slope ${s.true_slope.toFixed(3)} (CircularEval ${pct(s.all_hits)} with every box a hit, ${pct(s.all_misses)} with every box a miss, ${pct(s.reasoning_error)} reasoning errors)`,
        );
      }
      if (s.note) lines.push(`  ${s.note}`);
    }
  }
  const ln = r.label_noise;
  if (ln) {
    const fit = (f: { slope: number; p: number } | null) => (f ? `slope ${f.slope.toFixed(3)}, p = ${formatP(f.p)}` : 'not fitted');
    lines.push(
      `label noise: the annotator boxed ${pct(ln.annotator_hit_rate)} of the objects right; ${ln.y} ~ ${ln.x} against the pseudo-labels: ${fit(ln.pseudo)}; against the exact truth: ${fit(ln.truth)}`,
      `  the conclusion (positive slope, p < 0.05) ${ln.survives_down_to === null ? 'survives at no swept annotator quality' : `survives down to an annotator quality of ${pct(ln.survives_down_to)}`} (label-noise section of the report)`,
    );
  }
  const ph = r.photos;
  if (ph) {
    lines.push(
      `real photos: ${ph.detector} found ${ph.hits} of ${ph.objects} reference boxes at IoU >= 0.5 (${pct(ph.hit_rate)}) on ${ph.images} photos` +
        ` (subjects ${ph.subject.hits}/${ph.subject.objects}, objects ${ph.object.hits}/${ph.object.objects})`,
    );
    if (ph.note) lines.push(`  ${ph.note}`);
  }
  for (const n of r.item_notes ?? []) lines.push(`left out: ${n}`);
  for (const t of r.tables ?? []) lines.push('', t);
  if (r.tables?.length) lines.push('');
  lines.push(r.report ? `report: ${r.report}` : `outputs: ${r.out}`);
  return lines.join('\n') + '\n';
}

export function registerPipeline(program: Command): void {
  const pipeline = program.command('pipeline').description('Run an experiment pipeline (YAML) end to end, skipping unchanged stages');
  pipeline
    .command('run')
    .description('Run a pipeline: dataset, annotate, prompts, answer, score, analyze, report')
    .argument('<file>', 'pipeline file (YAML), e.g. pipelines/demo.yaml')
    .option('--out <dir>', "output folder (replaces the file's out)")
    .option('--force', 'start over: rerun every stage even when unchanged, and ask every model again (stored answers are dropped)')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (file: string, o: { out?: string; force?: boolean; json?: boolean }) => {
        const { runPipeline } = await pipelineLib();
        const controller = new AbortController();
        setMaxListeners(0, controller.signal); // every model and task's run listens to it
        let interrupts = 0;
        const onSignal = () => {
          if (++interrupts > 1) process.exit(130);
          // The running stage prints how it stops (src/pipeline/engine.ts, Stage.stopping).
          notice('interrupted (what is finished is kept; run again to resume; Ctrl-C again to quit now)');
          controller.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          let result: PipelineResult;
          try {
            result = await runPipeline(file, { out: o.out, force: o.force, signal: controller.signal });
          } catch (err) {
            // Interrupted: one line, not an error, and exit 130 as every command (docs/cli.md, "Exit codes").
            if (!controller.signal.aborted || !(err instanceof GsrError) || err.exitCode !== EXIT.interrupted) throw err;
            notice(err.message);
            process.exitCode = EXIT.interrupted;
            return;
          }
          if (o.json) printJson(result);
          else process.stdout.write(resultText(result));
          // Failed images and answers are items that failed (docs/cli.md, "Exit codes"); a rerun tries them again.
          const failed = result.failed_items ?? [];
          if (failed.length > 0) {
            notice(`${failed.map((f) => `${f.failed} ${f.unit} (${f.stage})`).join(', ')} failed; exit code ${EXIT.someFailed}`);
            process.exitCode = EXIT.someFailed;
          }
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }),
    );
  pipeline
    .command('check')
    .description('Validate a pipeline file and its inputs (paths, models, endpoints) without running it')
    .argument('<file>', 'pipeline file (YAML)')
    .option('--json', 'print the checked configuration as JSON')
    .action(
      action(async (file: string, o: { json?: boolean }) => {
        const { preflightProblems, buildStages, isBenchPipeline, loadBenchPipeline, benchStages } = await pipelineLib();
        const { checkPipelineFile } = await import('../../formats/pipeline-file.js');
        if (await isBenchPipeline(file)) {
          const bench = await loadBenchPipeline(file);
          const stages = benchStages(bench.config).map((s) => s.name);
          if (o.json) printJson({ ...bench, stages });
          else process.stdout.write(`${file}: ok (${stages.join(' -> ')}; benchmark ${bench.config.benchmark.name}; models: ${bench.config.models.map((m) => m.name).join(', ') || 'none'}${bench.skippedModels.map((m) => `; model ${m.name} not run (${m.reason})`).join('')})\n`);
          return;
        }
        // Every problem at once: the file's own (schema, environment), then its inputs, models and endpoints.
        const checked = await checkPipelineFile(file);
        const problems = [...checked.problems, ...(checked.invalid.has('(file)') ? [] : await preflightProblems(checked.config, file, checked.invalid))];
        if (problems.length > 0) {
          for (const p of problems) process.stderr.write(`gsr: error: ${p}\n`);
          notice(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
          process.exitCode = EXIT.failed;
          return;
        }
        const loaded = { file: checked.file, config: checked.config as PipelineConfig, skippedModels: checked.skippedModels, skippedSections: checked.skippedSections };
        if (o.json) printJson({ ...loaded, stages: buildStages(loaded.config).map((s) => s.name) });
        else {
          const stages = buildStages(loaded.config).map((s) => s.name).join(' -> ');
          const skipped = [...loaded.skippedModels.map((m) => `; model ${m.name} not run (${m.reason})`), ...loaded.skippedSections.map((x) => `; ${x.name} not run (${x.reason})`)].join('');
          process.stdout.write(`${file}: ok (${stages}; models: ${loaded.config.models.map((m) => m.name).join(', ') || 'none'}${skipped})\n`);
        }
      }),
    );
  pipeline
    .command('status')
    .description('Show which stages are complete, stale (would rerun) or missing, without running anything')
    .argument('<file>', 'pipeline file (YAML)')
    .option('--out <dir>', "output folder (replaces the file's out)")
    .option('--json', 'print the status as JSON')
    .action(
      action(async (file: string, o: { out?: string; json?: boolean }) => {
        const { pipelineStatus } = await pipelineLib();
        const status = await pipelineStatus(file, { out: o.out });
        if (o.json) return printJson(status);
        const lines = status.stages.map((s) => `${s.name.padEnd(9)} ${s.state}${s.reasons.length ? ` (${s.reasons.join(', ')})` : ''}${s.completed_at ? ` (completed ${s.completed_at})` : ''}${s.partial ? ', interrupted run to resume' : ''}`);
        process.stdout.write(`${status.out}\n${lines.join('\n')}\n`);
      }),
    );
}
