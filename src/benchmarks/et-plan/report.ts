/**
 * ET-Plan-Bench scoring and report (docs/et-plan.md, "Report"): the metrics per model, family and
 * subset, an episode summary per model, a plot of success rates with their Wilson intervals, and a
 * replay view that shows one episode step by step (the room on a floor plan, what is visible, what is
 * held), built from the records by replaying them on the engine. The view needs no script: each step
 * is a fragment the links target (`:target`).
 */
import type { EpisodeRecord } from '../../formats/episodes.js';
import { escapeHtml as h } from '../../report/escape.js';
import { vegaLiteToSvg } from '../../report/plots.js';
import type { ReportInput, ReportSection, ReportTable, ScoreCell } from '../types.js';
import { GsrError } from '../../util/errors.js';
import { episodeMaker, loadApartments, replayEpisode, type ReplayFrame } from './loop.js';
import { metricRows, rowNotes, type EpisodeOutcome, type MetricRow } from './metrics.js';
import { nodeName, objectLines } from './observation.js';
import { METRIC_QUIRKS, metricMode, parseEpisodeSettings, type MetricSettings } from './settings.js';
import type { EtPlanItem } from './task.js';
import { readEtPlanTable2, type EtPlanTable2Row } from '../../formats/et-plan-table2.js';

export interface ModelSummary {
  model: string;
  /** Items with a record. */
  episodes: number;
  /** Items without one (the episode could not run): counted as failures. */
  missing: number;
  /** Episodes stopped by a failed request. */
  failed_requests: number;
  steps: number;
  /** Steps whose reply held no readable action. */
  unreadable: number;
  /** Steps whose action was read but failed. */
  failed_actions: number;
  ended_at_cap: number;
  exhausted: number;
  /** The protocol(s) its episodes ran (records' variant: step, paper, released, released-cot, ...). */
  protocol: string;
  /** Successes as the protocol decided them (the released controller's verdict) and as the completion monitor saw them. */
  successes: number;
  monitor_successes: number;
}

export interface EtPlanAnalysis {
  /** The metric mode: clean, released (all quirks), or the quirks joined by `+`. */
  mode: string;
  quirks: string[];
  rows: MetricRow[];
  models: ModelSummary[];
  /** The metric set shown beside (the published pipeline: clean beside released). */
  beside?: { mode: string; quirks: string[]; rows: MetricRow[] };
  /** Monitor success rate per row of `rows` (`model\0family\0subset`), where it can differ from the protocol's verdict. */
  monitor?: Record<string, number>;
}

export { metricMode };

/** Metrics and cells over every model's episodes; an item without an episode counts as a failure. */
export function scoreEtPlan(items: ReadonlyMap<string, EtPlanItem>, episodes: ReadonlyMap<string, readonly EpisodeRecord[]>, m: MetricSettings): { cells: ScoreCell[]; analysis: EtPlanAnalysis } {
  const mode = metricMode(m);
  const outcomes: EpisodeOutcome[] = [];
  const models: ModelSummary[] = [];
  const cells = new Map<string, ScoreCell>();
  for (const [model, records] of episodes) {
    const byItem = new Map(records.map((r) => [r.item, r]));
    const s: ModelSummary = {
      model, episodes: 0, missing: 0, failed_requests: 0, steps: 0, unreadable: 0, failed_actions: 0, ended_at_cap: 0, exhausted: 0,
      protocol: [...new Set(records.map((r) => r.variant))].sort().join(', ') || 'none', successes: 0, monitor_successes: 0,
    };
    for (const item of items.values()) {
      const r = byItem.get(item.id);
      outcomes.push({
        model, item: item.id, task: item.task, subsets: item.subsets, success: r?.success ?? false, actions: r?.actions ?? [],
        groundTruth: item.ground_truth, distance: r?.distance ?? 0, walkDistance: r === undefined ? 0 : r.walk_distance, stepCap: item.step_cap,
        recorded: r !== undefined, figures: { size: item.figures.target_size, startDistance: item.figures.start_distance },
      });
      const id = [model, item.task, item.level].join('\0');
      let c = cells.get(id);
      if (c === undefined) cells.set(id, (c = { model, mode, task: item.task, level: item.level, variant: 'all', n: 0, correct: 0, invalid: 0, failed: 0, credit: 0, accuracy: 0 }));
      c.n++;
      if (r === undefined) {
        s.missing++;
        c.failed++;
        continue;
      }
      s.episodes++;
      s.steps += r.steps.length;
      s.unreadable += r.steps.filter((st) => st.action === null).length;
      s.failed_actions += r.steps.filter((st) => st.action !== null && !st.ok).length;
      if (r.status === 'failed') {
        s.failed_requests++;
        c.failed++;
      }
      if (r.end === 'cap') s.ended_at_cap++;
      if (r.end === 'exhausted') s.exhausted++;
      if (r.success) s.successes++;
      if (r.monitor_success ?? r.success) s.monitor_successes++;
      if (r.success) {
        c.correct++;
        c.credit++;
      } else if (r.steps.length > 0 && r.steps.every((st) => st.action === null)) c.invalid++;
    }
    models.push(s);
  }
  for (const c of cells.values()) c.accuracy = c.n === 0 ? 0 : c.credit / c.n;
  const analysis: EtPlanAnalysis = { mode, quirks: METRIC_QUIRKS.filter((q) => m.quirks.has(q)), rows: metricRows(outcomes, m.quirks, m.occlusionPool), models };
  if (m.beside !== undefined) {
    const quirks = m.beside;
    analysis.beside = { mode: metricMode({ quirks, occlusionPool: m.occlusionPool }), quirks: METRIC_QUIRKS.filter((q) => quirks.has(q)), rows: metricRows(outcomes, quirks, m.occlusionPool) };
  }
  if ([...episodes.values()].some((rs) => rs.some((r) => r.monitor_success !== undefined))) analysis.monitor = monitorRates(items, episodes);
  return { cells: [...cells.values()], analysis };
}

