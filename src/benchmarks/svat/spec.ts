/**
 * SVAT's fixed vocabulary and file shapes: difficulty settings (phi), Algorithm 1's constants, Table 4's
 * question templates and the words that fill them, shapes, textures, the checking palette, and the
 * item record. docs/svat.md gives each its source: the paper's section, or this toolkit's choice.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';

export const BACKGROUND_SETS = ['I1', 'I2', 'I3', 'I4', 'I5'] as const;
export type BackgroundSet = (typeof BACKGROUND_SETS)[number];
/** `shape` and `tshape` are the paper's C_shape and C_tshape; `objects` is this toolkit's own extra set. */
export const OBJECT_SETS = ['shape', 'tshape', 'objects'] as const;
export type ObjectSet = (typeof OBJECT_SETS)[number];
export const TEXT_MODES = ['none', 'guide'] as const;
export type TextMode = (typeof TEXT_MODES)[number];
/** Foreground objects per image M, the target included. */
export const OBJECT_COUNTS = [1, 3] as const;

/** Algorithm 1: the margin eps around the decision boundary, and tau ~ U[2 eps, 1 - 2 eps]. */
export const EPSILON = 0.05;
export const TAU_RANGE: readonly [number, number] = [2 * EPSILON, 1 - 2 * EPSILON];

/** C_shape (Appendix C). */
export const SHAPES = ['circle', 'pentagon', 'rectangle', 'square', 'triangle'] as const;
export type Shape = (typeof SHAPES)[number];
/** The I3 textures (project-made, procedural); C_tshape fills its shapes with them. */
export const TEXTURES = ['wood', 'grass', 'snow', 'fabric'] as const;
export type Texture = (typeof TEXTURES)[number];

/**
 * The checking palette (the `colours: palette` option): fully saturated hues at least 36 degrees
 * apart, so a colour test (`matchesHue`) tells each from the others and from the backgrounds, whose
 * saturation is then capped at BACKGROUND_MAX_SATURATION.
 */
export const PALETTE: ReadonlyArray<{ name: string; hue: number }> = [
  { name: 'red', hue: 0 },
  { name: 'yellow', hue: 55 },
  { name: 'green', hue: 120 },
  { name: 'cyan', hue: 180 },
  { name: 'blue', hue: 225 },
  { name: 'purple', hue: 275 },
  { name: 'magenta', hue: 315 },
];
export const BACKGROUND_MAX_SATURATION = 0.55;

/** Table 4, its 15 distinct rows in order (the table prints "Are the {fiducial} {description}?" twice). */
export const TABLE4_TEMPLATES = [
  'Is the {fiducial} {description}?',
  'Are the {fiducial} {description}?',
  'Can you see if the {fiducial} is {description}?',
  'Is there a problem with the {fiducial}?',
  'Look at the {fiducial}. Is it {description}?',
  'Find the {fiducial}. Is it {description}?',
  'Can you see the {fiducial}? Is it {description}?',
  'Is the {fiducial} properly positioned?',
  'Is the {fiducial} correctly aligned?',
  'Is the {fiducial} in the correct position?',
  'Can you see if the {fiducial} is in the correct position?',
  'Is the {fiducial} in the right place?',
  'Find the {fiducial}. Is it in the right place?',
  'Can you see the {fiducial}? Is it in the right place?',
  'Is the {fiducial} in the right position?',
] as const;
/** T_none's target-free question (Section 2.3's example). */
export const TARGET_FREE_TEMPLATES = ['Is everything okay?'] as const;
/** The templates each text mode draws from, uniformly: T_guide must name the target. */
export const TEMPLATES: Record<TextMode, readonly string[]> = {
  none: [...TABLE4_TEMPLATES, ...TARGET_FREE_TEMPLATES],
  guide: TABLE4_TEMPLATES,
};

/** {fiducial} under T_none: the word and the paper's examples first (Appendix C), then this toolkit's. */
export const FIDUCIAL_WORDS = ['fiducial', 'marker', 'landmark', 'beacon', 'reference mark', 'indicator', 'reference point', 'tag'] as const;
/** {description}: phrasings of Yes and of No; the paper's examples (Appendix C) first in each. */
export const DESCRIPTIONS = {
  yes: ['aligned', 'in position', 'in place', 'correctly placed', 'where it should be'],
  no: ['out of place', 'misaligned', 'out of position', 'in the wrong place', 'misplaced'],
} as const;

export const ANSWERS = ['yes', 'no'] as const;
export type Answer = (typeof ANSWERS)[number];

const Unit = z.number().min(0).max(1);
const Rgb = z.tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)]);

