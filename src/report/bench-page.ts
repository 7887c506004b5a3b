/** The report page of a benchmark plug-in: its tables and sections on the shared self-contained page. */
import { escapeHtml as h } from './escape.js';
import { renderPage, type PageSection } from './page.js';

/** A table for the report: header and rows of text or numbers (null prints as a dash). */
export interface ReportTable {
  id: string;
  title: string;
  columns: string[];
  rows: Array<Array<string | number | null>>;
  note?: string;
}

/** A report section: a heading and trusted HTML (whoever builds it escapes what it inserts). */
export type ReportSection = PageSection;

export function tableHtml(t: ReportTable): string {
  const head = `<tr>${t.columns.map((c) => `<th scope="col">${h(c)}</th>`).join('')}</tr>`;
  const body = t.rows.map((r) => `<tr>${r.map((v, i) => (v === null ? '<td class="na">–</td>' : i === 0 ? `<th scope="row">${h(String(v))}</th>` : `<td>${h(String(v))}</td>`)).join('')}</tr>`).join('\n');
  return `<table id="tbl-${h(t.id)}">${head}\n${body}</table>${t.note ? `<p class="note">${h(t.note)}</p>` : ''}`;
}

/** Plain-text rendering of a table (for the CLI). */
export function tableText(t: ReportTable): string {
  const cells = [t.columns, ...t.rows.map((r) => r.map((v) => (v === null ? '-' : String(v))))];
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [t.title, line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function renderBenchPage(title: string, tables: ReportTable[], sections: ReportSection[], generated: string, note: string, caveats: readonly string[] = []): string {
  const tableSections: PageSection[] = tables.map((t) => ({ id: t.id, title: t.title, html: tableHtml(t) }));
  // Caveats on the item set (Benchmark.notes) come first, before any figure they qualify.
  const first: PageSection[] = caveats.length ? [{ id: 'caveats', title: 'Caveats', html: caveats.map((c) => `<p class="warn">${h(c)}.</p>`).join('') }] : [];
  return renderPage(title, [...first, ...tableSections, ...sections], [], generated, note);
}