/** The completion monitor's success rate per model, family and subset (every item of the group; a missing episode fails). */
function monitorRates(items: ReadonlyMap<string, EtPlanItem>, episodes: ReadonlyMap<string, readonly EpisodeRecord[]>): Record<string, number> {
  const counts = new Map<string, [number, number]>();
  for (const [model, records] of episodes) {
    const byItem = new Map(records.map((r) => [r.item, r]));
    for (const item of items.values()) {
      const r = byItem.get(item.id);
      const ok = r === undefined ? false : (r.monitor_success ?? r.success);
      for (const task of ['all', item.task]) {
        for (const subset of ['all', ...item.subsets]) {
          const key = [model, task, subset].join('\0');
          const c = counts.get(key) ?? [0, 0];
          counts.set(key, [c[0] + (ok ? 1 : 0), c[1] + 1]);
        }
      }
    }
  }
  return Object.fromEntries([...counts].map(([k, [ok, n]]) => [k, ok / n]));
}

/** The protocols of the models, for table titles. */
const protocolsOf = (a: EtPlanAnalysis) => [...new Set(a.models.map((m) => m.protocol))].join('; ');

const pct = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 10);
const r2 = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);

export function etPlanTables(_cells: ScoreCell[], analysis?: unknown): ReportTable[] {
  const a = analysis as EtPlanAnalysis | undefined;
  if (a === undefined) return [];
  const protocol = new Map(a.models.map((m) => [m.model, m.protocol]));
  const metricTable = (id: string, mode: string, quirks: string[], rows: MetricRow[], monitor?: Record<string, number>): ReportTable => ({
    id,
    title: `ET-Plan-Bench metrics by family and subset (protocol: ${protocolsOf(a)}; metrics: ${mode})`,
    columns: ['model', 'protocol', 'family', 'subset', 'n', 'success %', '95% CI', ...(monitor ? ['monitor success %'] : []), 'sequence length', 'LCS length', 'LCS ratio', 'moving distance'],
    rows: rows.map((r) => [
      r.model, protocol.get(r.model) ?? null, r.task, r.subset, r.n, pct(r.success_rate), r.success_low === null ? null : `${pct(r.success_low)}–${pct(r.success_high)}`,
      ...(monitor ? [pct(monitor[[r.model, r.task, r.subset].join('\0')] ?? null)] : []), r2(r.sequence_length), r2(r.lcs_length), r2(r.lcs_ratio), r2(r.distance),
    ]),
    note: [
      quirks.length
        ? `Metric set ${mode}: quirks of the released evaluation applied: ${quirks.join(', ')} (docs/et-plan.md, "Metrics").`
        : 'Metric set clean: sequence length over successful episodes; LCS length, LCS ratio (LCS / ground-truth length) and moving distance over all episodes. CI: Wilson score interval.',
      ...(monitor ? ['Success is the protocol\'s verdict (the released controller\'s); monitor success is the completion monitor\'s over the same episodes.'] : []),
      ...rowNotes(rows).map((n) => `Empty: ${n}.`),
    ].join(' '),
  });
  return [
    metricTable('et-plan-metrics', a.mode, a.quirks, a.rows, a.monitor),
    ...(a.beside ? [metricTable('et-plan-metrics-beside', a.beside.mode, a.beside.quirks, a.beside.rows, a.monitor)] : []),
    {
      id: 'et-plan-episodes',
      title: `ET-Plan-Bench episodes per model (protocol: ${protocolsOf(a)}; metrics: ${a.mode}${a.beside ? ` and ${a.beside.mode}` : ''})`,
      columns: ['model', 'protocol', 'episodes', 'missing', 'failed requests', 'steps', 'unreadable replies %', 'failed actions %', 'ended at cap', 'exhausted', 'successes', 'monitor successes'],
      rows: a.models.map((m) => [m.model, m.protocol, m.episodes, m.missing, m.failed_requests, m.steps, m.steps ? pct(m.unreadable / m.steps) : null, m.steps ? pct(m.failed_actions / m.steps) : null, m.ended_at_cap, m.exhausted, m.successes, m.monitor_successes]),
      note: 'Missing: items whose episode could not run (counted as failures). Exhausted: the paper or released protocol\'s controller gave up before the cap. Successes: the protocol\'s verdict; monitor successes: the completion monitor\'s.',
    },
  ];
}

