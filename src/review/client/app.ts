/**
 * The review page's script (browser, no imports). Every text from the server is set with
 * textContent, never parsed as markup, so labels and notes a reviewer typed show as typed.
 */
type Box = [number, number, number, number];
interface Reason { kind: string; weight: number; text: string }
interface Entry { key: string; rank: number; item: string; role: string; phrase: string; split: string; suspicion: number; reasons: Reason[]; state: string }
interface Label { key: string; box: Box | null; state: string; absent: boolean; wrong_instance: boolean; box_changed: boolean; mask: { source: string; score: number } | null; note: string | null; reviewer: string | null; time: string | null; undoable: number; version: string; segmenter: string | null }
interface Detail {
  key: string; item: string; role: string; phrase: string; split: string; width: number; height: number; caption: string; relation: string;
  model: { box: Box; score: number; runners_up: Array<{ box: Box; score: number }> } | null;
  other: { role: string; phrase: string; box: Box | null } | null;
  suspicion: number; reasons: Reason[]; label: Label;
}
interface SessionInfo { reviewer: string; annotations: string; total: number; splits: string[]; nouns: string[]; reasons: string[]; states: string[]; segmenter: string | null }

const SVG = 'http://www.w3.org/2000/svg';
const token = new URLSearchParams(location.search).get('token');
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let entries: Entry[] = [];
let current: Detail | null = null;
let draft: Box | null = null;
let drawing = false;
let busy = false;

function withToken(url: string): string {
  return token ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : url;
}

