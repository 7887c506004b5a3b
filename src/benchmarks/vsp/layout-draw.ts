/**
 * Pictures of the generated VSP-layout sample (layout.ts), drawn as SVG (pure): maze maps and their
 * legend, blocks on a table, the collision grid and the street map. No text is drawn, so the
 * pictures need no fonts; the templates (layout-text.ts) say what each mark is.
 */
import type { Stacks } from './blocks.js';
import type { MazeRows } from './maze.js';

const CELL = 64;

const svg = (w: number, h: number, body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;

/** One maze square at (x, y): ground, then the hole, player or goal mark. */
function mazeCell(x: number, y: number, c: string): string {
  const ground = `<rect x="${x}" y="${y}" width="${CELL}" height="${CELL}" fill="${c === 'H' ? '#1f3b63' : '#cfe3b4'}" stroke="#6b7b5a" stroke-width="2"/>`;
  const cx = x + CELL / 2;
  const cy = y + CELL / 2;
  if (c === 'H') return `${ground}<ellipse cx="${cx}" cy="${cy}" rx="22" ry="14" fill="#0b1626"/>`;
  if (c === 'S') return `${ground}<circle cx="${cx}" cy="${cy - 12}" r="9" fill="#e8772e"/><rect x="${cx - 11}" y="${cy - 2}" width="22" height="24" rx="6" fill="#e8772e"/>`;
  if (c === 'G') {
    const pts = Array.from({ length: 10 }, (_, k) => {
      const r = k % 2 === 0 ? 24 : 10;
      const a = -Math.PI / 2 + (k * Math.PI) / 5;
      return `${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`;
    });
    return `${ground}<polygon points="${pts.join(' ')}" fill="#f2c230" stroke="#9a7410" stroke-width="2"/>`;
  }
  return ground;
}

/** A maze map, 64 pixels per square. */
export function mazeSvg(rows: MazeRows): string {
  const n = rows.length;
  return svg(n * CELL, n * CELL, rows.map((row, r) => [...row].map((c, k) => mazeCell(k * CELL, r * CELL, c)).join('')).join(''));
}

/** The legend: player, hole, safe ground and goal, left to right. */
export function mazeLegendSvg(): string {
  const gap = 32;
  return svg(4 * CELL + 5 * gap, CELL + 2 * gap, `<rect width="100%" height="100%" fill="#ffffff"/>${['S', 'H', 'F', 'G'].map((c, k) => mazeCell(gap + k * (CELL + gap), gap, c)).join('')}`);
}

export const BLOCK_FILL: Record<string, string> = { B: '#2f6fd6', Y: '#f2d22e', P: '#8e44ad', O: '#f08c1a', R: '#d63a2f', G: '#3aa655' };

/** Blocks on a table, stacks left to right, 256 x 256. */
export function blocksSvg(stacks: Stacks): string {
  const size = 36;
  const floor = 214;
  const pitch = 256 / (stacks.length + 1);
  const blocks = stacks.flatMap((s, k) =>
    s.map((c, level) => `<rect x="${(pitch * (k + 1) - size / 2).toFixed(1)}" y="${floor - (level + 1) * size}" width="${size}" height="${size}" fill="${BLOCK_FILL[c]}" stroke="#222222" stroke-width="2"/>`),
  );
  return svg(256, 256, `<rect width="256" height="256" fill="#e9e6df"/><rect y="${floor}" width="256" height="${256 - floor}" fill="#8a6a45"/>${blocks.join('')}`);
}

const CAR = (x: number, y: number) => `<rect x="${x + 8}" y="${y + 18}" width="48" height="24" rx="6" fill="#c0392b"/><rect x="${x + 18}" y="${y + 10}" width="26" height="12" rx="3" fill="#e57366"/><circle cx="${x + 18}" cy="${y + 44}" r="6" fill="#222"/><circle cx="${x + 46}" cy="${y + 44}" r="6" fill="#222"/>`;
const PERSON = (x: number, y: number) => `<circle cx="${x + 32}" cy="${y + 16}" r="8" fill="#2c5aa0"/><rect x="${x + 24}" y="${y + 26}" width="16" height="28" rx="5" fill="#2c5aa0"/>`;
const GOAL = (x: number, y: number) => `<rect x="${x + 14}" y="${y + 14}" width="36" height="36" fill="none" stroke="#1e8449" stroke-width="6"/><path d="M${x + 22} ${y + 22} L${x + 42} ${y + 42} M${x + 42} ${y + 22} L${x + 22} ${y + 42}" stroke="#1e8449" stroke-width="5"/>`;

/** The collision marks, left to right: car, person, goal. */
export function collisionLegendSvg(): string {
  const gap = 32;
  return svg(3 * CELL + 4 * gap, CELL + 2 * gap, `<rect width="100%" height="100%" fill="#ffffff"/>${[CAR, PERSON, GOAL].map((f, k) => f(gap + k * (CELL + gap), gap)).join('')}`);
}

/** A 6 x 6 collision grid (0-based cells [row, column]). */
export function collisionSvg(car: [number, number], person: [number, number], goal: [number, number]): string {
  const cells = [];
  for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) cells.push(`<rect x="${c * CELL}" y="${r * CELL}" width="${CELL}" height="${CELL}" fill="${(r + c) % 2 ? '#d9d9d9' : '#eeeeee'}" stroke="#b0b0b0"/>`);
  const at = (f: (x: number, y: number) => string, [r, c]: [number, number]) => f(c * CELL, r * CELL);
  return svg(6 * CELL, 6 * CELL, `${cells.join('')}${at(GOAL, goal)}${at(CAR, car)}${at(PERSON, person)}`);
}

/** A street grid of `n` x `n` crossings with the start (blue) and goal (red) at [row, column]. */
export function streetSvg(n: number, start: [number, number], goal: [number, number]): string {
  const size = 640;
  const pitch = size / (n + 1);
  const pos = (k: number) => (pitch * (k + 1)).toFixed(1);
  const roads = Array.from({ length: n }, (_, k) => `<rect x="0" y="${(pitch * (k + 1) - 7).toFixed(1)}" width="${size}" height="14" fill="#ffffff"/><rect x="${(pitch * (k + 1) - 7).toFixed(1)}" y="0" width="14" height="${size}" fill="#ffffff"/>`);
  const dot = ([r, c]: [number, number], fill: string) => `<circle cx="${pos(c)}" cy="${pos(r)}" r="16" fill="${fill}" stroke="#ffffff" stroke-width="4"/>`;
  return svg(size, size, `<rect width="${size}" height="${size}" fill="#e8e2cf"/>${roads.join('')}${dot(start, '#1f5fd1')}${dot(goal, '#d62b2b')}`);
}