async function successPlot(a: EtPlanAnalysis): Promise<ReportSection | null> {
  const values = a.rows.filter((r) => r.subset === 'all' && r.success_rate !== null).map((r) => ({ family: r.task, model: r.model, rate: r.success_rate, low: r.success_low, high: r.success_high }));
  if (values.length === 0) return null;
  const svg = await vegaLiteToSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json', title: 'Success rate by family (bars: 95% Wilson interval)', width: 520, height: 240,
    data: { values },
    // Family names broken at their first "-" and kept level: the axis title then sits under its labels,
    // whose height (unlike a rotated label's width) does not rest on vega's estimate of text width.
    encoding: {
      x: { field: 'family', type: 'nominal', title: 'family', axis: { labelAngle: 0, labelExpr: "indexof(datum.label, '-') < 0 ? datum.label : [slice(datum.label, 0, indexof(datum.label, '-')), slice(datum.label, indexof(datum.label, '-') + 1)]" } },
      xOffset: { field: 'model' },
      // No label limit: a model id is never cut short.
      color: { field: 'model', type: 'nominal', legend: { labelLimit: 0 } },
    },
    layer: [
      { mark: 'bar', encoding: { y: { field: 'rate', type: 'quantitative', title: 'success rate', scale: { domain: [0, 1] } } } },
      { mark: { type: 'rule', color: '#333' }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
    ],
  });
  return { id: 'et-plan-success-plot', title: 'Success rate by family', html: `<div class="plot">${svg}</div>` };
}

const REPLAY_CSS = `<style>
.replay{margin:.5em 0 1.5em}.replay .frame{display:none;border:1px solid #ddd;padding:8px;max-width:980px}
.replay .frame:target{display:block}.replay:not(:has(.frame:target)) .frame.first{display:block}
.replay .strip a{display:inline-block;min-width:1.6em;text-align:center;margin:1px;padding:0 2px;border-radius:3px;color:#fff;text-decoration:none;font-size:11px}
.replay .strip a.ok{background:#2a2}.replay .strip a.fail{background:#c33}.replay .strip a.start{background:#888}
.replay .cols{display:flex;gap:12px;flex-wrap:wrap}.replay pre{white-space:pre-wrap;font-size:12px;background:#f6f6f6;margin:4px 0;max-height:28em;overflow:auto;min-width:320px}
.replay svg.plan{border:1px solid #ccc;background:#fcfcfc}
</style>`;

