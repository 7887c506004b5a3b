import { describe, expect, it } from 'vitest';
import { captionFor, parseCaption } from '../../src/datasets/index.js';
import { RELATIONS } from '../../src/formats/manifest.js';

describe('parseCaption', () => {
  it.each([
    ['A mug on a table', 'mug', 'table', 'on'],
    ['A dog under a table', 'dog', 'table', 'under'],
    ['A mug to the left of a table', 'mug', 'table', 'left'],
    ['A mug to the right of a table', 'mug', 'table', 'right'],
    ['A mug in front of a plate', 'mug', 'plate', 'front'],
    ['A mug in-front of a plate', 'mug', 'plate', 'front'],
    ['A mug behind a plate', 'mug', 'plate', 'behind'],
    ['A dog to the right of a bench', 'dog', 'bench', 'right'],
    ['A boy to the left of a racket.', 'boy', 'racket', 'left'],
    ['A beer bottle on a armchair', 'beer bottle', 'armchair', 'on'],
    ['A toilet paper roll to the left of a wine glass', 'toilet paper roll', 'wine glass', 'left'],
    ['A t-shirt under a coffee table', 't-shirt', 'coffee table', 'under'],
    ['A cup on top of a box', 'cup', 'box', 'on'],
    ['A lamp above a bed', 'lamp', 'bed', 'above'],
    ['A rug below a couch', 'rug', 'couch', 'below'],
    ['An onion on a plate', 'onion', 'plate', 'on'],
  ])('%s', (caption, subject, object, relation) => {
    expect(parseCaption(caption)).toEqual({ subject, object, relation });
  });

  it.each([
    ['A person on the left', 'person', 'left'],
    ['An umpire on the right', 'umpire', 'right'],
    ['A traffic light on the top', 'traffic light', 'top'],
    ['A cat at the bottom of the image', 'cat', 'bottom'],
    ['a Person On The Left Side.', 'person', 'left'],
  ])('one-object %s', (caption, subject, relation) => {
    expect(parseCaption(caption)).toEqual({ subject, object: null, relation });
  });

  it('keeps nouns that contain relation words intact', () => {
    expect(parseCaption('A lemon on a stone')).toEqual({ subject: 'lemon', object: 'stone', relation: 'on' });
    expect(parseCaption('A person on the left of a horse')).toEqual({ subject: 'person', object: 'horse', relation: 'left' });
  });

  it('returns null for captions it cannot read', () => {
    for (const c of ['', 'hello', 'A mug', 'A mug near a table', 'on a table']) expect(parseCaption(c)).toBeNull();
  });
});

describe('captionFor', () => {
  it('writes captions that parse back to what was written', () => {
    for (const relation of RELATIONS) {
      if (relation === 'top' || relation === 'bottom') continue;
      const caption = captionFor('apple', 'beer bottle', relation);
      const parsed = parseCaption(caption);
      // "bottom" and "below" share a wording; every other relation reads back as itself.
      expect(parsed, caption).toEqual({ subject: 'apple', object: 'beer bottle', relation });
    }
    for (const relation of ['left', 'right', 'top', 'bottom'] as const) {
      expect(parseCaption(captionFor('ball', null, relation))).toEqual({ subject: 'ball', object: null, relation });
    }
    expect(captionFor('apple', 'egg', 'on')).toBe('An apple on an egg');
  });
});
