/**
 * The review page: a static HTML shell and its script. The script is src/review/client/app.ts,
 * compiled to dist/review/client/app.js by `npm run build` (run by `npm ci`); from a source checkout
 * without a build it is transpiled once at start with the TypeScript compiler.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { GsrError } from '../util/errors.js';

let cached: string | null = null;

/** The compiled page script. */
export async function clientScript(): Promise<string> {
  if (cached !== null) return cached;
  const built = fileURLToPath(new URL('./client/app.js', import.meta.url));
  if (existsSync(built)) return (cached = await readFile(built, 'utf8'));
  const source = fileURLToPath(new URL('./client/app.ts', import.meta.url));
  if (!existsSync(source)) throw new GsrError(`the review page script is missing (${built}): run npm run build`);
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    throw new GsrError(`the review page script is not built (${built}): run npm run build`);
  }
  const out = ts.transpileModule(await readFile(source, 'utf8'), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None } });
  return (cached = out.outputText);
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222;background:#f4f4f2}
header{display:flex;gap:1em;align-items:baseline;padding:.5em 1em;background:#263238;color:#eee}
header h1{font-size:1.1em;margin:0}header .file{color:#9ab;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:40vw}
#status{margin-left:auto;font-size:13px}#status.error{color:#ff8a80;font-weight:600}#status.busy{color:#ffd180}
#layout{display:grid;grid-template-columns:300px minmax(0,1fr);height:calc(100vh - 40px)}
aside{border-right:1px solid #ccc;background:#fff;display:flex;flex-direction:column;min-height:0}
.filters{display:grid;grid-template-columns:1fr 1fr;gap:4px;padding:6px;border-bottom:1px solid #ddd}
.filters label{font-size:11px;color:#555;display:flex;flex-direction:column}
#shown{padding:2px 8px;font-size:12px;color:#555}
#queue{list-style:none;margin:0;padding:0;overflow-y:auto;flex:1}
#queue li{padding:5px 8px;border-bottom:1px solid #eee;cursor:pointer}
#queue li:hover{background:#f0f6ff}#queue li.current{background:#dbeafe;border-left:4px solid #1d4ed8}
#queue .head{display:flex;gap:4px;align-items:baseline}#queue .rank{color:#888;font-size:11px;min-width:2.5em}
#queue .phrase{font-weight:600}#queue .role{color:#666;font-size:12px}
.badge{margin-left:auto;font-size:11px;padding:0 5px;border-radius:8px;background:#e5e7eb}
.state-accepted .badge,.badge.state-accepted{background:#bbf7d0}.state-rejected .badge,.badge.state-rejected{background:#fecaca}.state-edited .badge,.badge.state-edited{background:#fde68a}
#queue .bar{height:4px;background:#eee;margin:3px 0}#queue .bar span{display:block;height:4px;background:#dc2626}
#queue .why{font-size:12px;color:#444}#queue .itemid{font-size:11px;color:#888}
main{padding:10px 14px;overflow:auto;min-height:0}
#title{font-size:1.15em;margin-bottom:4px}#title #phrase{font-weight:700}#title #role{color:#555;margin-left:.4em}
#caption-line{color:#333;margin-bottom:8px}#caption{font-style:italic}
#work{display:flex;gap:14px;align-items:flex-start}
#stage{position:relative;display:inline-block;line-height:0;background:#000;flex:none}
/* The photo takes what the queue (300), main's padding (28), the gap (14), the panel (260) and a scrollbar leave: from 1280 px up the panel is never pushed out. */
#photo{max-width:min(calc(100vw - 620px),960px);max-height:70vh;display:block;user-select:none}
#mask,#overlay{position:absolute;left:0;top:0;width:100%;height:100%}
#mask{pointer-events:none}
#overlay rect{fill:none;vector-effect:non-scaling-stroke}
#overlay .current{stroke:#22c55e;stroke-width:3}
#overlay .model{stroke:#fff;stroke-width:2;stroke-dasharray:6 4}
#overlay .other{stroke:#60a5fa;stroke-width:1.5}
#overlay .runner{stroke:#f472b6;stroke-width:1.5;stroke-dasharray:2 3}
#overlay .handle{fill:#fff;stroke:#166534;stroke-width:1.5;cursor:pointer}
#overlay .h-nw,#overlay .h-se{cursor:nwse-resize}#overlay .h-ne,#overlay .h-sw{cursor:nesw-resize}
#overlay .h-n,#overlay .h-s{cursor:ns-resize}#overlay .h-e,#overlay .h-w{cursor:ew-resize}
#overlay.drawing{cursor:crosshair}
#panel{flex:1 1 260px;min-width:240px;max-width:360px}
#panel h2{font-size:13px;margin:8px 0 4px;color:#444;text-transform:uppercase;letter-spacing:.04em}
#reasons{margin:0;padding-left:1.2em;color:#991b1b}#reasons .quiet{color:#666}
dl#info{display:grid;grid-template-columns:auto 1fr;gap:2px 8px;margin:0;font-size:13px}dl#info dt{color:#666}dl#info dd{margin:0}
#note{white-space:pre-wrap;background:#fffbe6;padding:2px 4px;min-height:1em}
#actions{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0}
#actions button{font:inherit;padding:4px 10px;border:1px solid #999;border-radius:4px;background:#fff;cursor:pointer}
#actions button:disabled{opacity:.45;cursor:default}
#actions kbd{margin-left:6px;font-size:11px;border:1px solid #bbb;border-radius:3px;padding:0 4px;background:#f3f3f3}
#btn-accept{border-color:#15803d!important}#btn-reject{border-color:#b91c1c!important}
table#keys{font-size:12px;border-collapse:collapse}table#keys td{padding:1px 8px 1px 0}table#keys td:first-child{font-family:monospace}
.legend span{margin-right:10px;font-size:12px}.legend i{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:3px}
`;

const BODY = `
<header><h1>gsr review</h1><span class="file" id="file"></span><span id="reviewer"></span><span id="status" role="status" data-testid="status"></span></header>
<div id="layout">
<aside>
<div class="filters">
<label>split<select id="filter-split" data-filter="split"><option value="">all</option></select></label>
<label>noun<select id="filter-noun" data-filter="noun"><option value="">all</option></select></label>
<label>reason<select id="filter-reason" data-filter="reason"><option value="">all</option></select></label>
<label>review state<select id="filter-state" data-filter="state"><option value="">all</option></select></label>
</div>
<div id="shown"></div>
<ol id="queue" data-testid="queue"></ol>
</aside>
<main>
<div id="title"><span id="phrase" data-testid="phrase"></span><span id="role"></span> <span id="state" class="badge" data-testid="state"></span></div>
<div id="caption-line">caption: <span id="caption" data-testid="caption"></span> · <span id="item"></span></div>
<div id="work">
<div id="stage"><img id="photo" alt="image under review" draggable="false"><img id="mask" alt="" hidden data-testid="mask"><svg id="overlay" data-testid="overlay" preserveAspectRatio="none"></svg></div>
<div id="panel">
<h2>Why this label is here</h2><ul id="reasons" data-testid="reasons"></ul>
<h2>Label</h2><dl id="info"></dl>
<div>box: <span id="box-readout" data-testid="box-readout"></span></div>
<div id="segmenter"></div>
<h2>Note</h2><div id="note" data-testid="note"></div>
<div class="legend"><span><i style="background:#22c55e"></i>current box</span><span><i style="background:#fff;border:1px dashed #333"></i>model box</span><span><i style="background:#60a5fa"></i>other object</span><span><i style="background:#f472b6"></i>runner-up</span></div>
</div>
</div>
<div id="actions"></div>
<h2 style="font-size:13px;color:#444">Keyboard</h2>
<table id="keys" data-testid="keys"></table>
</main>
</div>
`;

/** The page with its Content-Security-Policy (the script is allowed by its hash only). */
export function pageHtml(script: string): { html: string; csp: string } {
  const hash = createHash('sha256').update(script).digest('base64');
  const csp = `default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>gsr review</title><meta name="viewport" content="width=device-width"><style>${CSS}</style></head><body>${BODY}<script>${script}</script></body></html>`;
  return { html, csp };
}