/** A floor plan (x, z seen from above): rooms, visible objects, the task's objects, the character. */
function floorPlan(f: ReplayFrame, targets: ReadonlySet<number>): string {
  const g = f.world.graph;
  const boxes = g.rooms.map((id) => ({ id, bb: g.node(id)!.raw.bounding_box })).filter((r) => r.bb != null);
  if (boxes.length === 0) return '';
  const xs = boxes.flatMap((r) => [r.bb!.center[0] - r.bb!.size[0] / 2, r.bb!.center[0] + r.bb!.size[0] / 2]);
  const zs = boxes.flatMap((r) => [r.bb!.center[2] - r.bb!.size[2] / 2, r.bb!.center[2] + r.bb!.size[2] / 2]);
  const [x0, x1, z0, z1] = [Math.min(...xs), Math.max(...xs), Math.min(...zs), Math.max(...zs)];
  const W = 360;
  const scale = W / Math.max(x1 - x0, 1e-9);
  const H = Math.max(60, Math.round((z1 - z0) * scale));
  const px = (x: number) => ((x - x0) * scale).toFixed(1);
  const pz = (z: number) => ((z - z0) * scale).toFixed(1);
  const o = f.world.observation();
  const parts = boxes.map((r) => {
    const here = r.id === o.room;
    return `<rect x="${px(r.bb!.center[0] - r.bb!.size[0] / 2)}" y="${pz(r.bb!.center[2] - r.bb!.size[2] / 2)}" width="${(r.bb!.size[0] * scale).toFixed(1)}" height="${(r.bb!.size[2] * scale).toFixed(1)}" fill="${here ? '#eef5ff' : 'none'}" stroke="#99a"/>` +
      `<text x="${px(r.bb!.center[0] - r.bb!.size[0] / 2 + 0.2)}" y="${pz(r.bb!.center[2] - r.bb!.size[2] / 2 + 0.6)}" font-size="10" fill="#557">${h(nodeName(g, r.id))}</text>`;
  });
  for (const id of o.visible) {
    const c = g.node(id)!.center;
    if (g.isRoom(id) || c === undefined) continue;
    parts.push(`<circle cx="${px(c[0])}" cy="${pz(c[2])}" r="2" fill="#7a7"><title>${h(nodeName(g, id))}</title></circle>`);
  }
  for (const id of targets) {
    const c = g.node(id)?.center;
    if (c !== undefined) parts.push(`<circle cx="${px(c[0])}" cy="${pz(c[2])}" r="5" fill="none" stroke="#d80"><title>task: ${h(nodeName(g, id))}</title></circle>`);
  }
  const p = f.world.position;
  parts.push(`<circle class="character" cx="${px(p[0])}" cy="${pz(p[2])}" r="4" fill="#c22"><title>character</title></circle>`);
  return `<svg class="plan" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join('')}</svg>`;
}

/** A frame as the page shows it, read from the world when the frame was replayed. */
interface Frame {
  f: Pick<ReplayFrame, 'step' | 'differs'>;
  plan: string;
  lines: string[];
  held: string;
  room: string;
  progress: number;
  distance: number;
}

