/**
 * One SVAT item (pure), drawn as the paper's Algorithm 1 draws an instance: the decision boundary,
 * the shared background and question, the target class, balanced shuffled labels, then for every
 * example every object's pose and, for distractors, class. Then renders any of its images.
 * docs/svat.md sets out each rule with its source and the options for checking.
 */
import { Rng } from '../../util/random.js';
import { blank, boxPixels, drawShape, drawSprite, halfExtents, hsvBytes, hueShare, texture, type Fill, type Raster, type Rgb } from './raster.js';
import {
  BACKGROUND_MAX_SATURATION, DESCRIPTIONS, EPSILON, FIDUCIAL_WORDS, PALETTE, SHAPES, TAU_RANGE, TEMPLATES, TEXTURES, lineAnswer, phiLevel,
  type Answer, type Shape, type SvatItem, type SvatObject, type SvatShot,
} from './spec.js';
import { objectSprite, SPRITE_KINDS } from './sprites.js';

/** Object sizes (fraction of the shorter side): the paper gives none (our choice). */
export const SIZE_RANGE: [number, number] = [0.1, 0.18];
/** `placement: boxed`: the gap between an object's box and the line, and the line's range (room for a box on each side). */
export const BOXED_MARGIN = 0.02;
export const BOXED_TAU_RANGE: [number, number] = [0.3, 0.7];
/** A photo or scene whose pixels have a palette hue beyond this share is not used with that colour. */
const MAX_BACKGROUND_HUE_SHARE = 0.0005;

export interface Backgrounds {
  /** I4: synthetic room scenes; I5: photographs (decoded at the item size), with names. */
  I4: ReadonlyArray<{ name: string; raster: Raster }>;
  I5: ReadonlyArray<{ name: string; raster: Raster }>;
}

/**
 * How objects are coloured, placed and which reading of Algorithm 1 places the distractors. The
 * defaults are the paper's; `palette` and `boxed` are this toolkit's options for checking labels
 * against pixels (test/benchmarks/svat/labels.test.ts).
 */
export interface DrawOptions {
  /** random: uniform RGB shapes and I2 colours, tshape filled with I3 textures; palette: the checking palette. */
  colours: 'random' | 'palette';
  /** paper: centres uniform over the image (objects may be clipped), margin eps on the centre; boxed: whole boxes inside the image and off the line. */
  placement: 'paper' | 'boxed';
  /** label-side: every object satisfies P(xi) = y, as Algorithm 1's loop is written; anywhere: only the target does. */
  distractor_placement: 'label-side' | 'anywhere';
}
export const PAPER_DRAWING: DrawOptions = { colours: 'random', placement: 'paper', distractor_placement: 'label-side' };
/** The options the label check uses. */
export const CHECK_DRAWING: DrawOptions = { colours: 'palette', placement: 'boxed', distractor_placement: 'label-side' };

export interface EpisodeSettings extends Partial<DrawOptions> {
  phi: SvatItem['phi'];
  shots: number;
  width: number;
  height: number;
  id: string;
  /** The query's answer (the caller balances them over the item set). */
  answer: Answer;
}

type DraftShot = Omit<SvatShot, 'image'>;
type Draft = Omit<SvatItem, 'demos' | 'query'> & { demos: DraftShot[]; query: DraftShot };
type PaletteColour = (typeof PALETTE)[number];

function shuffle<T>(xs: T[], rng: Rng): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

interface Box { x: number; y: number; hx: number; hy: number }
const overlaps = (a: Box, b: Box) => Math.abs(a.x - b.x) < a.hx + b.hx && Math.abs(a.y - b.y) < a.hy + b.hy;

/**
 * A centre on the side of the line that gives `answer` (or anywhere when `answer` is null). Paper:
 * uniform over [0, 1]^2 given that side and |xi_delta - tau| > eps, which is the distribution of
 * Algorithm 1's rejection loop. Boxed: the whole box inside the image and BOXED_MARGIN off the line,
 * away from the image's other boxes when 30 draws allow.
 */
