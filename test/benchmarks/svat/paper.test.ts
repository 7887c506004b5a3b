/**
 * SVAT's generator against the paper (svat.txt of GSR_SHARED_PAPERS): Table 4's templates and the words
 * that fill them (Appendix C), the shape set, and Algorithm 1's rules over many draws (fast-check):
 * tau ~ U[2 eps, 1 - 2 eps], the margin |xi_delta - tau| > eps on every labelled centre, centres over
 * the whole image, and every object and distractor class drawn afresh in every example.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOXED_MARGIN, sampleEpisode, type DrawOptions } from '../../../src/benchmarks/svat/episode.js';
import { halfExtents } from '../../../src/benchmarks/svat/raster.js';
import {
  DESCRIPTIONS, EPSILON, FIDUCIAL_WORDS, OBJECT_SETS, SHAPES, TABLE4_TEMPLATES, TAU_RANGE, TEMPLATES, TEXT_MODES, lineAnswer, type SvatItem,
} from '../../../src/benchmarks/svat/spec.js';
import { SPRITE_KINDS } from '../../../src/benchmarks/svat/sprites.js';
import { Rng } from '../../../src/util/random.js';
import { describeShared } from '../../helpers/shared.js';

/** Table 4 as printed, its repeated row included (the paper's wording is the point). */
const TABLE4_AS_PRINTED = [
  'Is the {fiducial} {description}?',
  'Are the {fiducial} {description}?',
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
];

const NO_PICTURES = { I4: [], I5: [] };
const PHIS = OBJECT_SETS.flatMap((objects) => TEXT_MODES.flatMap((text) => ([1, 3] as const).flatMap((m) => (['I1', 'I2', 'I3'] as const).map((background) => ({ background, objects, m, text })))));
const arbPhi = fc.constantFrom(...PHIS);
const arbSeed = fc.integer({ min: 0, max: 2 ** 31 });

function draw(seed: number, phi: SvatItem['phi'], options: Partial<DrawOptions> = {}, answer: 'yes' | 'no' = 'yes') {
  return sampleEpisode(new Rng(seed), { phi, shots: 4, width: 48, height: 40, id: 'x', answer, ...options }, NO_PICTURES);
}
const coordinate = (item: Pick<SvatItem, 'line'>, o: { x: number; y: number }) => (item.line.axis === 'x' ? o.x : o.y);
const shotsOf = <S>(item: { demos: S[]; query: S }) => [...item.demos, item.query];

describe('SVAT questions: Table 4 and Appendix C', () => {
  it('has every Table 4 template, once each, in order, and T_none adds the target-free "Is everything okay?"', () => {
    expect(TABLE4_TEMPLATES).toEqual([...new Set(TABLE4_AS_PRINTED)]);
    expect(TABLE4_TEMPLATES).toHaveLength(15);
    expect(TEMPLATES.guide).toEqual(TABLE4_TEMPLATES);
    expect(TEMPLATES.none).toEqual([...TABLE4_TEMPLATES, 'Is everything okay?']);
  });

  it("fills {fiducial} with the paper's synonyms (T_none) or the target's category (T_guide), and {description} with Yes and No phrasings", () => {
    expect(FIDUCIAL_WORDS.slice(0, 4)).toEqual(['fiducial', 'marker', 'landmark', 'beacon']);
    expect(DESCRIPTIONS.yes).toEqual(expect.arrayContaining(['aligned', 'in position']));
    expect(DESCRIPTIONS.no).toContain('out of place');
    const seen = { templates: new Set<string>(), words: new Set<string>(), descriptions: new Set<string>() };
    fc.assert(fc.property(arbSeed, arbPhi, (seed, phi) => {
      const item = draw(seed, phi);
      expect(TEMPLATES[phi.text]).toContain(item.template);
      expect(item.question).toBe(item.template.replace('{fiducial}', item.fiducial ?? '').replace('{description}', item.description ?? ''));
      expect(item.fiducial !== undefined).toBe(item.template.includes('{fiducial}'));
      expect(item.description !== undefined).toBe(item.template.includes('{description}'));
      if (item.fiducial !== undefined) {
        if (phi.text === 'guide') expect(item.fiducial).toBe(item.target);
        else expect(FIDUCIAL_WORDS).toContain(item.fiducial);
      }
      if (item.description !== undefined) expect([...DESCRIPTIONS.yes, ...DESCRIPTIONS.no]).toContain(item.description);
      seen.templates.add(item.template);
      if (phi.text === 'none' && item.fiducial) seen.words.add(item.fiducial);
      if (item.description) seen.descriptions.add(item.description);
    }), { numRuns: 1500 });
    expect(seen.templates.size).toBe(16);
    expect(seen.words).toContain('beacon');
    expect(seen.descriptions.size).toBe(DESCRIPTIONS.yes.length + DESCRIPTIONS.no.length);
  });
});

