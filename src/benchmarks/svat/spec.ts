/**
 * SVAT's fixed vocabulary and file shapes: difficulty settings (phi), question templates, target
 * words, shapes, colours, and the item record. docs/svat.md says which of these the paper publishes
 * and which are this toolkit's choices.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';

export const BACKGROUND_SETS = ['I1', 'I2', 'I3', 'I4', 'I5'] as const;
export type BackgroundSet = (typeof BACKGROUND_SETS)[number];
export const OBJECT_SETS = ['shape', 'tshape', 'objects'] as const;
export type ObjectSet = (typeof OBJECT_SETS)[number];
export const TEXT_MODES = ['none', 'guide'] as const;
export type TextMode = (typeof TEXT_MODES)[number];
/** Foreground objects per image, the target included. */
export const OBJECT_COUNTS = [1, 3] as const;

export const SHAPES = ['oval', 'rectangle', 'triangle', 'star', 'cross'] as const;
export type Shape = (typeof SHAPES)[number];
export const TEXTURES = ['wood', 'grass', 'snow', 'fabric'] as const;
export type Texture = (typeof TEXTURES)[number];

/**
 * Object colours: fully saturated hues at least 36 degrees apart, so a colour test
 * (`matchesHue`) tells each from the others and from the backgrounds, whose saturation is capped
 * at BACKGROUND_MAX_SATURATION.
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

/** Words for the target in unguided questions: "fiducial" and synonyms (this toolkit's list). */
export const FIDUCIAL_WORDS = ['fiducial', 'fiducial marker', 'marker', 'reference mark', 'mark', 'indicator', 'reference point', 'landmark', 'tag', 'target'] as const;

/** Thirteen yes/no question templates; `{target}` is the target word. */
export const QUESTION_TEMPLATES = [
  'Is the {target} in the right place?',
  'Is the {target} positioned correctly?',
  'Is the {target} where it should be?',
  'Is the {target} in an acceptable position?',
  'Is the {target} placed correctly?',
  'Is the {target} in the correct location?',
  'Does the {target} look correctly placed?',
  'Is the {target} in a good spot?',
  'Is the {target} located properly?',
  'Is the {target} OK where it is?',
  'Is the {target} in the expected position?',
  'Is the {target} properly positioned?',
  'Is the position of the {target} correct?',
] as const;

export const ANSWERS = ['yes', 'no'] as const;
export type Answer = (typeof ANSWERS)[number];

const Unit = z.number().min(0).max(1);
const Rgb = z.tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)]);

/** An object's look: a shape (plain or textured) or a 3-D kind of the synthetic renderer. */
export const LookSchema = z.strictObject({
  kind: z.string().min(1),
  colour: z.string().min(1),
  rgb: Rgb,
  /** Side of the object's square box, as a fraction of the image's shorter side. */
  size: z.number().positive().max(0.5),
});
export type Look = z.infer<typeof LookSchema>;

const Centre = z.strictObject({ x: Unit, y: Unit });
const Shot = z.strictObject({
  image: z.string().min(1),
  answer: z.enum(ANSWERS),
  /** Centre of the target's box, as fractions of width and height. */
  target: Centre,
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
  /** What the background is: white, an RGB colour, a texture name, a scene index or a photo path. */
  background: z.string().min(1),
  question: z.string().min(1),
  template: z.number().int().min(0).max(QUESTION_TEMPLATES.length - 1),
  target: LookSchema,
  /** The hidden line: `axis` x (vertical line at x = at) or y (horizontal); `yes` the side that answers yes. */
  line: z.strictObject({ axis: z.enum(['x', 'y']), at: Unit, yes: z.enum(['below', 'above']) }),
  /** Distractors: fixed across the item's images. */
  distractors: z.array(LookSchema.extend({ x: Unit, y: Unit })),
  /** The demonstrations, in prompt order (balanced yes/no). */
  demos: z.array(Shot),
  query: Shot,
});
export type SvatItem = z.infer<typeof SvatItemSchema>;
export type SvatShot = z.infer<typeof Shot>;

export function parseSvatItem(raw: unknown): SvatItem {
  const r = SvatItemSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const id = (raw as { id?: unknown })?.id;
  throw new GsrError(`SVAT item ${typeof id === 'string' ? id : '(no id)'}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
}

/** The answer the hidden line gives a target centred at (x, y). */
export function lineAnswer(line: SvatItem['line'], centre: { x: number; y: number }): Answer {
  const v = line.axis === 'x' ? centre.x : centre.y;
  return (v < line.at) === (line.yes === 'below') ? 'yes' : 'no';
}

export const phiLevel = (p: SvatItem['phi']) => `${p.background}/${p.objects}/M${p.m}/${p.text}`;
