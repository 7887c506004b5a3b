/**
 * One SVAT item (pure): draws the hidden line, the target's look, the distractors, the question and
 * the target's place in each demonstration and in the query, then renders any of its images. The
 * target's whole box lies on one side of the line, at least LINE_MARGIN away, so the label is the
 * side of the box's centre and of every target pixel alike.
 */
import type { Rng } from '../../util/random.js';
import { blank, drawShape, drawSprite, halfExtents, hsvBytes, hueShare, texture, type Raster, type Rgb } from './raster.js';
import { FIDUCIAL_WORDS, PALETTE, QUESTION_TEMPLATES, SHAPES, TEXTURES, BACKGROUND_MAX_SATURATION, lineAnswer, phiLevel, type Answer, type Look, type Shape, type SvatItem } from './spec.js';
import { objectSprite, SPRITE_KINDS } from './sprites.js';

/** Gap between the target's box and the hidden line, as a fraction of the image. */
export const LINE_MARGIN = 0.02;
/** Target and distractor sizes (fraction of the shorter side). */
export const SIZE_RANGE: [number, number] = [0.1, 0.18];
/** A photo or scene whose pixels have the target's hue beyond this share is not used with it. */
const MAX_BACKGROUND_HUE_SHARE = 0.0005;

export interface Backgrounds {
  /** I4: synthetic room scenes; I5: photographs (decoded at the item size), with names. */
  I4: ReadonlyArray<{ name: string; raster: Raster }>;
  I5: ReadonlyArray<{ name: string; raster: Raster }>;
}

export interface EpisodeSettings {
  phi: SvatItem['phi'];
  shots: number;
  width: number;
  height: number;
  id: string;
  /** The query's answer (the caller balances them over the item set). */
  answer: Answer;
}

type Draft = Omit<SvatItem, 'demos' | 'query'> & { demos: Array<Omit<SvatItem['query'], 'image'>>; query: Omit<SvatItem['query'], 'image'> };

const look = (kind: string, p: (typeof PALETTE)[number], size: number): Look => ({ kind, colour: p.name, rgb: hsvBytes(p.hue, 1, 0.95), size });

function shuffle<T>(xs: T[], rng: Rng): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

interface Box { x: number; y: number; hx: number; hy: number }
const overlaps = (a: Box, b: Box) => Math.abs(a.x - b.x) < a.hx + b.hx && Math.abs(a.y - b.y) < a.hy + b.hy;

/** The target's centre on the side of the line that gives `answer`, avoiding the distractors when it can. */
function placeTarget(rng: Rng, line: SvatItem['line'], answer: Answer, hx: number, hy: number, others: Box[]): { x: number; y: number } {
  const below = (answer === 'yes') === (line.yes === 'below');
  const [ha, hb] = line.axis === 'x' ? [hx, hy] : [hy, hx];
  const [lo, hi] = below ? [ha, line.at - ha - LINE_MARGIN] : [line.at + ha + LINE_MARGIN, 1 - ha];
  let best = { x: 0, y: 0 };
  for (let attempt = 0; attempt < 30; attempt++) {
    const a = rng.uniform(lo, hi);
    const b = rng.uniform(hb, 1 - hb);
    best = line.axis === 'x' ? { x: a, y: b } : { x: b, y: a };
    if (!others.some((o) => overlaps(o, { ...best, hx, hy }))) break;
  }
  return best;
}

const usable = new WeakMap<Raster, Array<(typeof PALETTE)[number]>>();
/** Palette colours a photo or scene does not already show (memoised: the pools are fixed). */
function usableColours(bg: Raster): Array<(typeof PALETTE)[number]> {
  let cs = usable.get(bg);
  if (cs === undefined) usable.set(bg, (cs = PALETTE.filter((p) => hueShare(bg, p.hue) <= MAX_BACKGROUND_HUE_SHARE)));
  return cs;
}

