/** VSP tables and report sections: per-level curves, sub-task accuracies, modes, and a plan gallery. */
import { vspModelSummaries, vspRegression, type VspModelSummary, type VspRegression } from '../../analysis/vsp.js';
import { escapeHtml as h } from '../../report/escape.js';
import { vegaLiteToSvg } from '../../report/plots.js';
import type { ReportInput, ReportSection, ReportTable, ScoreCell } from '../types.js';
import { COLOURS, runMoves, stacksKey, type BlockMove, type Stacks } from './blocks.js';
import { PAPER_TASKS, type VspItem } from './item.js';
import { STRICT_FIXES } from './judge.js';
import { replayMaze, type Move } from './maze.js';
import { formatP } from '../../util/stats.js';

export interface VspAnalysis {
  summaries: VspModelSummary[];
  regressions: VspRegression[];
}

/** The paper's random row for T1-T4 (Table 3). */
export const PAPER_RANDOM: Record<string, number> = { 'maze-t1': 0.5, 'maze-t2': 0.25, 'maze-t3': 0.25, 'maze-t4': 0.5, 'blocks-t1': 0.17, 'blocks-t2': 0.25, 'blocks-t3': 0.25, 'blocks-t4': 0.5 };

export function analyzeVsp(cells: ScoreCell[]): VspAnalysis {
  const summaries = vspModelSummaries(cells);
  // Image input only: T3 has no text variant, so the text inputs have no perception score.
  const combos = new Set(summaries.filter((s) => s.variant === 'image').map((s) => `${s.mode}\0${s.variant}`));
  const regressions = [...combos].map((k) => k.split('\0')).map(([mode, variant]) => vspRegression(summaries, mode, variant));
  return { summaries, regressions };
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? null : Math.round(x * 1000) / 10);
const levelOrder = (a: string, b: string) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, ''));

export function vspTables(cells: ScoreCell[], analysis?: unknown): ReportTable[] {
  const a = (analysis as VspAnalysis | undefined) ?? analyzeVsp(cells);
  const tables: ReportTable[] = [];
  for (const task of ['maze-main', 'blocks-main']) {
    const levels = [...new Set(cells.filter((c) => c.task === task).map((c) => c.level))].sort(levelOrder);
    const rows = cells.filter((c) => c.task === task);
    const keys = [...new Set(rows.map((c) => `${c.model}\0${c.mode}\0${c.variant}`))];
    tables.push({
      id: `${task}-levels`, title: `${task}: success by level, %`, columns: ['model', 'mode', 'input', ...levels.map((l) => `level ${l}`), 'all'],
      rows: keys.map((k) => {
        const [model, mode, variant] = k.split('\0');
        const mine = rows.filter((c) => c.model === model && c.mode === mode && c.variant === variant);
        const acc = (cs: ScoreCell[]) => (cs.length === 0 ? null : pct(cs.reduce((s, c) => s + c.credit, 0) / cs.reduce((s, c) => s + c.n, 0)));
        return [model, mode, variant, ...levels.map((l) => acc(mine.filter((c) => c.level === l))), acc(mine)];
      }),
      note: task === 'maze-main' ? 'Levels are map sizes (NxN).' : 'Levels are optimal plan lengths.',
    });
  }
  const subs = PAPER_TASKS.filter((t) => !t.endsWith('main'));
  tables.push({
    id: 'subtasks', title: 'Sub-tasks T1-T4, % (all levels)', columns: ['model', 'mode', 'input', ...subs, 'perception', 'reasoning', 'main'],
    rows: [
      ...a.summaries.map((s) => [s.model, s.mode, s.variant, ...subs.map((t) => pct(s.tasks[t])), pct(s.perception), pct(s.reasoning), pct(s.main)]),
      ['paper: random', '', '', ...subs.map((t) => pct(PAPER_RANDOM[t])), null, null, null],
    ],
    note: 'perception = mean of T1-T3 of both games, reasoning = mean of the T4s, main = mean of the two main tasks.',
  });
  const others = ['collision', 'google-map'].filter((t) => cells.some((c) => c.task === t));
  if (others.length > 0) {
    tables.push({
      id: 'repo-only', title: 'Repository-only tasks, %', columns: ['model', 'mode', ...others],
      rows: a.summaries.filter((s) => s.variant === 'image').map((s) => [s.model, s.mode, ...others.map((t) => pct(s.tasks[t]))]),
      note: 'Collision gives a point each for the car and the person; the official scorer never credits the person (collision-person).',
    });
  }
  tables.push(invalidTable(cells));
  const byMode = new Map<string, number>();
  for (const c of cells) byMode.set(`${c.model}\0${c.task}\0${c.variant}\0${c.mode}`, c.credit + (byMode.get(`${c.model}\0${c.task}\0${c.variant}\0${c.mode}`) ?? 0));
  const diffRows: ReportTable['rows'] = [];
  for (const [k, v] of byMode) {
    const [model, task, variant, mode] = k.split('\0');
    if (mode !== 'official') continue;
    const strict = byMode.get(`${model}\0${task}\0${variant}\0strict`);
    if (strict !== undefined && strict !== v) diffRows.push([model, task, variant, Math.round(v * 10) / 10, Math.round(strict * 10) / 10]);
  }
  tables.push({
    id: 'modes', title: 'Where official and strict scoring part (credited answers)', columns: ['model', 'task', 'input', 'official', 'strict'], rows: diffRows,
    note: `Strict fixes: ${Object.entries(STRICT_FIXES).map(([k, v]) => `${k}: ${v}`).join('; ')}.`,
  });
  tables.push({
    id: 'regression', title: 'Across models: main-task success ~ perception + reasoning (OLS)', columns: ['mode', 'input', 'models', 'coefficient', 'estimate', '95% CI', 'p', 'R²'],
    rows: a.regressions.flatMap((r): ReportTable['rows'] => (r.fit === null
      ? [[r.mode, r.variant, null, r.note, null, null, null, null]]
      : r.fit.coefficients.map((c) => [r.mode, r.variant, r.fit!.n, c.name, round(c.estimate), `[${round(c.ci[0])}, ${round(c.ci[1])}]`, formatP(c.p), round(r.fit!.r2)]))),
  });
  return tables;
}