/** One foreground object of one image: its class, its centre (the pose xi) and how it is drawn. */
export const ObjectSchema = z.strictObject({
  /** The category c: a shape, or a kind of the `objects` set. */
  kind: z.string().min(1),
  /** Centre, as fractions of width and height (xi; may lie near an edge, so the object is clipped). */
  x: Unit,
  y: Unit,
  /** Side of the object's square box, as a fraction of the image's shorter side. */
  size: z.number().positive().max(0.5),
  /** Solid colour (and the sprites' colour). */
  rgb: Rgb.optional(),
  /** The palette colour's name, when drawn from the checking palette. */
  colour: z.string().min(1).optional(),
  /** C_tshape: the I3 texture that fills the shape (drawn from its own seed). */
  texture: z.strictObject({ kind: z.enum(TEXTURES), seed: z.number().int().min(0) }).optional(),
  /** C_tshape under the checking palette: stripes of this second colour over `rgb`. */
  stripe: Rgb.optional(),
});
export type SvatObject = z.infer<typeof ObjectSchema>;

const Shot = z.strictObject({
  image: z.string().min(1),
  answer: z.enum(ANSWERS),
  /** The image's objects; the first is the target (o1), the rest distractors. */
  objects: z.array(ObjectSchema).min(1),
});

export const SvatItemSchema = z.strictObject({
  id: z.string().min(1),
  benchmark: z.literal('svat'),
  task: z.literal('svat'),
  /** phi as `I3/shape/M3/guide`. */
  level: z.string().min(1),
  /** Absent in items.jsonl (generated sets move with their folder); loadItemSet sets it. */
  root: z.string().min(1).optional(),
  phi: z.strictObject({ background: z.enum(BACKGROUND_SETS), objects: z.enum(OBJECT_SETS), m: z.union([z.literal(1), z.literal(3)]), text: z.enum(TEXT_MODES) }),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** What the background is: white, an RGB colour, a texture name, a scene name or a photo path. */
  background: z.string().min(1),
  /** The question shared by every image, and how it was made. */
  question: z.string().min(1),
  template: z.string().min(1),
  fiducial: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  /** The target class c*. */
  target: z.string().min(1),
  /**
   * The decision boundary P: `axis` x (a vertical line at x = at) or y (horizontal); `yes` the side
   * that answers yes (Algorithm 1's s: `above` is s = 1, coordinates greater than tau).
   */
  line: z.strictObject({ axis: z.enum(['x', 'y']), at: Unit, yes: z.enum(['below', 'above']) }),
  /** The demonstrations, in prompt order (balanced yes/no). */
  demos: z.array(Shot),
  query: Shot,
});
export type SvatItem = z.infer<typeof SvatItemSchema>;
export type SvatShot = z.infer<typeof Shot>;

export function parseSvatItem(raw: unknown): SvatItem {
  const r = SvatItemSchema.safeParse(raw);
  const id = (raw as { id?: unknown })?.id;
  const fail = (why: string): never => {
    throw new GsrError(`SVAT item ${typeof id === 'string' ? id : '(no id)'}: ${why}`);
  };
  if (!r.success) {
    const issue = r.error.issues[0];
    return fail(`${issue.path.join('.') || '(record)'}: ${issue.message}`);
  }
  for (const [k, shot] of [...r.data.demos, r.data.query].entries()) {
    if (shot.objects.length !== r.data.phi.m) fail(`image ${k + 1} has ${shot.objects.length} objects, but M is ${r.data.phi.m}`);
    if (shot.objects[0].kind !== r.data.target) fail(`image ${k + 1}'s first object is a ${shot.objects[0].kind}, not the target ${r.data.target}`);
  }
  return r.data;
}

/** The answer the decision boundary gives an object centred at (x, y). */
export function lineAnswer(line: SvatItem['line'], centre: { x: number; y: number }): Answer {
  const v = line.axis === 'x' ? centre.x : centre.y;
  return (v < line.at) === (line.yes === 'below') ? 'yes' : 'no';
}

export const phiLevel = (p: SvatItem['phi']) => `${p.background}/${p.objects}/M${p.m}/${p.text}`;

/** I5's rendered stand-ins are named `rendered-K` (a photograph is named by its file path, with its extension). */
export const PHOTO_STAND_IN = 'rendered';

const STAND_IN_NAME = new RegExp(`^${PHOTO_STAND_IN}-\\d+$`);

/** The caveat of a set whose I5 items show rendered stand-ins (none when no item does; docs/svat.md, "The rules and where each comes from", I5). */
export function svatNotes(items: Iterable<SvatItem>): string[] {
  let n = 0;
  for (const i of items) if (i.phi.background === 'I5' && STAND_IN_NAME.test(i.background)) n++;
  if (n === 0) return [];
  return [`SVAT I5 (photographs): ${n} items show rendered scenes standing in for photographs, as no photos folder was given (--photos DIR; GSR_PHOTOS_ROOT for pipelines/svat.yaml); their I5 figures are not figures on photographs`];
}
