import { z } from 'zod';
import { GsrError } from '../util/errors.js';

/**
 * Prompt templates. Placeholders are `{name}`; unknown placeholders are an error so that a typo in an
 * override file is caught when prompts are built, not after a paid run.
 */
export interface Templates {
  /** Multiple choice: `{options}` is the lettered list built from `mc_option`. */
  mc: string;
  /** One MC option line: `{letter}`, `{caption}`. */
  mc_option: string;
  /** Template-based generation: `{options}` is the list built from `tg_option`. */
  tg: string;
  /** One TG option line: `{caption}`, `{index}` (1-based). */
  tg_option: string;
  /** Grounding: `{object}` is the noun. */
  grounding: string;
  /** Depth-augmented: `{hint}` and `{prompt}` (the rendered TG or MC prompt). */
  dap: string;
  /** Depth hint for metric depth: `{subject}`, `{object}`, `{subject_depth}`, `{object_depth}`, `{unit}`, `{larger}`. */
  dap_hint_metric: string;
  /** Depth hint for relative depth (no physical unit). Same placeholders. */
  dap_hint_relative: string;
}

export const DEFAULT_TEMPLATES: Templates = {
  mc: 'Which caption describes the image correctly?\n{options}\nAnswer with the letter of the correct option only.',
  mc_option: '{letter}. {caption}',
  tg: 'Write the caption that describes the image correctly. It must be one of these:\n{options}\nAnswer with the caption only.',
  tg_option: '- {caption}',
  grounding: 'Give me the bounding box coordinates for the {object}.',
  dap: '{hint}\n{prompt}',
  dap_hint_metric:
    'Depth hint: the {subject} is {subject_depth} {unit} from the camera and the {object} is {object_depth} {unit} from the camera (larger values are {larger}).',
  dap_hint_relative:
    'Depth hint: the relative depth of the {subject} is {subject_depth} and that of the {object} is {object_depth} (unitless {unit} values; larger values are {larger}).',
};

const PLACEHOLDERS: Record<keyof Templates, string[]> = {
  mc: ['options'],
  mc_option: ['letter', 'caption'],
  tg: ['options'],
  tg_option: ['caption', 'index'],
  grounding: ['object'],
  dap: ['hint', 'prompt'],
  dap_hint_metric: ['subject', 'object', 'subject_depth', 'object_depth', 'unit', 'larger'],
  dap_hint_relative: ['subject', 'object', 'subject_depth', 'object_depth', 'unit', 'larger'],
};

const TemplatesPatch = z.strictObject({
  mc: z.string().min(1).optional(),
  mc_option: z.string().min(1).optional(),
  tg: z.string().min(1).optional(),
  tg_option: z.string().min(1).optional(),
  grounding: z.string().min(1).optional(),
  dap: z.string().min(1).optional(),
  dap_hint_metric: z.string().min(1).optional(),
  dap_hint_relative: z.string().min(1).optional(),
});

/** An override file: top-level templates apply to every model; `models.<name>` overrides per model. */
const TemplateFileSchema = TemplatesPatch.extend({
  models: z.record(z.string(), TemplatesPatch).optional(),
});
export type TemplateFile = z.infer<typeof TemplateFileSchema>;

/**
 * Merges an override file (already parsed from YAML/JSON) over the defaults for one model.
 * `source` names the file in errors.
 */
export function resolveTemplates(file: unknown, model: string | undefined, source: string): Templates {
  const parsed = TemplateFileSchema.safeParse(file ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GsrError(`${source}: invalid template file at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const { models, ...common } = parsed.data;
  if (model !== undefined && models !== undefined && !(model in models)) {
    throw new GsrError(`${source}: no templates for model "${model}" (has: ${Object.keys(models).join(', ') || 'none'})`);
  }
  const merged: Templates = { ...DEFAULT_TEMPLATES, ...common, ...(model !== undefined ? models?.[model] : {}) };
  for (const name of Object.keys(PLACEHOLDERS) as Array<keyof Templates>) checkTemplate(name, merged[name], source);
  return merged;
}

function checkTemplate(name: keyof Templates, text: string, source: string): void {
  const allowed = PLACEHOLDERS[name];
  for (const m of text.matchAll(/\{([a-z_]+)\}/g)) {
    if (!allowed.includes(m[1])) {
      throw new GsrError(`${source}: template "${name}" uses unknown placeholder {${m[1]}} (allowed: ${allowed.join(', ')})`);
    }
  }
}

/** Fills `{name}` placeholders; values are inserted verbatim (no recursive expansion). */
export function fillTemplate(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