/** Invalid answers per task: ours (`valid`) beside each official script's own count (official mode only). */
function invalidTable(cells: ScoreCell[]): ReportTable {
  const groups = new Map<string, ScoreCell[]>();
  for (const c of cells) {
    const k = `${c.model}\0${c.mode}\0${c.variant}\0${c.task}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const sum = (cs: ScoreCell[], f: (c: ScoreCell) => number) => cs.reduce((s, c) => s + f(c), 0);
  return {
    id: 'invalid', title: 'Invalid answers per task: ours and the official scripts\' count', columns: ['model', 'mode', 'input', 'task', 'answers', 'invalid (gsr)', 'invalid (script)', 'failed'],
    rows: [...groups.entries()].map(([k, cs]) => {
      const [model, mode, variant, task] = k.split('\0');
      const script = cs.some((c) => c.scriptInvalid !== undefined) ? sum(cs, (c) => c.scriptInvalid ?? 0) : null;
      return [model, mode, variant, task, sum(cs, (c) => c.n), sum(cs, (c) => c.invalid), script, sum(cs, (c) => c.failed)];
    }),
    note: 'invalid (gsr): no marker or an unreadable answer, by our reading (docs/vsp.md). invalid (script): what the task\'s official eval.py counts as invalid, in official mode; '
      + 'empty where the script keeps no such count (maze main, collision, google-map) and in strict mode. Failed requests are counted apart.',
  };
}

const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);

/** Per-level success curves of the main tasks (one line per model; official mode, image input; the tables have the rest). */
async function levelCurves(cells: ScoreCell[]): Promise<string> {
  const out: string[] = [];
  for (const task of ['maze-main', 'blocks-main']) {
    const values = cells.filter((c) => c.task === task && c.mode === 'official').map((c) => ({ level: Number(c.level.replace(/\D/g, '')), accuracy: c.accuracy, series: c.model }));
    if (values.length === 0) continue;
    out.push(await vegaLiteToSvg({
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json', title: `${task}: success by level (official)`, width: 360, height: 220,
      data: { values }, mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'level', type: 'quantitative', title: task === 'maze-main' ? 'map size' : 'optimal moves', axis: { tickMinStep: 1 } },
        y: { field: 'accuracy', type: 'quantitative', scale: { domain: [0, 1] }, title: 'success' },
        color: { field: 'series', type: 'nominal', title: 'model' },
      },
    }));
  }
  return out.join('\n');
}

/** The map as an SVG grid with the plan's replayed path. */
export function mazeSvg(rows: string[], moves: Move[]): string {
  const n = rows.length;
  const s = 24;
  const fill: Record<string, string> = { S: '#4a90d9', G: '#2a2', H: '#333', F: '#eee' };
  const cells = rows.flatMap((row, r) => [...row].map((c, col) => `<rect x="${col * s}" y="${r * s}" width="${s - 1}" height="${s - 1}" fill="${fill[c]}"/>`));
  const { path, outcome } = replayMaze(rows, moves);
  const pts = path.map(([r, c]) => `${c * s + s / 2},${r * s + s / 2}`).join(' ');
  const colour = outcome === 'win' ? '#d4a000' : '#e22';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${n * s}" height="${n * s}" role="img" aria-label="maze ${n}x${n}, plan ${h(moves.join(''))}: ${outcome}">${cells.join('')}<polyline points="${pts}" fill="none" stroke="${colour}" stroke-width="3" stroke-linejoin="round"/></svg>`;
}

function stacksHtml(stacks: Stacks): string {
  return stacks.map((st) => st.map((c) => COLOURS[c]).join(' / ')).map((x) => h(x)).join('<br>');
}

function galleryEntry(item: VspItem, model: string, output: string, verdicts: Record<string, boolean | undefined>, extracted: unknown): string {
  const verdict = Object.entries(verdicts).map(([m, ok]) => `${m}: ${ok === undefined ? '-' : ok ? 'correct' : 'wrong'}`).join(', ');
  let picture = '';
  if (item.task === 'maze-main') {
    const tokens = Array.isArray(extracted) ? (extracted as string[]) : [];
    const moves: Move[] = [];
    for (const t of tokens) {
      if (!['L', 'R', 'U', 'D'].includes(t)) break;
      moves.push(t as Move);
    }
    picture = mazeSvg(item.maze!, moves);
  } else if (item.task === 'blocks-main') {
    const lines = Array.isArray(extracted) ? (extracted as string[]) : [];
    const moves: BlockMove[] = lines.map((l) => {
      const m = /^move\(([^,]*),\s*([^)]*)\)?/.exec(l);
      const src = m?.[1].trim() ?? '';
      const dst = m?.[2].trim() ?? '';
      return { source: src.slice(0, 1).toUpperCase(), target: dst === 'table' ? 'table' : dst.slice(0, 1).toUpperCase() };
    });
    const end = runMoves(item.stacks!, moves, 'skip');
    picture = `<table class="blocks"><tr><th>start</th><th>after the plan</th><th>goal</th></tr><tr><td>${stacksHtml(item.stacks!)}</td><td>${stacksHtml(end.stacks)}</td><td>${stacksHtml(item.goal!)}</td></tr></table>` +
      `<div class="note">${end.illegal} illegal move(s) skipped; ${stacksKey(end.stacks) === stacksKey(item.goal!) ? 'reaches' : 'misses'} the goal</div>`;
  }
  return `<div class="entry" data-model="${h(model)}" data-task="${h(item.task)}"><div><b>${h(model)}</b> · ${h(item.id)} · ${h(verdict)}</div>${picture}<pre class="output">${h(output.slice(-600))}</pre></div>`;
}