describe('SVAT images: Algorithm 1 and the object sets', () => {
  it("follows Algorithm 1 over many draws: tau in [0.1, 0.9], every object on the label's side with its centre more than eps from tau, centres in [0, 1]", () => {
    expect(TAU_RANGE).toEqual([0.1, 0.9]);
    expect(EPSILON).toBe(0.05);
    fc.assert(fc.property(arbSeed, arbPhi, fc.constantFrom('yes' as const, 'no' as const), (seed, phi, answer) => {
      const item = draw(seed, phi, {}, answer);
      expect(item.line.at).toBeGreaterThanOrEqual(0.1);
      expect(item.line.at).toBeLessThanOrEqual(0.9);
      expect(item.demos.map((d) => d.answer).sort()).toEqual(['no', 'no', 'yes', 'yes']);
      expect(item.query.answer).toBe(answer);
      const kinds: readonly string[] = phi.objects === 'objects' ? SPRITE_KINDS : SHAPES;
      for (const shot of shotsOf(item)) {
        expect(shot.objects).toHaveLength(phi.m);
        expect(shot.objects[0].kind).toBe(item.target);
        for (const [k, o] of shot.objects.entries()) {
          if (k > 0) expect(o.kind).not.toBe(item.target);
          expect(kinds).toContain(o.kind);
          for (const v of [o.x, o.y]) expect(v >= 0 && v <= 1).toBe(true);
          // As written, the loop of lines 19-31 puts every object, distractors too, on the label's side.
          expect(lineAnswer(item.line, o)).toBe(shot.answer);
          expect(Math.abs(coordinate(item, o) - item.line.at)).toBeGreaterThan(EPSILON);
        }
      }
    }), { numRuns: 1000 });
  });

  it('draws the decision boundary and the centres over their whole ranges, so objects can be clipped', () => {
    const taus: number[] = [];
    const centres: number[] = [];
    for (let seed = 0; seed < 2000; seed++) {
      const item = draw(seed, { background: 'I1', objects: 'shape', m: 1, text: 'none' });
      taus.push(item.line.at);
      for (const s of shotsOf(item)) centres.push(s.objects[0].x, s.objects[0].y);
    }
    expect(Math.min(...taus)).toBeLessThan(0.12);
    expect(Math.max(...taus)).toBeGreaterThan(0.88);
    expect(Math.min(...centres)).toBeLessThan(0.005);
    expect(Math.max(...centres)).toBeGreaterThan(0.995);
  });

  it('two examples of one item place (and choose) their distractors differently', () => {
    const item = draw(1, { background: 'I1', objects: 'shape', m: 3, text: 'guide' });
    const [a, b] = item.demos;
    expect([a.objects[1].x, a.objects[1].y]).not.toEqual([b.objects[1].x, b.objects[1].y]);
    expect([a.objects[0].x, a.objects[0].y]).not.toEqual([b.objects[0].x, b.objects[0].y]);
    let classesVary = false;
    for (let seed = 0; seed < 50 && !classesVary; seed++) {
      const it3 = draw(seed, { background: 'I1', objects: 'shape', m: 3, text: 'none' });
      classesVary = new Set(shotsOf(it3).map((s) => s.objects.slice(1).map((o) => o.kind).join())).size > 1;
    }
    expect(classesVary).toBe(true);
  });

  it('draws the five shapes in uniformly random RGB and fills tshape with I3 textures', () => {
    expect(SHAPES).toEqual(['circle', 'pentagon', 'rectangle', 'square', 'triangle']);
    const rgb = new Set<string>();
    const channels: number[] = [];
    const textures = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      for (const s of shotsOf(draw(seed, { background: 'I2', objects: 'shape', m: 3, text: 'none' }))) {
        for (const o of s.objects) {
          expect(o.texture).toBeUndefined();
          rgb.add(o.rgb!.join());
          channels.push(...o.rgb!);
        }
      }
      for (const s of shotsOf(draw(seed, { background: 'I1', objects: 'tshape', m: 1, text: 'none' }))) {
        expect(s.objects[0].rgb).toBeUndefined();
        textures.add(s.objects[0].texture!.kind);
      }
    }
    expect(rgb.size).toBeGreaterThan(4000); // nearly every object its own colour
    const mean = channels.reduce((a, b) => a + b, 0) / channels.length;
    expect(Math.abs(mean - 127.5)).toBeLessThan(3);
    expect(Math.min(...channels)).toBe(0);
    expect(Math.max(...channels)).toBe(255);
    expect(textures).toEqual(new Set(['wood', 'grass', 'snow', 'fabric']));
  });

  it('offers the other reading as an option: distractors anywhere, only the target on the label\'s side', () => {
    let across = 0;
    fc.assert(fc.property(arbSeed, (seed) => {
      const item = draw(seed, { background: 'I1', objects: 'shape', m: 3, text: 'guide' }, { distractor_placement: 'anywhere' });
      for (const s of shotsOf(item)) {
        expect(lineAnswer(item.line, s.objects[0])).toBe(s.answer);
        expect(Math.abs(coordinate(item, s.objects[0]) - item.line.at)).toBeGreaterThan(EPSILON);
        across += s.objects.slice(1).filter((o) => lineAnswer(item.line, o) !== s.answer).length;
      }
    }), { numRuns: 300 });
    expect(across).toBeGreaterThan(300);
  });

  it('the checking option `boxed` keeps every box inside the image and off the line', () => {
    fc.assert(fc.property(arbSeed, arbPhi, (seed, phi) => {
      const item = draw(seed, phi, { placement: 'boxed', colours: 'palette' });
      for (const s of shotsOf(item)) {
        for (const o of s.objects) {
          const { hx, hy } = halfExtents(o.size, item.width, item.height);
          expect(o.x - hx).toBeGreaterThanOrEqual(0);
          expect(o.x + hx).toBeLessThanOrEqual(1);
          expect(o.y - hy).toBeGreaterThanOrEqual(0);
          expect(o.y + hy).toBeLessThanOrEqual(1);
          const h = item.line.axis === 'x' ? hx : hy;
          expect(Math.abs(coordinate(item, o) - item.line.at)).toBeGreaterThan(h + BOXED_MARGIN - 1e-12);
          expect(o.colour).toBeDefined();
        }
      }
    }), { numRuns: 500 });
  });
});

describeShared('SVAT Table 4 in the paper', ['papers'], ({ papers }) => {
  it('is the table this test quotes', () => {
    const text = readFileSync(join(papers, 'svat.txt'), 'utf8');
    const table = /Table 4: Question templates in SVAT\n\nTemplates\n([\s\S]*?)\n\nAppendix D/.exec(text)?.[1];
    expect(table?.split('\n')).toEqual(TABLE4_AS_PRINTED);
  });
});