/** Draws one item; the caller adds image paths. */
export function sampleEpisode(rng: Rng, s: EpisodeSettings, backgrounds: Backgrounds): Draft & { backgroundRaster: Raster } {
  const { phi, width, height } = s;
  if (s.shots % 2 !== 0) throw new RangeError('shots must be even (balanced yes/no demonstrations)');
  // Background first: photos and scenes rule out target colours they already contain.
  let bg: Raster;
  let background: string;
  let colours = [...PALETTE];
  if (phi.background === 'I1') {
    bg = blank(width, height);
    background = 'white';
  } else if (phi.background === 'I2') {
    const c = hsvBytes(rng.uniform(0, 360), rng.uniform(0, BACKGROUND_MAX_SATURATION), rng.uniform(0.3, 1));
    bg = blank(width, height, c);
    background = `rgb(${c.join(',')})`;
  } else if (phi.background === 'I3') {
    const kind = rng.pick(TEXTURES);
    bg = texture(kind, width, height, rng);
    background = kind;
  } else {
    const pool = backgrounds[phi.background];
    if (pool.length === 0) throw new RangeError(`background set ${phi.background} has no pictures`);
    const pick = rng.pick(pool);
    bg = pick.raster;
    background = pick.name;
    colours = usableColours(bg);
    if (colours.length === 0) throw new RangeError(`background ${pick.name} has every object colour in it`);
  }
  const kinds = phi.objects === 'objects' ? SPRITE_KINDS : SHAPES;
  const targetColour = rng.pick(colours);
  const target = look(rng.pick(kinds), targetColour, rng.uniform(...SIZE_RANGE));
  const line: SvatItem['line'] = { axis: rng.chance(0.5) ? 'x' : 'y', at: rng.uniform(0.3, 0.7), yes: rng.chance(0.5) ? 'below' : 'above' };
  const otherColours = PALETTE.filter((p) => p !== targetColour);
  const otherKinds = kinds.filter((k) => k !== target.kind);
  const distractors: SvatItem['distractors'] = [];
  const boxes: Box[] = [];
  for (let k = 1; k < phi.m; k++) {
    const d = look(rng.pick(otherKinds), rng.pick(otherColours), rng.uniform(...SIZE_RANGE));
    const { hx, hy } = halfExtents(d.size, width, height);
    let box: Box = { x: 0.5, y: 0.5, hx, hy };
    for (let attempt = 0; attempt < 30; attempt++) {
      box = { x: rng.uniform(hx, 1 - hx), y: rng.uniform(hy, 1 - hy), hx, hy };
      if (!boxes.some((o) => overlaps(o, box))) break;
    }
    boxes.push(box);
    distractors.push({ ...d, x: box.x, y: box.y });
  }
  const template = rng.int(0, QUESTION_TEMPLATES.length - 1);
  const word = phi.text === 'guide' ? target.kind : rng.pick(FIDUCIAL_WORDS);
  const question = QUESTION_TEMPLATES[template].replace('{target}', word);
  const { hx, hy } = halfExtents(target.size, width, height);
  const answers = shuffle([...Array<Answer>(s.shots / 2).fill('yes'), ...Array<Answer>(s.shots / 2).fill('no')], rng);
  const shot = (answer: Answer) => {
    const c = placeTarget(rng, line, answer, hx, hy, boxes);
    const centre = { x: c.x, y: c.y };
    if (lineAnswer(line, centre) !== answer) throw new Error('internal: target placed on the wrong side');
    return { answer, target: centre };
  };
  const demos = answers.map(shot);
  const query = shot(s.answer);
  return {
    id: s.id, benchmark: 'svat', task: 'svat', level: phiLevel(phi), phi, width, height, background, question, template,
    target, line, distractors, demos, query, backgroundRaster: bg,
  };
}

function drawLook(r: Raster, l: Look, objects: SvatItem['phi']['objects'], x: number, y: number): void {
  if (objects === 'objects') {
    drawSprite(r, objectSprite(l.kind, l.rgb as Rgb), x, y, l.size);
    return;
  }
  const hue = PALETTE.find((p) => p.name === l.colour)!.hue;
  drawShape(r, l.kind as Shape, x, y, l.size, l.rgb as Rgb, objects === 'tshape' ? hsvBytes(hue, 1, 0.55) : undefined);
}

/** One image of the item: the background, the distractors, then the target (on top) at `centre`. */
export function renderShot(item: Pick<SvatItem, 'phi' | 'target' | 'distractors'>, background: Raster, centre: { x: number; y: number }): Raster {
  const r: Raster = { width: background.width, height: background.height, rgb: background.rgb.slice() };
  for (const d of item.distractors) drawLook(r, d, item.phi.objects, d.x, d.y);
  drawLook(r, item.target, item.phi.objects, centre.x, centre.y);
  return r;
}