/** The replay of one episode: a strip of step links, then one frame per step. */
function replayHtml(prefix: string, item: EtPlanItem, record: EpisodeRecord, frames: Frame[]): string {
  const id = (k: number) => `${prefix}-${k}`;
  const strip = frames.map(({ f }, k) => `<a href="#${id(k)}" class="${f.step === null ? 'start' : f.step.ok ? 'ok' : 'fail'}">${k}</a>`).join('');
  const body = frames.map(({ f, plan, lines, held, room, progress, distance }, k) => {
    const st = f.step;
    const nav = `${k > 0 ? `<a href="#${id(k - 1)}" class="prev">previous</a>` : ''} ${k + 1 < frames.length ? `<a href="#${id(k + 1)}" class="next">next</a>` : ''}`;
    const controllerLine = (cs: readonly { line: string; ok: boolean; error: string | null }[]) => cs.map((c) => `<code>${h(c.line)}</code> ${c.ok ? 'done' : `failed (${h(c.error)})`}`).join('; ');
    const what = st === null
      ? `<p>Before the first step.</p>${record.controller_before?.length ? `<p>Controller, before the first question: ${controllerLine(record.controller_before)}</p>` : ''}`
      : `<p><b>Step ${st.step}</b>: <code class="action">${h(st.action ?? '(no action read)')}</code> <span class="verdict ${st.ok ? 'correct' : 'wrong'}">${st.ok ? 'done' : 'failed'}</span>${st.error ? ` <span class="error">${h(st.error)}</span>` : ''}</p>` +
        (st.controller?.length ? `<p>Controller: ${controllerLine(st.controller)}</p>` : '') +
        `<details><summary>reply</summary><div class="output">${h(st.reply)}</div></details>`;
    const differs = f.differs ? '<p class="warn">The replay differs from the record at this step (observation digest).</p>' : '';
    return `<div class="frame${k === 0 ? ' first' : ''}" id="${id(k)}" data-step="${k}">${nav}${what}${differs}
<p>Room: <span class="room">${h(room)}</span>. Holding: <span class="held">${h(held)}</span>. Criteria steps met: ${progress} of ${item.criteria.length}. Moving distance: ${distance.toFixed(2)}.</p>
<div class="cols">${plan}<pre class="visible">${h(lines.join('\n'))}</pre></div></div>`;
  }).join('\n');
  const outcome = replayOutcome(record);
  return `<div class="replay" id="${prefix}"><p><b>${h(record.model)}</b> on <b>${h(item.id)}</b> (${h(item.task)}, ${h(record.variant)} protocol). Task: <i>${h(item.instruction)}</i> Outcome: ${h(outcome)}.</p><div class="strip">${strip}</div>${body}</div>`;
}

/** The replay's outcome line: success or how it ended, and the step count. */
export function replayOutcome(record: Pick<EpisodeRecord, 'success' | 'end' | 'steps'>): string {
  const n = record.steps.length;
  return `${record.success ? 'success' : `no success (${record.end})`} after ${n} step${n === 1 ? '' : 's'}`;
}

/** Which item to replay: the one asked for, else the first item every model has an episode of. */
function replayItem(items: ReadonlyMap<string, EtPlanItem>, episodes: ReadonlyMap<string, readonly EpisodeRecord[]>, wanted?: string): EtPlanItem | undefined {
  if (wanted !== undefined) return items.get(wanted);
  const sets = [...episodes.values()].map((rs) => new Set(rs.map((r) => r.item)));
  return [...items.values()].find((i) => sets.every((s) => s.has(i.id))) ?? [...items.values()].find((i) => sets.some((s) => s.has(i.id)));
}

async function replaySection(input: ReportInput<EtPlanItem>): Promise<ReportSection | null> {
  const episodes = input.episodes;
  if (episodes === undefined || episodes.size === 0) return null;
  const item = replayItem(input.items, episodes, input.replayItem);
  if (item === undefined) return { id: 'et-plan-replay', title: 'Episode replay', html: `<p class="warn">No episode of item ${h(input.replayItem ?? '')} to replay.</p>` };
  const make = episodeMaker(await loadApartments([item]), parseEpisodeSettings(input.episodeSettings ?? {}));
  const targets = new Set([...item.targets.map((t) => t.id), ...item.criteria.flat().map((c) => c.to.id)]);
  const parts: string[] = [];
  let m = 0;
  for (const records of episodes.values()) {
    const record = records.find((r) => r.item === item.id);
    if (record === undefined) continue;
    const frames: Frame[] = [];
    try {
      replayEpisode(make, item, record, (f) => {
        const o = f.world.observation();
        const g = f.world.graph;
        frames.push({
          f: { step: f.step, differs: f.differs }, plan: floorPlan(f, targets), lines: objectLines(f.world.state, o),
          held: o.held.length ? o.held.map((id) => nodeName(g, id)).join(', ') : 'nothing', room: o.room === null ? 'none' : nodeName(g, o.room),
          progress: f.world.progress, distance: f.world.distance,
        });
      });
    } catch (err) {
      // One episode that cannot be replayed (its apartment gone) never stops the report.
      if (!(err instanceof GsrError)) throw err;
      parts.push(`<p class="warn">${h(record.model)}: the episode of ${h(item.id)} cannot be replayed: ${h(err.message)}</p>`);
      continue;
    }
    parts.push(replayHtml(`replay-${m++}`, item, record, frames));
  }
  const note = '<p class="note">Each model\'s episode of one item, step by step: the floor plan (the character red, what it sees green, the task\'s objects ringed), the visible objects as the prompt lists them, and what is held. Click a step number or previous/next.</p>';
  return { id: 'et-plan-replay', title: 'Episode replay', html: REPLAY_CSS + note + parts.join('\n') };
}