function placeObject(rng: Rng, o: DrawOptions, line: SvatItem['line'], answer: Answer | null, box: { hx: number; hy: number }, others: Box[]): { x: number; y: number } {
  const boxed = o.placement === 'boxed';
  const [ha, hb] = !boxed ? [0, 0] : line.axis === 'x' ? [box.hx, box.hy] : [box.hy, box.hx];
  const gap = boxed ? ha + BOXED_MARGIN : EPSILON;
  const below = answer === null ? null : (answer === 'yes') === (line.yes === 'below');
  const [lo, hi] = below === null ? [ha, 1 - ha] : below ? [ha, line.at - gap] : [line.at + gap, 1 - ha];
  const clear = (a: number) => below === null || Math.abs(a - line.at) > gap;
  let best = { x: 0, y: 0 };
  for (let attempt = 0; attempt < (boxed ? 30 : 1); attempt++) {
    // The margin is strict (|xi - tau| > gap): a draw that rounds onto it is drawn again.
    let a = rng.uniform(lo, hi);
    while (!clear(a)) a = rng.uniform(lo, hi);
    const b = rng.uniform(hb, 1 - hb);
    best = line.axis === 'x' ? { x: a, y: b } : { x: b, y: a };
    if (!others.some((q) => overlaps(q, { ...best, ...box }))) break;
  }
  return best;
}

const usable = new WeakMap<Raster, PaletteColour[]>();
/** Palette colours a photo or scene does not already show (memoised: the pools are fixed). */
function usableColours(bg: Raster): PaletteColour[] {
  let cs = usable.get(bg);
  if (cs === undefined) usable.set(bg, (cs = PALETTE.filter((p) => hueShare(bg, p.hue) <= MAX_BACKGROUND_HUE_SHARE)));
  return cs;
}

const paletteRgb = (p: PaletteColour): Rgb => hsvBytes(p.hue, 1, 0.95);
const randomRgb = (rng: Rng): Rgb => [rng.int(0, 255), rng.int(0, 255), rng.int(0, 255)];

/** How one object is drawn (everything but its centre). */
function look(rng: Rng, o: DrawOptions, objects: SvatItem['phi']['objects'], kind: string, colours: PaletteColour[]): Omit<SvatObject, 'x' | 'y'> {
  const size = rng.uniform(...SIZE_RANGE);
  if (o.colours === 'palette' || objects === 'objects') {
    // The `objects` sprites are rendered once per kind and colour, so they keep to the palette.
    const p = rng.pick(colours);
    const rgb = paletteRgb(p);
    return objects === 'tshape' ? { kind, size, rgb, colour: p.name, stripe: hsvBytes(p.hue, 1, 0.55) } : { kind, size, rgb, colour: p.name };
  }
  if (objects === 'tshape') return { kind, size, texture: { kind: rng.pick(TEXTURES), seed: rng.nextUint32() } };
  return { kind, size, rgb: randomRgb(rng) };
}

function background(rng: Rng, o: DrawOptions, s: EpisodeSettings, backgrounds: Backgrounds): { raster: Raster; name: string; colours: PaletteColour[] } {
  const { width, height } = s;
  switch (s.phi.background) {
    case 'I1': return { raster: blank(width, height), name: 'white', colours: [...PALETTE] };
    case 'I2': {
      const c = o.colours === 'palette' ? hsvBytes(rng.uniform(0, 360), rng.uniform(0, BACKGROUND_MAX_SATURATION), rng.uniform(0.3, 1)) : randomRgb(rng);
      return { raster: blank(width, height, c), name: `rgb(${c.join(',')})`, colours: [...PALETTE] };
    }
    case 'I3': {
      const kind = rng.pick(TEXTURES);
      return { raster: texture(kind, width, height, rng), name: kind, colours: [...PALETTE] };
    }
    default: {
      const pool = backgrounds[s.phi.background];
      if (pool.length === 0) throw new RangeError(`background set ${s.phi.background} has no pictures`);
      const pick = rng.pick(pool);
      if (o.colours !== 'palette') return { raster: pick.raster, name: pick.name, colours: [...PALETTE] };
      // The label check finds the target by its colour: photos and scenes rule out colours they show.
      const colours = usableColours(pick.raster);
      if (colours.length === 0) throw new RangeError(`background ${pick.name} has every object colour in it`);
      return { raster: pick.raster, name: pick.name, colours };
    }
  }
}

/** The question: a template of the text mode, {fiducial} and {description} filled (Appendix C). */
function question(rng: Rng, phi: SvatItem['phi'], target: string): Pick<SvatItem, 'question' | 'template' | 'fiducial' | 'description'> {
  const template = rng.pick(TEMPLATES[phi.text]);
  const fiducial = template.includes('{fiducial}') ? (phi.text === 'guide' ? target : rng.pick(FIDUCIAL_WORDS)) : undefined;
  const description = template.includes('{description}') ? rng.pick([...DESCRIPTIONS.yes, ...DESCRIPTIONS.no]) : undefined;
  const text = template.replace('{fiducial}', fiducial ?? '').replace('{description}', description ?? '');
  return { question: text, template, ...(fiducial ? { fiducial } : {}), ...(description ? { description } : {}) };
}