export async function vspSections(input: ReportInput<VspItem>): Promise<ReportSection[]> {
  const sections: ReportSection[] = [];
  const curves = await levelCurves(input.cells.filter((c) => c.variant === 'image'));
  if (curves) sections.push({ id: 'vsp-curves', title: 'Main tasks by level', html: curves });
  // Gallery: per model, up to 4 maze and 4 blocks main-task answers (image input), failures first.
  const entries: string[] = [];
  const models = [...new Set(input.scored.map((s) => s.model))];
  for (const model of models) {
    for (const task of ['maze-main', 'blocks-main']) {
      const official = input.scored.filter((s) => s.model === model && s.task === task && s.mode === 'official' && s.variant === 'image' && s.status === 'ok');
      const picked = [...official.filter((s) => !s.correct).slice(0, 2), ...official.filter((s) => s.correct).slice(0, 2)];
      for (const s of picked) {
        const item = input.items.get(s.item);
        const output = input.outputs.get(`${model}\0${s.key}`);
        if (!item || output === undefined) continue;
        const strict = input.scored.find((x) => x.model === model && x.key === s.key && x.mode === 'strict');
        entries.push(galleryEntry(item, model, output, { official: s.correct, strict: strict?.correct }, s.extracted));
      }
    }
  }
  if (entries.length > 0) sections.push({ id: 'vsp-gallery', title: 'Plans replayed on the map', html: `<p class="note">Maze: the plan's moves replayed from the start (stopping at the first unreadable move); gold = reaches the goal, red = falls in a hole or stops short. Blocks: the stacks after the plan, with illegal moves skipped as the official scorer does.</p><div id="gallery">${entries.join('\n')}</div>` });
  return sections;
}