/**
 * The paper's Table 2 (as typed in: data/et-plan/table2-released.csv) beside each measured setting: the
 * 17 settings by their Table 2 names, each matched to its family and subset here; a layout-map setting
 * is measured only by a run with the layout map, and the others only by one without.
 */
export function publishedBesideMeasured(a: EtPlanAnalysis, table: readonly EtPlanTable2Row[], layoutMap: boolean): ReportSection {
  const fmt = (x: number | null, d = 2) => (x === null ? '–' : x.toFixed(d));
  const cells = (xs: Array<string | number>) => xs.map((x) => `<td>${h(String(x))}</td>`).join('');
  const models = a.models.map((m) => m.model);
  const body = table.map((t) => {
    const published = [
      `<tr class="published"><td rowspan="${models.length + 2}">${h(t.setting)}</td><td>GPT-4 (published)</td><td>–</td>${cells([t.success_gpt4.toFixed(2), t.seq_len_gpt4.toFixed(2), t.lcs_gpt4.toFixed(2), t.lcs_ratio_gpt4.toFixed(2), t.distance_gpt4.toFixed(2)])}</tr>`,
      `<tr class="published"><td>LLaMA-7B SFT (published)</td><td>–</td>${cells([t.success_llama7b_sft.toFixed(2), t.seq_len_llama7b_sft.toFixed(2), t.lcs_llama7b_sft.toFixed(2), t.lcs_ratio_llama7b_sft.toFixed(2), t.distance_llama7b_sft.toFixed(2)])}</tr>`,
    ];
    const measured = models.map((model) => {
      const r = a.rows.find((x) => x.model === model && x.task === t.family && x.subset === t.subset);
      const protocol = a.models.find((m) => m.model === model)!.protocol;
      if (t.layout_map !== layoutMap) return `<tr class="measured"><td>${h(model)}</td><td>${h(protocol)}</td><td colspan="5">not measured: this run has ${layoutMap ? 'the' : 'no'} layout map</td></tr>`;
      if (r === undefined || r.n === 0) return `<tr class="measured"><td>${h(model)}</td><td>${h(protocol)}</td><td colspan="5">no episodes in this setting (an empty group)</td></tr>`;
      return `<tr class="measured"><td>${h(model)}</td><td>${h(protocol)}</td>${cells([fmt(pct(r.success_rate)), fmt(r.sequence_length), fmt(r.lcs_length), fmt(r.lcs_ratio === null ? null : r.lcs_ratio * 100), fmt(r.distance)])}</tr>`;
    });
    return [...published, ...measured].join('\n');
  }).join('\n');
  const title = `Published beside measured (protocol: ${protocolsOf(a)}; metrics: ${a.mode})`;
  const note = `<p class="note">The released results table (the repository's README, Table 2; typed in: data/et-plan/table2-released.csv) beside each model measured here with the ${h(a.mode)} metric set, for each of its 17 settings (family and occlusion subset; layout map: ${layoutMap ? 'on' : 'off'} in this run). Success and LCS ratio in %. The published rows ran in VirtualHome's Unity apartments; these run on generated apartments (docs/et-plan.md, "The released protocol").</p>`;
  const html = `${note}<table class="published-measured"><thead><tr><th>setting</th><th>model</th><th>protocol</th><th>success %</th><th>sequence length</th><th>LCS length</th><th>LCS ratio %</th><th>moving distance</th></tr></thead><tbody>${body}</tbody></table>`;
  return { id: 'et-plan-published', title, html };
}

export async function etPlanSections(input: ReportInput<EtPlanItem>): Promise<ReportSection[]> {
  const a = input.analysis as EtPlanAnalysis | undefined;
  const out: ReportSection[] = [];
  const settings = parseEpisodeSettings(input.episodeSettings ?? {});
  if (a && settings.protocol === 'released') out.push(publishedBesideMeasured(a, await readEtPlanTable2(), settings.layout_map));
  const plot = a ? await successPlot(a) : null;
  if (plot) out.push(plot);
  const replay = await replaySection(input);
  if (replay) out.push(replay);
  return out;
}
