import type { PublishedComparison } from '../analysis/published.js';
import type { PhotoObject, PhotosSummary } from '../formats/photos.js';
import type { RegressionReport } from '../analysis/regression.js';
import { escapeHtml as h } from './escape.js';
import type { Gallery } from './gallery.js';
import { CHANCE_NULL, TASK_NAMES, type Cell, type DapRow, type GroundingTable, type ReasoningTable, type RelationBreakdown, type SplitBreakdownRow } from '../analysis/tables.js';
import type { WhatsupPublished, WhatsupTable } from '../analysis/whatsup.js';
import { formatP } from '../util/stats.js';

const pct = (v: number) => (100 * v).toFixed(1);

/** A table cell showing a percentage and its CI; `data-value` keeps the raw fraction for tools and tests. */
function cellHtml(c: Cell, testId: string): string {
  if (c.value === null) return `<td class="na" data-testid="${h(testId)}">—</td>`;
  const ci = c.ci && Number.isFinite(c.ci.low) ? `<span class="ci">[${pct(c.ci.low)}, ${pct(c.ci.high)}]</span>` : '';
  return `<td data-testid="${h(testId)}" data-value="${c.value}">${pct(c.value)}${ci}</td>`;
}

/** Table 1 of one task: `table1-<task>`, cells `t1:<task>:<model>:<split>:circular|vanilla` (no task: `table1`, `t1:<model>:...`). */
export function reasoningTableHtml(t: ReasoningTable): string {
  if (t.rows.length === 0) return '<p class="note">No reasoning results.</p>';
  const id = (rest: string) => (t.task ? `t1:${t.task}:${rest}` : `t1:${rest}`);
  const head1 = t.splits.map((s) => `<th colspan="2">${h(s)}</th>`).join('') + '<th colspan="2">Total Average</th>';
  const head2 = [...t.splits, 'total'].map(() => '<th>Circ.</th><th>Van.</th>').join('');
  const body = t.rows
    .map((r) => {
      const cells = t.splits.map((s) => cellHtml(r.cells[s].circular, id(`${r.model}:${s}:circular`)) + cellHtml(r.cells[s].vanilla, id(`${r.model}:${s}:vanilla`))).join('');
      const total = cellHtml(r.total.circular, id(`${r.model}:total:circular`)) + cellHtml(r.total.vanilla, id(`${r.model}:total:vanilla`));
      return `<tr><th scope="row">${h(r.model)}</th>${cells}${total}</tr>`;
    })
    .join('\n');
  const caption = t.task ? `<caption>${h(TASK_NAMES[t.task] ?? t.task.toUpperCase())}: CircularEval (Circ.) and VanillaEval (Van.)</caption>` : '';
  return `<table id="${t.task ? `table1-${h(t.task)}` : 'table1'}">${caption}<thead><tr><th rowspan="2">Model</th>${head1}</tr><tr>${head2}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Position bias of one task as numbers beside its chart: `pb:<task>:<model>:<position>` holds the share. */
export function positionBiasTableHtml(rows: { category: string; series: string; value: number }[], task: string | undefined): string {
  const positions = [...new Set(rows.map((r) => r.category))].sort();
  const models = [...new Set(rows.map((r) => r.series))];
  const id = (m: string, p: string) => (task ? `pb:${task}:${m}:${p}` : `pb:${m}:${p}`);
  const cell = (m: string, p: string) => {
    const v = rows.find((r) => r.series === m && r.category === p)?.value;
    return v === undefined ? '<td class="na">—</td>' : `<td data-testid="${h(id(m, p))}" data-value="${v}">${pct(v)}</td>`;
  };
  const body = models.map((m) => `<tr><th scope="row">${h(m)}</th>${positions.map((p) => cell(m, p)).join('')}</tr>`).join('');
  return `<details><summary>Shares of answers by shown position (%)</summary><table class="position-bias"><thead><tr><th>Model</th>${positions.map((p) => `<th>${h(p)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></details>`;
}

export function groundingTableHtml(t: GroundingTable): string {
  if (t.rows.length === 0) return '<p class="note">No grounding results.</p>';
  const head = t.columns.map((c) => `<th>${h(c)}</th>`).join('') + '<th>Avg G-Score</th><th>Unparsed</th><th>No label</th>';
  const answers = (r: GroundingTable['rows'][number]) => {
    const a = r.answers;
    const missing = a.missing > 0 ? ` <span class="ci">+ ${a.missing} missing</span>` : '';
    return (
      `<td data-testid="t2:${h(r.model)}:unparsed" data-value="${a.unparsed}"${a.unparsed > 0.1 * a.objects ? ' class="warn"' : ''}>${a.unparsed} of ${a.objects}${missing}</td>` +
      `<td data-testid="t2:${h(r.model)}:no-label" data-value="${a.no_label}"${a.no_label > 0 ? ' class="warn"' : ''}>${a.no_label}</td>`
    );
  };
  const body = t.rows
    .map((r) => `<tr><th scope="row">${h(r.model)}</th>${t.columns.map((c) => cellHtml(r.cells[c], `t2:${r.model}:${c}`)).join('')}${cellHtml(r.avg, `t2:${r.model}:avg`)}${answers(r)}</tr>`)
    .join('\n');
  const det = t.detector;
  const detRow = (label: string, pick: (c: { mean_confidence: number | null; share_confident: number | null }) => number | null, show: (v: number) => string) =>
    `<tr class="detector"><th scope="row">${h(label)}</th>${t.columns
      .map((c) => {
        const v = det!.columns[c] ? pick(det!.columns[c]) : null;
        return v === null ? '<td class="na">—</td>' : `<td data-value="${v}">${show(v)}</td>`;
      })
      .join('')}<td></td><td></td><td></td></tr>`;
  // A confidence is a score in [0, 1], not a share: it prints as a fraction; the share of confident boxes in %.
  const detRows = det ? detRow('detector: mean confidence (0-1)', (c) => c.mean_confidence, (v) => v.toFixed(3)) + detRow('detector: share ≥ 0.5 (%)', (c) => c.share_confident, pct) : '';
  const note =
    '<p class="note">Unparsed: answers no box could be read from, over all columns (misses in the G-Score; docs/scoring.md, "Box formats"); missing: no answer. ' +
    'No label: objects the annotation file has no box for; they are not scored, and a column with no labelled object leaves Avg G-Score undefined (docs/scoring.md, "Semantics").</p>' +
    t.notes.map((n) => `<p class="warn" data-testid="t2-no-label">${h(n)}.</p>`).join('') +
    (det ? `<p class="note">Detector rows: the annotations' own confidence (from ${h(det.from)}'s grounding.json).</p>` : '');
  return `<table id="table2"><thead><tr><th>Model</th>${head}</tr></thead><tbody>${body}${detRows}</tbody></table>${note}`;
}

export function dapTableHtml(rows: DapRow[]): string {
  if (rows.length === 0) return '<p class="note">No DAP results (needs <code>dap/</code> and <code>nodap/</code> subfolders with item files).</p>';
  const body = rows
    .map(
      (r) =>
        `<tr><th scope="row">${h(r.model)}</th><td>${h(r.split)}</td><td>${h(r.subset)}</td><td>${r.n}</td>` +
        `<td data-testid="dap:${h(r.model)}:${h(r.split)}:${h(r.subset)}:without" data-value="${r.without}">${pct(r.without)}</td>` +
        `<td data-testid="dap:${h(r.model)}:${h(r.split)}:${h(r.subset)}:with" data-value="${r.with}">${pct(r.with)}</td>` +
        `<td>${r.mcnemar.b}</td><td>${r.mcnemar.c}</td>` +
        `<td data-testid="dap:${h(r.model)}:${h(r.split)}:${h(r.subset)}:p" data-value="${r.mcnemar.p}">${formatP(r.mcnemar.p)}</td></tr>`,
    )
    .join('\n');
  return (
    '<table id="dap"><thead><tr><th>Model</th><th>Split</th><th>Items</th><th>n</th><th>Circ. without</th><th>Circ. with DAP</th>' +
    '<th>only with</th><th>only without</th><th>McNemar p (exact)</th></tr></thead><tbody>' +
    body +
    '</tbody></table>'
  );
}

export function relationTableHtml(t: RelationBreakdown): string {
  if (t.rows.length === 0) return '<p class="note">No reasoning item records.</p>';
  const head = t.relations.map((r) => `<th>${h(r)}</th>`).join('');
  const body = t.rows
    .map((r) => `<tr><th scope="row">${h(r.model)}</th>${t.relations.map((rel) => cellHtml(r.cells[rel], `rel:${r.model}:${rel}`)).join('')}</tr>`)
    .join('\n');
  return `<table id="relations"><thead><tr><th>Model</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export function splitTableHtml(rows: SplitBreakdownRow[]): string {
  if (rows.length === 0) return '<p class="note">No reasoning results.</p>';
  const options = (o: SplitBreakdownRow['options']) => (o === null ? '—' : o.min === o.max ? String(o.min) : `${o.min}–${o.max}`);
  const body = rows
    .map(
      (r) =>
        `<tr><th scope="row">${h(r.model)}</th><td>${h(r.split)}</td><td>${r.n}</td><td>${r.unparsed === null ? '—' : r.prompts === null ? r.unparsed : `${r.unparsed} of ${r.prompts}`}</td><td>${options(r.options)}</td>` +
        `<td>${r.circular_correct ?? '—'}</td><td>${r.chance_expected === null ? '—' : r.chance_expected.toFixed(1)}</td>` +
        `<td data-testid="chance:${h(r.model)}:${h(r.split)}:p" data-value="${r.chance_p ?? ''}">${r.chance_p === null ? '—' : formatP(r.chance_p)}</td></tr>`,
    )
    .join('\n');
  return (
    '<table id="splits"><thead><tr><th>Model</th><th>Split</th><th>Items</th><th>Unparsed prompts</th><th>Options (k)</th>' +
    '<th>CircularEval right</th><th>Expected by chance (Σ 1/k)</th><th>p (above chance, exact; H0 below)</th></tr></thead><tbody>' +
    body +
    '</tbody></table><p class="note">Items: each asked once per rotation of its options, one prompt per rotation. Unparsed prompts: prompts whose answer was missing, failed or unreadable, of all the split\'s prompts.</p>' +
    `<p class="note" data-testid="chance-null">${h(CHANCE_NULL)}</p>`
  );
}

/** Models a regression left out, with why (e.g. a G-Score from answers that were mostly unparsed). */
function leftOutHtml(rows: { label: string; reason: string }[]): string {
  if (rows.length === 0) return '';
  return `<p class="warn" data-testid="regression-left-out">Left out of the regression: ${rows.map((s) => `${h(s.label)} (${h(s.reason)})`).join('; ')}.</p>`;
}

export function regressionHtml(r: RegressionReport | null, svg: string | null, note: string, leftOut: { label: string; reason: string }[] = []): string {
  if (!r || !svg) return `<p class="note">${h(note)}</p>${leftOutHtml(leftOut)}`;
  const rows = r.coefficients
    .map((c) => `<tr><th scope="row">${h(c.name)}</th><td>${c.estimate.toFixed(4)}</td><td>${c.se.toFixed(4)}</td><td>${c.t.toFixed(3)}</td><td data-testid="reg:${h(c.name)}:p" data-value="${c.p}">${formatP(c.p)}</td><td>[${c.ci[0].toFixed(4)}, ${c.ci[1].toFixed(4)}]</td></tr>`)
    .join('');
  return (
    `<div class="plot">${svg}</div><table id="regression"><thead><tr><th></th><th>coef</th><th>std err</th><th>t</th><th>P&gt;|t|</th><th>95% CI</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="note">n = ${r.n}, df = ${r.df_resid}, R² = ${r.r2.toFixed(4)}, adj. R² = ${r.adj_r2.toFixed(4)}, F = ${r.f.toFixed(3)} (p = ${formatP(r.f_p)}). Models: ${h(r.labels.join(', '))}</p>${leftOutHtml(r.skipped)}`
  );
}

export function boxDiv(box: number[], w: number, hgt: number, cls: string): string {
  const [x1, y1, x2, y2] = box;
  const style = `left:${((100 * x1) / w).toFixed(2)}%;top:${((100 * y1) / hgt).toFixed(2)}%;width:${((100 * (x2 - x1)) / w).toFixed(2)}%;height:${((100 * (y2 - y1)) / hgt).toFixed(2)}%`;
  return `<div class="box ${cls}" style="${style}"></div>`;
}

export function galleryHtml(g: Gallery): string {
  const options = (name: string, values: string[]) =>
    `<label>${name} <select data-filter="${name}"><option value="">all</option>${[...new Set(values)].sort().map((v) => `<option value="${h(v)}">${h(v)}</option>`).join('')}</select></label>`;
  const filters =
    `<div class="filters">${options('model', g.entries.map((e) => e.model))}${options('split', g.entries.map((e) => e.split))}` +
    `${options('verdict', g.entries.map((e) => e.verdict))}${options('kind', g.entries.map((e) => e.kind))}<span id="shown"></span></div>`;
  const imgCss = [...g.images.values()].map((i) => `.${i.id}{background-image:url(${i.dataUrl});aspect-ratio:${i.width}/${i.height}}`).join('\n');
  const cards = g.entries
    .map((e) => {
      const img = e.image ? g.images.get(e.image) : undefined;
      const boxes = img ? (e.gt ? boxDiv(e.gt, img.width, img.height, 'gt') : '') + (e.box ? boxDiv(e.box, img.width, img.height, 'pred') : '') : '';
      const mask = img && e.mask ? `<div class="mask ${e.mask}"></div>` : '';
      const picture = img ? `<div class="thumb ${img.id}">${mask}${boxes}</div>` : '<div class="noimg">no image</div>';
      const iou = e.iou !== undefined && e.iou !== null ? ` · IoU ${e.iou.toFixed(3)}` : '';
      const right = e.answers.filter((a) => a.verdict === 'correct').length;
      const tally = e.kind === 'reasoning' ? ` · ${right} of ${e.answers.length} rotations right` : '';
      const answers = e.answers
        .map(
          (a) =>
            `<div class="answer">` +
            (a.detail ? `<div class="meta"><span class="verdict ${h(a.verdict)}">${h(a.verdict)}</span> ${h(a.detail)}</div>` : '') +
            (a.prompt ? `<details><summary>prompt</summary><pre>${h(a.prompt)}</pre></details>` : '') +
            `<pre class="output">${h(a.output)}</pre>` +
            (a.outputFile ? `<div class="meta">first ${a.output.length} of ${a.outputLength} characters · <a href="${h(a.outputFile.split('/').map(encodeURIComponent).join('/'))}">whole output</a></div>` : '') +
            (a.extracted !== undefined ? `<div class="meta">extracted: ${h(a.extracted)}</div>` : '') +
            '</div>',
        )
        .join('');
      return (
        `<div class="entry" data-model="${h(e.model)}" data-split="${h(e.split)}" data-verdict="${h(e.verdict)}" data-kind="${h(e.kind)}" data-item="${h(e.item)}">` +
        picture +
        `<div class="meta"><span class="verdict ${h(e.verdict)}">${h(e.verdict)}</span> <b>${h(e.model)}</b> · ${h(e.split)} · ${h(e.item)}<br>${h(e.detail)}${tally}${iou}${e.depth ? ` · ${h(e.depth)}` : ''}</div>` +
        answers +
        '</div>'
      );
    })
    .join('\n');
  const legend = '<p class="note"><span class="key gt"></span> annotation box <span class="key pred"></span> model box <span class="key maskkey"></span> annotation mask (with --annotations)</p>';
  return `<style>${imgCss}</style>${legend}${filters}<div id="gallery">${cards}</div>`;
}

/** The "pseudo-labels vs reviewed labels" section: G-Scores before and after review, and the regression both ways. */
export function relabelHtml(r: import('./relabel.js').RelabelReport): string {
  if (r.models.length === 0) return '<p class="note">No results folder has grounding-items.jsonl to re-score.</p>';
  const signed = (v: number) => `${v >= 0 ? '+' : ''}${pct(v)}`;
  const val = (v: number | null, id: string) => (v === null ? '<td class="na">—</td>' : `<td data-testid="${h(id)}" data-value="${v}">${pct(v)}</td>`);
  const rows = r.models.flatMap((m) => [
    ...Object.entries(m.columns).map(([col, c]) => {
      const d = c.delta ? `<td data-value="${c.delta.estimate}">${signed(c.delta.estimate)}<span class="ci">[${signed(c.delta.low)}, ${signed(c.delta.high)}]</span></td>` : '<td class="na">—</td>';
      return (
        `<tr><th scope="row">${h(m.model)}</th><td>${h(col)}</td>${val(c.before, `relabel:${m.model}:${col}:before`)}${val(c.after, `relabel:${m.model}:${col}:after`)}${d}` +
        `<td>${c.flipped}</td><td>${c.added}</td><td>${c.removed}</td><td>${c.no_label_before} / ${c.no_label_after}</td></tr>`
      );
    }),
    `<tr class="avg"><th scope="row">${h(m.model)}</th><td>Avg G-Score</td>${val(m.avg_before, `relabel:${m.model}:avg:before`)}${val(m.avg_after, `relabel:${m.model}:avg:after`)}<td></td><td></td><td></td><td></td><td></td></tr>`,
  ]);
  const fit = (f: import('../analysis/relabel.js').RegressionShift['before']) => (f ? `slope ${f.slope.toFixed(3)}, p = ${formatP(f.p)}, R² = ${f.r2.toFixed(3)}` : 'not fitted (fewer than 3 models)');
  const g = r.regression;
  const conclusion = g.same_conclusion === null ? '' : `<p data-testid="relabel-conclusion">Conclusion at p &lt; 0.05: ${g.same_conclusion ? 'unchanged' : '<strong>changed</strong>'}.</p>`;
  return `<p class="note">G-Scores of the models' answers scored again, as <code>gsr score grounding</code> scores them, against the pseudo-labels (${h(r.before)}) and the reviewed labels (${h(r.after)}). Change: paired bootstrap 95% interval over objects labelled in both; flipped: objects labelled in both whose hit changed; added / removed: objects labelled only after / only before review; no label: objects without a label in each file (not scored).</p>
<table id="relabel"><thead><tr><th>Model</th><th>Column</th><th>Pseudo-labels</th><th>Reviewed</th><th>Change</th><th>Flipped</th><th>Added</th><th>Removed</th><th>No label (before / after)</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
<p>Regression ${h(g.y)} on ${h(g.x)} across ${g.models.length} models: pseudo-labels ${h(fit(g.before))}; reviewed ${h(fit(g.after))}.</p>${leftOutHtml(r.left_out)}${conclusion}`;
}

/** Below this many items a published-beside-measured comparison is flagged: its interval is too wide to say much (our choice). */
export const SMALL_N = 30;

/** Ours beside the paper's published values: one table per paper table and model. */
export function publishedHtml(list: PublishedComparison[]): string {
  const f = (v: number | null) => (v === null ? '—' : v.toFixed(1));
  const tables = list
    .map((c) => {
      const notes = c.cells.some((x) => x.note || (x.n !== null && x.n < SMALL_N));
      const rows = c.cells
        .map((x) => {
          const id = `pub:${c.table}:${c.model}:${x.column}`;
          const inside = x.inside === null ? '—' : x.inside ? 'yes' : 'no';
          const small = x.n !== null && x.n < SMALL_N;
          const note = [small ? `only ${x.n} items: the interval is wide` : '', x.note ?? ''].filter(Boolean).join('; ');
          return (
            `<tr data-testid="${h(id)}" data-ours="${x.ours ?? ''}" data-published="${x.published}" data-inside="${x.inside ?? ''}" data-n="${x.n ?? ''}"${small ? ' class="small-n"' : ''}>` +
            `<th scope="row">${h(x.column)}</th><td class="name">${h(x.ours_name)}</td><td>${x.n ?? '—'}</td>` +
            `<td>${f(x.ours)}${x.low === null ? '' : `<span class="ci">[${f(x.low)}, ${f(x.high)}]</span>`}</td><td>${f(x.published)}</td>` +
            `<td>${x.difference === null ? '—' : (x.difference >= 0 ? '+' : '') + x.difference.toFixed(1)}</td><td>${inside}</td>` +
            (notes ? `<td class="note${small ? ' warn' : ''}">${h(note)}</td>` : '') +
            '</tr>'
          );
        })
        .join('');
      const smallCount = c.cells.filter((x) => x.n !== null && x.n < SMALL_N).length;
      const warn = smallCount ? `<p class="warn" data-testid="pub-small:${h(c.table)}:${h(c.model)}">${smallCount} of ${c.cells.length} values rest on fewer than ${SMALL_N} items: read their differences as noise.</p>` : '';
      return (
        `<h3>${h(c.table)}: ${h(c.model)} <span class="note">as the paper's ${h(c.paper_model)}</span></h3>` +
        '<table class="published"><thead><tr><th>Paper column</th><th>Our column</th><th>n</th><th>Ours (%) [95% interval]</th><th>Published (%)</th>' +
        `<th>Ours − published (points)</th><th>Published inside our interval</th>${notes ? '<th>Note</th>' : ''}</tr></thead><tbody>${rows}</tbody></table>${warn}`
      );
    })
    .join('\n');
  return (
    '<p class="note">Models matched to the paper through the name map (default <code>data/paper/paper-models.json</code>). Table 1: TG CircularEval per split and the Total Average ' +
    '(plain mean of the six splits, as the paper computes it); Table 2: G-Score per split and role and the Avg G-Score (mean of the ten columns); Table 3: DAP CircularEval ' +
    'on Subset B without and with the depth hint (Wilson intervals). Published numbers: data/paper/ (Rajabi and Košecká 2024).</p>' +
    tables
  );
}

