import { createHash } from 'node:crypto';
import { escapeHtml as h } from './escape.js';

/** Filters the gallery by the selects' values; the only script on the page. */
const FILTER_SCRIPT = `
(function () {
  var selects = Array.prototype.slice.call(document.querySelectorAll('select[data-filter]'));
  var entries = Array.prototype.slice.call(document.querySelectorAll('#gallery .entry'));
  var shown = document.getElementById('shown');
  function apply() {
    var n = 0;
    entries.forEach(function (e) {
      var ok = selects.every(function (s) { return s.value === '' || e.getAttribute('data-' + s.getAttribute('data-filter')) === s.value; });
      e.hidden = !ok;
      if (ok) n++;
    });
    if (shown) shown.textContent = n + ' of ' + entries.length + ' shown';
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
})();
`;

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:right}th[scope=row]{text-align:left}
td.na{color:#999;text-align:center}.ci{display:block;color:#777;font-size:11px}
.note{color:#555;font-size:12px}.warn{color:#a40}
.filters label{margin-right:1em}#shown{color:#555}
#gallery{display:flex;flex-wrap:wrap;gap:10px;margin-top:.5em}
.entry{width:300px;border:1px solid #ddd;padding:6px;overflow:hidden}
.thumb{position:relative;width:100%;background-size:100% 100%}
.noimg{color:#999;font-size:12px}
.mask{position:absolute;inset:0;background-size:100% 100%}
.key.maskkey{background:rgba(0,200,0,.45);border-color:transparent}
.box{position:absolute;box-sizing:border-box;border:2px solid}.box.gt{border-color:#2a2}.box.pred{border-color:#e22;border-style:dashed}
.key{display:inline-block;width:14px;height:10px;border:2px solid;margin:0 4px}.key.gt{border-color:#2a2}.key.pred{border-color:#e22;border-style:dashed}
.answer{border-top:1px solid #eee;margin-top:4px}.output{white-space:pre-wrap;word-break:break-all;max-height:8em;overflow:auto;background:#f6f6f6;font-size:12px;margin:4px 0}
.verdict{padding:0 4px;border-radius:3px;color:#fff}.verdict.hit,.verdict.correct{background:#2a2}.verdict.miss,.verdict.wrong{background:#c33}.verdict.unparsed,.verdict.missing,.verdict.no-label{background:#888}
.plot{display:inline-block;max-width:100%}.plot svg{max-width:100%;height:auto}
`;

export interface PageSection {
  id: string;
  title: string;
  html: string;
}

/**
 * Vega numbers the clip paths of its SVGs with one counter per process, so the same page drawn twice
 * in one process (a library caller, a resumed pipeline) would differ: they are numbered again here, in
 * order of appearance, which keeps them unique within the page.
 */
function renumberClips(html: string): string {
  const ids = new Map<string, number>();
  return html.replace(/(id="|url\(#)clip(\d+)(?=[")])/g, (_, lead: string, n: string) => {
    if (!ids.has(n)) ids.set(n, ids.size + 1);
    return `${lead}clip${ids.get(n)}`;
  });
}

/**
 * A self-contained page: inline CSS, one inline script allowed by its hash, images as data URLs.
 * The Content-Security-Policy forbids every network request, so the page works offline and an
 * output that slipped past escaping could still not run or fetch anything.
 */
export function renderPage(title: string, sections: PageSection[], warnings: string[], generated: string, note = 'Accuracies in %; brackets are 95% percentile bootstrap intervals over items.'): string {
  const scriptHash = createHash('sha256').update(FILTER_SCRIPT).digest('base64');
  const csp = `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'`;
  const toc = sections.map((s) => `<a href="#sec-${h(s.id)}">${h(s.title)}</a>`).join(' · ');
  const warn = warnings.length ? `<details class="warn"><summary>${warnings.length} warning(s) while reading results</summary><ul>${warnings.map((w) => `<li>${h(w)}</li>`).join('')}</ul></details>` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${h(title)}</title><style>${CSS}</style></head>
<body><h1>${h(title)}</h1><p class="note">Generated ${h(generated)}. ${h(note)}</p>
<nav>${toc}</nav>${warn}
${renumberClips(sections.map((s) => `<section id="sec-${h(s.id)}"><h2>${h(s.title)}</h2>${s.html}</section>`).join('\n'))}
<script>${FILTER_SCRIPT}</script>
</body></html>
`;
}