/** Draws one item; the caller adds image paths. */
export function sampleEpisode(rng: Rng, s: EpisodeSettings, backgrounds: Backgrounds): Draft & { backgroundRaster: Raster } {
  const o: DrawOptions = { colours: s.colours ?? PAPER_DRAWING.colours, placement: s.placement ?? PAPER_DRAWING.placement, distractor_placement: s.distractor_placement ?? PAPER_DRAWING.distractor_placement };
  const { phi, width, height } = s;
  if (s.shots % 2 !== 0) throw new RangeError('shots must be even (balanced yes/no demonstrations)');
  // Lines 5-8: the decision boundary P.
  const line: SvatItem['line'] = { axis: rng.chance(0.5) ? 'x' : 'y', at: rng.uniform(...(o.placement === 'boxed' ? BOXED_TAU_RANGE : TAU_RANGE)), yes: rng.chance(0.5) ? 'below' : 'above' };
  // Line 9: one background for every example.
  const bg = background(rng, o, s, backgrounds);
  // Lines 10-11: the question and the target class.
  const kinds: readonly string[] = phi.objects === 'objects' ? SPRITE_KINDS : SHAPES;
  const target = rng.pick(kinds);
  const q = question(rng, phi, target);
  // Lines 12-14: balanced demonstration labels in random order, then the query's.
  const labels = [...shuffle([...Array<Answer>(s.shots / 2).fill('yes'), ...Array<Answer>(s.shots / 2).fill('no')], rng), s.answer];
  // Lines 16-38: every example draws every object's pose and the distractors' classes afresh.
  const others = kinds.filter((k) => k !== target);
  const shots: DraftShot[] = labels.map((answer) => {
    const boxes: Box[] = [];
    const objects: SvatObject[] = [];
    let targetColour: PaletteColour | undefined;
    for (let k = 0; k < phi.m; k++) {
      const kind = k === 0 ? target : rng.pick(others);
      // Under the palette the target's colour is its own in the image, so the check can find it.
      const colours = k === 0 || targetColour === undefined ? bg.colours : PALETTE.filter((p) => p !== targetColour);
      const l = look(rng, o, phi.objects, kind, colours);
      if (k === 0) targetColour = PALETTE.find((p) => p.name === l.colour);
      const box = halfExtents(l.size, width, height);
      const side = k === 0 || o.distractor_placement === 'label-side' ? answer : null;
      const c = placeObject(rng, o, line, side, box, boxes);
      boxes.push({ ...c, ...box });
      objects.push({ ...l, ...c });
    }
    if (lineAnswer(line, objects[0]) !== answer) throw new Error('internal: target placed on the wrong side');
    return { answer, objects };
  });
  return {
    id: s.id, benchmark: 'svat', task: 'svat', level: phiLevel(phi), phi, width, height, background: bg.name, ...q,
    target, line, demos: shots.slice(0, -1), query: shots[shots.length - 1], backgroundRaster: bg.raster,
  };
}

function drawObject(r: Raster, l: SvatObject, objects: SvatItem['phi']['objects']): void {
  if (objects === 'objects') {
    drawSprite(r, objectSprite(l.kind, l.rgb as Rgb), l.x, l.y, l.size);
    return;
  }
  // A tshape's texture is drawn at its box's size from its own seed, so it does not depend on the image.
  const side = boxPixels(l.size, r.width, r.height);
  const fill: Fill = l.texture ? { texture: texture(l.texture.kind, side, side, new Rng(l.texture.seed)) } : l.stripe ? { rgb: l.rgb as Rgb, stripe: l.stripe as Rgb } : { rgb: l.rgb as Rgb };
  drawShape(r, l.kind as Shape, l.x, l.y, l.size, fill);
}

/** One image: the background, the distractors, then the target on top. */
export function renderShot(item: Pick<SvatItem, 'phi'>, background: Raster, shot: Pick<SvatShot, 'objects'>): Raster {
  const r: Raster = { width: background.width, height: background.height, rgb: background.rgb.slice() };
  for (const d of shot.objects.slice(1)) drawObject(r, d, item.phi.objects);
  drawObject(r, shot.objects[0], item.phi.objects);
  return r;
}