async function api<T>(url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers['x-gsr-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Error('cannot reach the review server (is gsr review still running?)');
  }
  const json = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as T & { error?: string };
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

/** Runs a page action whose failure (a stopped server, say) belongs in the status line, not the console. */
function attempt(action: Promise<unknown>): void {
  action.catch((err) => showStatus(`not loaded: ${(err as Error).message}`, 'error'));
}

function showStatus(text: string, kind: 'ok' | 'error' | 'busy' = 'ok'): void {
  const el = $('status');
  el.textContent = text;
  el.className = kind;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function fillSelect(id: string, values: string[]): void {
  const s = $<HTMLSelectElement>(id);
  for (const v of values) {
    const o = el('option', v);
    o.value = v;
    s.appendChild(o);
  }
  s.addEventListener('change', () => attempt(loadQueue()));
}

async function loadQueue(keep = true): Promise<void> {
  const params = new URLSearchParams();
  for (const f of ['split', 'noun', 'reason', 'state']) {
    const v = $<HTMLSelectElement>(`filter-${f}`).value;
    if (v) params.set(f, v);
  }
  const q = await api<{ entries: Entry[]; total: number }>(`/api/queue?${params}`);
  entries = q.entries;
  const list = $('queue');
  list.replaceChildren();
  for (const e of entries) {
    const li = el('li', undefined, `entry state-${e.state}`);
    li.dataset.key = e.key;
    
    li.setAttribute('data-testid', 'queue-entry');
    li.setAttribute('data-key', e.key);
    const head = el('div', undefined, 'head');
    head.append(el('span', `#${e.rank}`, 'rank'), el('span', e.phrase, 'phrase'), el('span', ` (${e.role})`, 'role'), el('span', e.state, 'badge'));
    const bar = el('div', undefined, 'bar');
    const fill = el('span');
    fill.style.width = `${Math.round(100 * e.suspicion)}%`;
    bar.appendChild(fill);
    const why = el('div', e.reasons.length ? e.reasons[0].text : 'no warning sign', 'why');
    const id = el('div', `${e.item} · ${e.split}`, 'itemid');
    li.append(head, bar, why, id);
    li.addEventListener('click', () => attempt(select(e.key)));
    if (current && current.key === e.key) li.classList.add('current');
    list.appendChild(li);
  }
  $('shown').textContent = `${entries.length} of ${q.total} labels`;
  if (!keep || !current) {
    const fromHash = decodeURIComponent(location.hash.slice(1));
    const start = entries.find((e) => e.key === fromHash) ?? entries[0];
    if (start) await select(start.key);
  }
}

function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}

async function select(key: string): Promise<void> {
  const [item, role] = splitKey(key);
  current = await api<Detail>(`/api/slot/${encodeURIComponent(item)}/${role}`);
  draft = null;
  drawing = false;
  history.replaceState(null, '', `${location.pathname}${location.search}#${encodeURIComponent(key)}`);
  for (const li of Array.from(document.querySelectorAll('#queue li'))) li.classList.toggle('current', (li as HTMLElement).dataset.key === key);
  document.querySelector('#queue li.current')?.scrollIntoView({ block: 'nearest' });
  const photo = $<HTMLImageElement>('photo');
  const src = withToken(`/api/image/${encodeURIComponent(item)}`);
  if (photo.getAttribute('src') !== src) photo.src = src;
  render();
}

function render(): void {
  const d = current;
  if (!d) return;
  $('phrase').textContent = d.phrase;
  $('role').textContent = d.role;
  $('item').textContent = `${d.item} · ${d.split}`;
  $('caption').textContent = d.caption;
  $('state').textContent = d.label.state + (d.label.absent ? ' (absent)' : '') + (d.label.wrong_instance ? ' (wrong instance)' : '');
  $('state').className = `badge state-${d.label.state}`;
  const reasons = $('reasons');
  reasons.replaceChildren();
  for (const r of d.reasons) {
    const li = el('li', r.text);
    li.setAttribute('data-kind', r.kind);
    reasons.appendChild(li);
  }
  if (d.reasons.length === 0) reasons.appendChild(el('li', 'no warning sign', 'quiet'));
  const box = draft ?? d.label.box;
  const info = [
    ['suspicion', `${Math.round(100 * d.suspicion)}%`],
    ['detector confidence', d.model ? d.model.score.toFixed(2) : 'not found'],
    ['box (x1, y1, x2, y2)', box ? box.map((v) => v.toFixed(0)).join(', ') : 'none'],
    ['mask', d.label.mask ? `${d.label.mask.source} (score ${d.label.mask.score.toFixed(2)})` : 'none'],
    ['last edit', d.label.reviewer ? `${d.label.reviewer}, ${d.label.time}` : '-'],
  ];
  const dl = $('info');
  dl.replaceChildren();
  for (const [k, v] of info) dl.append(el('dt', k), el('dd', v));
  $('note').textContent = d.label.note ?? '';
  $('box-readout').textContent = box ? box.map((v) => v.toFixed(0)).join(', ') : 'none';
  $('segmenter').textContent = d.label.segmenter ? `segmenter: ${d.label.segmenter}` : 'no segmenter installed: box edits are kept without a new mask';
  $<HTMLButtonElement>('btn-undo').disabled = d.label.undoable === 0;
  const mask = $<HTMLImageElement>('mask');
  if (d.label.mask) {
    const [item, role] = splitKey(d.key);
    mask.src = withToken(`/api/mask/${encodeURIComponent(item)}/${role}?v=${encodeURIComponent(d.label.version)}`);
    mask.hidden = false;
  } else {
    mask.hidden = true;
    mask.removeAttribute('src');
  }
  drawOverlay();
}

function rect(svg: SVGSVGElement, b: Box, cls: string, testid?: string): SVGRectElement {
  const r = document.createElementNS(SVG, 'rect');
  r.setAttribute('x', String(b[0]));
  r.setAttribute('y', String(b[1]));
  r.setAttribute('width', String(Math.max(b[2] - b[0], 0)));
  r.setAttribute('height', String(Math.max(b[3] - b[1], 0)));
  r.setAttribute('class', cls);
  if (testid) r.setAttribute('data-testid', testid);
  svg.appendChild(r);
  return r;
}

const HANDLES: Array<[string, (b: Box) => [number, number]]> = [
  ['nw', (b) => [b[0], b[1]]], ['n', (b) => [(b[0] + b[2]) / 2, b[1]]], ['ne', (b) => [b[2], b[1]]], ['e', (b) => [b[2], (b[1] + b[3]) / 2]],
  ['se', (b) => [b[2], b[3]]], ['s', (b) => [(b[0] + b[2]) / 2, b[3]]], ['sw', (b) => [b[0], b[3]]], ['w', (b) => [b[0], (b[1] + b[3]) / 2]],
];

function drawOverlay(): void {
  const d = current;
  const svg = document.getElementById('overlay') as unknown as SVGSVGElement;
  if (!d) return;
  svg.setAttribute('viewBox', `0 0 ${d.width} ${d.height}`);
  svg.replaceChildren();
  svg.classList.toggle('drawing', drawing);
  // Handles keep a fixed size on screen, whatever the image's scale.
  const shown = svg.getBoundingClientRect().width;
  const perPixel = shown > 0 ? d.width / shown : 1;
  if (d.other?.box) rect(svg, d.other.box, 'other');
  for (const r of d.model?.runners_up ?? []) rect(svg, r.box, 'runner');
  if (d.model && (d.label.box_changed || draft)) rect(svg, d.model.box, 'model', 'model-box');
  const box = draft ?? d.label.box;
  if (!box) return;
  rect(svg, box, 'current', 'current-box');
  const size = 11 * perPixel;
  for (const [name, at] of HANDLES) {
    const [x, y] = at(box);
    const h = rect(svg, [x - size / 2, y - size / 2, x + size / 2, y + size / 2], `handle h-${name}`, `handle-${name}`);
    h.addEventListener('pointerdown', (ev) => startDrag(ev, name));
  }
}

function toImage(ev: PointerEvent): [number, number] {
  const svg = document.getElementById('overlay') as unknown as SVGSVGElement;
  const r = svg.getBoundingClientRect();
  const d = current!;
  const x = ((ev.clientX - r.left) * d.width) / r.width;
  const y = ((ev.clientY - r.top) * d.height) / r.height;
  return [Math.min(Math.max(x, 0), d.width), Math.min(Math.max(y, 0), d.height)];
}

function normalise(b: Box): Box {
  return [Math.min(b[0], b[2]), Math.min(b[1], b[3]), Math.max(b[0], b[2]), Math.max(b[1], b[3])];
}

function startDrag(ev: PointerEvent, handle: string): void {
  if (!current?.label.box || busy) return;
  ev.preventDefault();
  ev.stopPropagation();
  const start = current.label.box;
  const move = (e: PointerEvent) => {
    const [x, y] = toImage(e);
    const b: Box = [...start];
    if (handle.includes('w')) b[0] = x;
    if (handle.includes('e')) b[2] = x;
    if (handle.includes('n')) b[1] = y;
    if (handle.includes('s')) b[3] = y;
    draft = b;
    drawOverlay();
    $('box-readout').textContent = normalise(b).map((v) => v.toFixed(0)).join(', ');
  };
  const up = () => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    const b = draft;
    draft = null;
    if (b) void commitBox(normalise(b));
    else drawOverlay();
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
}

function startDraw(ev: PointerEvent): void {
  if (!drawing || !current || busy) return;
  ev.preventDefault();
  const [x0, y0] = toImage(ev);
  const move = (e: PointerEvent) => {
    const [x, y] = toImage(e);
    draft = normalise([x0, y0, x, y]);
    drawOverlay();
  };
  const up = () => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    const b = draft;
    draft = null;
    drawing = false;
    if (b && b[2] - b[0] >= 2 && b[3] - b[1] >= 2) void commitBox(b);
    else drawOverlay();
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
}

async function send(path: 'edit' | 'segment', body: unknown, what: string): Promise<boolean> {
  if (!current || busy) return false;
  const [item, role] = splitKey(current.key);
  busy = true;
  showStatus(`${what}...`, 'busy');
  try {
    const label = await api<Label>(`/api/slot/${encodeURIComponent(item)}/${role}/${path}`, body);
    current.label = label;
    showStatus(`saved: ${what}`);
    render();
    const li = document.querySelector(`#queue li[data-key="${CSS.escape(current.key)}"]`);
    if (li) {
      li.className = `entry state-${label.state} current`;
      const badge = li.querySelector('.badge');
      if (badge) badge.textContent = label.state;
    }
    return true;
  } catch (err) {
    showStatus(`not saved: ${(err as Error).message}`, 'error');
    render();
    return false;
  } finally {
    busy = false;
  }
}

const commitBox = (box: Box) => send('edit', { kind: 'box', box }, 'box');

function move(step: number): void {
  if (!current) return;
  const i = entries.findIndex((e) => e.key === current!.key);
  const next = entries[Math.min(Math.max(i + step, 0), entries.length - 1)];
  if (next && next.key !== current.key) attempt(select(next.key));
}

async function decide(kind: 'accept' | 'reject' | 'absent'): Promise<void> {
  if (await send('edit', { kind }, kind)) move(1);
}

const ACTIONS: Record<string, { label: string; keys: string[]; run: () => void }> = {
  accept: { label: 'Accept', keys: ['a'], run: () => void decide('accept') },
  reject: { label: 'Reject', keys: ['r'], run: () => void decide('reject') },
  absent: { label: 'Absent', keys: ['x'], run: () => void decide('absent') },
  wrong: {
    label: 'Wrong instance',
    keys: ['w'],
    run: () => void send('edit', { kind: 'wrong-instance' }, 'wrong instance').then((ok) => ok && setDrawing(true)),
  },
  draw: { label: 'Draw box', keys: ['d'], run: () => setDrawing(!drawing) },
  segment: { label: 'Re-segment', keys: ['s'], run: () => void send('segment', {}, 're-segment') },
  undo: { label: 'Undo', keys: ['z', 'u'], run: () => void send('edit', { kind: 'undo' }, 'undo') },
  note: {
    label: 'Note',
    keys: ['n'],
    run: () => {
      const text = window.prompt('Note for this label', current?.label.note ?? '');
      if (text !== null) void send('edit', { kind: 'note', text }, 'note');
    },
  },
  prev: { label: 'Previous', keys: ['k', 'arrowup'], run: () => move(-1) },
  next: { label: 'Next', keys: ['j', 'arrowdown'], run: () => move(1) },
};

function setDrawing(on: boolean): void {
  drawing = on;
  showStatus(on ? 'draw: drag a box on the image' : '');
  drawOverlay();
}

function buildActions(): void {
  const bar = $('actions');
  const keys = $('keys');
  for (const [name, a] of Object.entries(ACTIONS)) {
    const b = el('button', undefined);
    b.id = `btn-${name}`;
    b.type = 'button';
    b.append(el('span', a.label), el('kbd', a.keys[0].replace('arrow', '').toUpperCase()));
    b.addEventListener('click', () => a.run());
    bar.appendChild(b);
    const row = el('tr');
    row.append(el('td', a.keys.map((k) => (k.startsWith('arrow') ? `${k.slice(5)} arrow` : k.toUpperCase())).join(' / ')), el('td', a.label));
    keys.appendChild(row);
  }
  const row = el('tr');
  row.append(el('td', 'drag a corner or edge'), el('td', 'Resize the box'));
  keys.appendChild(row);
  window.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (ev.altKey || ev.metaKey) return;
    const key = ev.key.toLowerCase();
    if (ev.ctrlKey && key !== 'z') return;
    if (key === 'escape' && drawing) return setDrawing(false);
    for (const a of Object.values(ACTIONS)) {
      if (a.keys.includes(key)) {
        ev.preventDefault();
        a.run();
        return;
      }
    }
  });
}

async function main(): Promise<void> {
  const info = await api<SessionInfo>('/api/session');
  $('reviewer').textContent = `reviewer: ${info.reviewer}`;
  $('file').textContent = info.annotations;
  fillSelect('filter-split', info.splits);
  fillSelect('filter-noun', info.nouns);
  fillSelect('filter-reason', info.reasons);
  fillSelect('filter-state', info.states);
  buildActions();
  $('photo').addEventListener('load', drawOverlay);
  (document.getElementById('overlay') as unknown as SVGSVGElement).addEventListener('pointerdown', startDraw);
  await loadQueue(false);
}

main().catch((err) => showStatus(`cannot load the review: ${(err as Error).message}`, 'error'));
