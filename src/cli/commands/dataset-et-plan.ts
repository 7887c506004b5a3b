/**
 * `gsr dataset synth apartments`, `gsr dataset synth et-plan` and `gsr dataset import et-plan`
 * (docs/et-plan.md, "Apartments", "Tasks", "Released task files").
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, listOf, parsePositiveInt, parseSeed } from '../parsers.js';
import { createProgress } from '../../util/progress.js';
import { ET_PLAN_FAMILIES } from '../../benchmarks/et-plan/families.js';

/** `MIN-MAX` or `N` (rooms per apartment). */
function parseRooms(value: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  const lo = m ? Number(m[1]) : NaN;
  const hi = m?.[2] !== undefined ? Number(m[2]) : lo;
  if (!(lo >= 4 && lo <= hi && hi <= 8)) throw new InvalidArgumentError('Expected MIN-MAX or N with 4 <= MIN <= MAX <= 8.');
  return [lo, hi];
}

/** `released`, `paper` or `FAMILY=N,...` (tasks per family over all apartments). */
function parseSizes(value: string): 'released' | 'paper' | Record<string, number> {
  if (value === 'released' || value === 'paper') return value;
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const m = /^\s*([a-z-]+)\s*=\s*(\d+)\s*$/.exec(part);
    if (m === null || !(ET_PLAN_FAMILIES as readonly string[]).includes(m[1])) throw new InvalidArgumentError(`Expected released, paper or FAMILY=N,... with families among ${ET_PLAN_FAMILIES.join(', ')}.`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

const ROOMS_HELP = 'rooms per apartment, MIN-MAX or N (4 to 8; kitchen, living room, bedroom and bathroom always)';

function table(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ')).join('\n');
}

export function registerEtPlanSynth(synth: Command): void {
  synth
    .command('apartments')
    .description('Generate procedural apartments as VirtualHome scene graphs (docs/et-plan.md)')
    .requiredOption('--out <dir>', 'output folder (apartments/apartment-NNN.json)')
    .requiredOption('--count <n>', 'number of apartments', parsePositiveInt)
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--rooms <range>', ROOMS_HELP, parseRooms, [4, 6])
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; count: number; seed: number; rooms: [number, number]; json?: boolean }) => {
        const { synthApartments } = await import('../../benchmarks/et-plan/synth.js');
        const progress = createProgress('apartments', opts.count, 'apartments');
        const r = await synthApartments({ out: opts.out, count: opts.count, seed: opts.seed, rooms: opts.rooms }, () => progress.tick()).finally(() => progress.stop());
        if (opts.json) printJson(r);
        else process.stdout.write(`wrote ${r.files.length} apartments (${r.nodes} nodes, ${r.edges} edges) to ${r.out}\n`);
      }, (o) => ({ folders: [o.out] })),
    );

  synth
    .command('et-plan')
    .description('Generate ET-Plan-Bench tasks on procedural apartments (or on given graphs), kept only when their plans execute (docs/et-plan.md)')
    .requiredOption('--out <dir>', 'output folder (items.jsonl, context.json, apartments/)')
    .option('--apartments <n>', 'apartments to generate (ignored with --graphs)', parsePositiveInt, 3)
    .option('--count <n>', 'tasks kept per family and apartment, at most', parsePositiveInt, 10)
    .option('--families <list>', `task families, comma-separated (${ET_PLAN_FAMILIES.join(', ')})`, listOf(ET_PLAN_FAMILIES), [...ET_PLAN_FAMILIES])
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--rooms <range>', ROOMS_HELP, parseRooms, [4, 6])
    .option('--graphs <dir>', 'use these VirtualHome graph files (*.json) instead of generated apartments')
    .addOption(choiceOption('--mix <mix>', 'task mix: project, or released (constraints as the released files: INSIDE a room, ON, FACING, INSIDE a thing; destinations constrained too)', ['project', 'released'], 'project'))
    .option('--sizes <sizes>', 'tasks per family over all apartments, instead of --count: released (2,023 as the released files), paper (the paper\'s sizes) or FAMILY=N,...', parseSizes)
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; apartments: number; count: number; families: string[]; seed: number; rooms: [number, number]; graphs?: string; mix: string; sizes?: unknown; json?: boolean }) => {
        const { generateEtPlanItems } = await import('../../benchmarks/et-plan/synth.js');
        const { writeItemSet } = await import('../../benchmarks/run.js');
        const out = resolve(opts.out);
        const { json, graphs, ...rest } = opts;
        let progress: ReturnType<typeof createProgress> | undefined;
        const started = performance.now();
        const set = await generateEtPlanItems({ ...rest, out, ...(graphs ? { graphs: resolve(graphs) } : {}) }, (_done, total) => {
          progress ??= createProgress('et-plan', total, 'apartment families');
          progress.tick();
        }).finally(() => progress?.stop());
        const r = await writeItemSet('et-plan', set, out);
        const seconds = (performance.now() - started) / 1000;
        const gen = set.context.generation;
        if (json) {
          printJson({ ...r, generation: gen, occlusion: set.context.occlusion, seconds });
          return;
        }
        const rows = [['family', 'generated', 'kept', 'dropped', 'skipped', ...(opts.sizes === undefined ? [] : ['wanted'])]];
        for (const [family, g] of Object.entries(gen)) {
          rows.push([family, String(g.generated), String(g.kept), Object.entries(g.dropped).map(([k, n]) => `${k}:${n}`).join(' ') || '-', String(g.skipped), ...(opts.sizes === undefined ? [] : [String(g.wanted ?? '-')])]);
        }
        process.stdout.write(`${table(rows)}\nwrote ${r.items} et-plan tasks on ${set.context.apartments.length} apartments to ${out} (${seconds.toFixed(1)} s)\n`);
      }, (o) => ({ folders: [o.out] })),
    );
}

export { table as textTable };

/** `gsr dataset import et-plan --root DIR --out DIR`: the released task files as text. */
export async function importEtPlanCommand(opts: { root: string; out: string; skipInvalid?: boolean; oracleLog?: string; json?: boolean }): Promise<void> {
  const { importReleased } = await import('../../benchmarks/et-plan/released.js');
  const r = await importReleased(opts.root, opts.out, { skipInvalid: opts.skipInvalid, oracleLog: opts.oracleLog === undefined ? undefined : resolve(opts.oracleLog) });
  for (const s of r.skipped) process.stderr.write(`skipped: ${s}\n`);
  if (opts.json) {
    printJson(r);
    return;
  }
  const rows = [['family', 'tasks', 'plan min/mean/max', 'steps', 'verbs']];
  for (const [family, s] of Object.entries(r.stats)) {
    rows.push([family, String(s.tasks), `${s.plan.min}/${s.plan.mean.toFixed(2)}/${s.plan.max}`, Object.entries(s.steps).map(([k, n]) => `${k}:${n}`).join(' '), s.verbs.join(',')]);
  }
  process.stdout.write(`${table(rows)}\nwrote ${r.tasks} released tasks (text only: their scenes are not public) to ${r.out}\n`);
  if (r.oracleLog !== undefined) process.stdout.write(`wrote the oracle's log (the ground truth, success true) to ${r.oracleLog}\n`);
}
