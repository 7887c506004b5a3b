/**
 * Instruction templates per task family, written for this project (docs/et-plan.md, "Tasks").
 * Slots: {x} {x1} {x2} {b} {d} {y} {a} are class labels ("kitchen table"); {a_x} and the like add
 * an indefinite article ("an apple"); {rel} is the constraint ("on the", "in the", "next to the", "facing the");
 * {to_y} {to_b} {to_d} the put ("into", "onto").
 */
import { GsrError } from '../../util/errors.js';
import type { EtPlanFamily } from './task.js';

export const TEMPLATES: Readonly<Record<EtPlanFamily, readonly string[]>> = {
  navigation: [
    'Find {a_x}.',
    'Go to {a_x}.',
    'Walk over to {a_x}.',
    'Locate {a_x} somewhere in the apartment and stand next to it.',
    'I need you next to {a_x}.',
  ],
  'navigation-spatial': [
    'Find the {x} that is {rel} {a}.',
    'Go to the {x} {rel} {a}.',
    'There is {a_x} {rel} {a}; walk up to it.',
    'Locate the {x} {rel} {a} and stand next to it.',
  ],
  manipulation: [
    'Put {a_x} {to_y} the {y}.',
    'Take {a_x} and place it {to_y} the {y}.',
    'Find {a_x}, pick it up, and put it {to_y} the {y}.',
    'Move {a_x} {to_y} the {y}.',
  ],
  'manipulation-spatial': [
    'Take the {x} {rel} {a} and put it {to_y} the {y}.',
    'Put the {x} that is {rel} {a} {to_y} the {y}.',
    'Find the {x} {rel} {a}, then place it {to_y} the {y}.',
    'Move the {x} {rel} {a} {to_y} the {y}.',
  ],
  temporal: [
    'First put {a_x} {to_b} {a_b}, then put the {b} {to_d} the {d}.',
    'Place {a_x} {to_b} {a_b}. After that, move the {b} {to_d} the {d}.',
    'Put {a_x} {to_b} {a_b}, and only then carry the {b} over and put it {to_d} the {d}.',
    'Step one: {a_x} goes {to_b} {a_b}. Step two: the {b} goes {to_d} the {d}.',
  ],
  'multi-one-arm': [
    'Put {a_x1} and {a_x2} {to_y} the {y}, carrying one thing at a time.',
    'With one hand only, bring {a_x1} and {a_x2} to the {y} and put them {to_y} it.',
    'One object at a time: move {a_x1} and {a_x2} {to_y} the {y}.',
  ],
  'multi-two-arm': [
    'Using both hands, bring {a_x1} and {a_x2} to the {y} and put them {to_y} it.',
    'Pick up {a_x1} and {a_x2}, carry both at once, and put them {to_y} the {y}.',
    'Put {a_x1} and {a_x2} {to_y} the {y}; you may hold one in each hand.',
  ],
};

const article = (label: string) => `${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label}`;

/** The words a relation reads as: the constraint ({rel}) and the put ({to_*}). */
export const RELATION_WORDS = {
  rel: { ON: 'on the', INSIDE: 'in the', CLOSE: 'next to the', FACING: 'facing the' },
  to: { ON: 'onto', INSIDE: 'into' },
} as const;

/**
 * Fills one template. `labels` maps slot letters to class labels; `rel` is the constraint relation;
 * `to` maps put slots (y, b, d) to their relations. A slot the values do not give is an error.
 */
export function fillTemplate(template: string, labels: Record<string, string>, rel?: keyof typeof RELATION_WORDS.rel, to: Record<string, keyof typeof RELATION_WORDS.to> = {}): string {
  return template.replace(/\{(a_)?(to_)?(\w+?)\}/g, (slot, a: string | undefined, t: string | undefined, name: string) => {
    if (t) {
      const r = to[name];
      if (r === undefined) throw new GsrError(`template slot ${slot} has no relation`);
      return RELATION_WORDS.to[r];
    }
    if (name === 'rel') {
      if (rel === undefined) throw new GsrError(`template slot ${slot} has no relation`);
      return RELATION_WORDS.rel[rel];
    }
    const label = labels[name];
    if (label === undefined) throw new GsrError(`template slot ${slot} has no value`);
    return a ? article(label) : label;
  });
}