/** A fraction as a percentage cell with its raw value (no interval). */
function valueHtml(v: number | null, testId: string): string {
  return v === null ? `<td class="na" data-testid="${h(testId)}">—</td>` : `<td data-testid="${h(testId)}" data-value="${v}">${pct(v)}</td>`;
}

/** What'sUp's own metrics beside CircularEval, and each split's preposition confusion counts. */
export function whatsupTableHtml(t: WhatsupTable): string {
  const rows = t.rows
    .map((r) => {
      const m = r.metrics;
      const id = (k: string) => `wu:${r.model}:${r.split}:${k}`;
      return (
        `<tr><th scope="row">${h(r.model)}</th><td>${h(r.split)}</td><td>${m.passes}</td>${valueHtml(r.circular_eval, id('circular_eval'))}` +
        `${valueHtml(m.individual, id('individual'))}${valueHtml(m.pair, id('pair'))}${valueHtml(m.set, id('set'))}` +
        `${valueHtml(m.circular.individual, id('circ_individual'))}${valueHtml(m.circular.pair, id('circ_pair'))}${valueHtml(m.circular.set, id('circ_set'))}<td>${m.unparsed ?? '—'}</td></tr>`
      );
    })
    .join('\n');
  const table = t.rows.length
    ? '<table id="whatsup"><thead><tr><th rowspan="2">Model</th><th rowspan="2">Split</th><th rowspan="2">Passes</th><th rowspan="2">CircularEval</th>' +
      '<th colspan="3">What\'sUp, one pass (mean over passes)</th><th colspan="3">Every rotation right</th><th rowspan="2">Unparsed</th></tr>' +
      `<tr><th>Individual</th><th>Pair</th><th>Set</th><th>Individual</th><th>Pair</th><th>Set</th></tr></thead><tbody>${rows}</tbody></table>`
    : '';
  const confusion = t.rows
    .filter((r) => r.metrics.confusion)
    .map((r) => {
      const c = r.metrics.confusion!;
      const words = r.metrics.subset === 'A' ? ['on', 'under', 'left', 'right'] : ['front', 'behind', 'left', 'right'];
      const body = words
        .map((g) => `<tr><th scope="row">${g}</th>${[...words, 'none'].map((w) => `<td data-testid="${h(`wuc:${r.model}:${r.split}:${g}:${w}`)}">${c[g]?.[w] ?? 0}</td>`).join('')}</tr>`)
        .join('');
      return `<details><summary>${h(r.model)} · ${h(r.split)}: correct preposition (rows) vs chosen (columns), summed over ${r.metrics.passes} pass(es)</summary><table class="confusion"><thead><tr><th></th>${[...words, 'not read'].map((w) => `<th>${w}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></details>`;
    })
    .join('');
  const missing = t.missing.map((m) => `<p class="note warn">${h(m.model)} ${h(m.split)}: reasoning.json has no What'sUp metrics (scored by an older version); score it again.</p>`).join('');
  return (
    '<p class="note">What\'sUp\'s own metrics, by the rules of its repository\'s <code>evaluate_scores</code>: <b>individual</b> = images answered right; <b>pair</b> = pairs of opposite relations ' +
    '(left/right, on/under or front/behind) of one object pair both right, over half the images; <b>set</b> = all four relations of an object pair right, over a quarter of the images. ' +
    'A pass is one rotation of the prompts (one answer per image); the one-pass figures are averaged over the passes. The last three columns count an image right only when every rotation is ' +
    '(CircularEval\'s rule). Unanswered or unreadable answers are wrong (docs/scoring.md).</p>' +
    table +
    confusion +
    missing
  );
}

/** Our What'sUp metrics among the models What'sUp reported (GSR-Bench Table 1 rows from What'sUp). */
export function whatsupPublishedHtml(list: WhatsupPublished[]): string {
  const f = (v: number | null) => (v === null ? '—' : v.toFixed(1));
  const blocks = list
    .map((b) => {
      const ours = b.ours.map((o) => ({ name: o.model, value: o.individual, ours: o }));
      const all = [...ours, ...b.published.map((p) => ({ name: p.model, value: p.value as number | null, ours: null }))].sort((x, y) => (y.value ?? -1) - (x.value ?? -1));
      const rows = all
        .map((r) =>
          r.ours
            ? `<tr class="ours" data-testid="${h(`wupub:${b.split}:${r.name}`)}" data-value="${r.value ?? ''}"><th scope="row"><b>${h(r.name)}</b> (ours)</th><td><b>${f(r.value)}</b></td><td>${f(r.ours.pair)}</td><td>${f(r.ours.set)}</td></tr>`
            : `<tr><th scope="row">${h(r.name)}</th><td>${f(r.value)}</td><td class="na">—</td><td class="na">—</td></tr>`,
        )
        .join('');
      const chance = b.chance === null ? '' : `<tr><th scope="row">Random chance</th><td>${f(b.chance)}</td><td></td><td></td></tr>`;
      return (
        `<h3>What'sUp ${h(b.split)} <span class="note">(Table 1 column ${h(b.column)})</span></h3>` +
        `<table class="published whatsup"><thead><tr><th>Model</th><th>Individual (%)</th><th>Pair (%)</th><th>Set (%)</th></tr></thead><tbody>${rows}${chance}</tbody></table>`
      );
    })
    .join('\n');
  return (
    blocks +
    (list.length
      ? '<p class="note">What\'sUp\'s models (contrastive and matching VLMs, scored by image-text matching: one pass, no option order) as GSR-Bench Table 1 prints them; ' +
        'only their individual accuracy is there. Ours: the one-pass figures, averaged over the passes.</p>'
      : '')
  );
}

/** Real photos annotated by a detector, against reference boxes (the pipeline's `photos` stage). */
export interface PhotosReport {
  summary: PhotosSummary;
  objects: PhotoObject[];
}

/** The photos with both boxes, and the detector's hit rate; `thumbs` maps an image path to its thumbnail. */
export function photosHtml(p: PhotosReport, thumbs: Map<string, { dataUrl: string; width: number; height: number; id: string }>): string {
  const s = p.summary;
  const rate = (hits: number, n: number) => `${hits} of ${n}${n ? ` (${((100 * hits) / n).toFixed(1)}%)` : ''}`;
  const head =
    (s.note ? `<p class="note" data-testid="photos:note"><b>${h(s.note)}</b></p>` : '') +
    `<table id="photos-hits"><thead><tr><th>Detector</th><th>Photos</th><th>Objects hit (IoU ≥ 0.5)</th><th>Subjects</th><th>Objects</th><th>Mean IoU (found)</th></tr></thead>` +
    `<tbody><tr><th scope="row">${h(s.detector)}</th><td>${s.images}</td><td data-testid="photos:hit-rate" data-value="${s.hit_rate ?? ''}">${rate(s.hits, s.objects)}</td>` +
    `<td>${rate(s.subject.hits, s.subject.objects)}</td><td>${rate(s.object.hits, s.object.objects)}</td><td>${s.mean_iou === null ? '—' : s.mean_iou.toFixed(3)}</td></tr></tbody></table>`;
  const byItem = new Map<string, PhotosReport['objects']>();
  for (const o of p.objects) byItem.set(o.item, [...(byItem.get(o.item) ?? []), o]);
  const css = [...thumbs.values()].map((t) => `.${t.id}{background-image:url(${t.dataUrl});aspect-ratio:${t.width}/${t.height}}`).join('\n');
  const cards = [...byItem.entries()]
    .map(([item, objs]) => {
      const t = thumbs.get(objs[0].image);
      const boxes = t ? objs.map((o) => boxDiv(o.reference, t.width, t.height, 'gt') + (o.detected ? boxDiv(o.detected, t.width, t.height, 'pred') : '')).join('') : '';
      const lines = objs.map((o) => `${h(o.role)} "${h(o.phrase)}": ${o.detected ? `IoU ${o.iou!.toFixed(3)}` : 'not found'} <span class="verdict ${o.hit ? 'hit' : 'miss'}">${o.hit ? 'hit' : 'miss'}</span>`).join('<br>');
      return `<div class="entry" data-testid="photo:${h(item)}">${t ? `<div class="thumb ${t.id}">${boxes}</div>` : '<div class="noimg">no image</div>'}<div class="meta"><b>${h(item)}</b><br>${lines}</div></div>`;
    })
    .join('\n');
  const legend = '<p class="note"><span class="key gt"></span> reference box (drawn by hand) <span class="key pred"></span> detector box</p>';
  return `<style>${css}</style>${head}${legend}<div class="photos" style="display:flex;flex-wrap:wrap;gap:10px">${cards}</div>`;
}
