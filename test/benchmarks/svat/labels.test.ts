/**
 * SVAT labels against the pictures: 10,000 items over every phi, each image rendered (at 64x64,
 * through the same geometry and drawing code as the 512x512 default) and its target found again by
 * colour alone; the side of the hidden line it is found on must give the image's label. It draws with
 * the checking options (episode.ts CHECK_DRAWING: the palette, whole boxes off the line), not the
 * paper's defaults, whose random colours a colour test cannot find. The 512x512 run of the same check
 * is in bench/svat.bench.ts.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_DRAWING, renderShot, sampleEpisode, type Backgrounds } from '../../../src/benchmarks/svat/episode.js';
import { balancedAnswers, combinations, loadPhotos, parseSvatGenerateSettings, photoStandIns, roomScenes } from '../../../src/benchmarks/svat/generate.js';
import { detectedAnswer } from '../../../src/benchmarks/svat/check.js';
import { BACKGROUND_SETS, OBJECT_COUNTS, OBJECT_SETS, TEXT_MODES } from '../../../src/benchmarks/svat/spec.js';
import { Rng } from '../../../src/util/random.js';
import { itShared } from '../../helpers/shared.js';

const SIZE = 64;
const COUNT = Number(process.env.SVAT_LABEL_COUNT ?? 10_000);

describe('SVAT labels agree with the drawn pictures', () => {
  it(`for ${COUNT.toLocaleString('en')} items over every phi (${SIZE}x${SIZE}), each image re-detected by colour`, async () => {
    const backgrounds: Backgrounds = { I4: roomScenes(1, SIZE, SIZE), I5: photoStandIns(1, SIZE, SIZE) };
    const combos = combinations(parseSvatGenerateSettings({ out: '-', background: BACKGROUND_SETS, objects: OBJECT_SETS, distractors: OBJECT_COUNTS, text: TEXT_MODES }));
    const per = Math.ceil(COUNT / combos.length);
    let items = 0;
    let images = 0;
    const wrong: string[] = [];
    for (const [ci, phi] of combos.entries()) {
      const answers = balancedAnswers(per, new Rng(9, ci, 0x5a17));
      for (let i = 0; i < per && items < COUNT; i++, items++) {
        const ep = sampleEpisode(new Rng(9, ci, i), { phi, shots: 4, width: SIZE, height: SIZE, id: `${ci}-${i}`, answer: answers[i], ...CHECK_DRAWING }, backgrounds);
        for (const shot of [...ep.demos, ep.query]) {
          images++;
          const found = detectedAnswer(renderShot(ep, ep.backgroundRaster, shot), ep.line, shot.objects[0]);
          if (found !== shot.answer) wrong.push(`${ep.level} #${i}: labelled ${shot.answer}, found ${found ?? 'nothing'}`);
        }
      }
    }
    expect(items).toBe(COUNT);
    expect(images).toBe(COUNT * 5);
    expect(wrong.slice(0, 10)).toEqual([]);
  }, 120_000);

  itShared('on real photographs (I5 with --photos: the 16 What\'sUp sample photos)', ['whatsupSample'], async ({ whatsupSample }) => {
    const backgrounds: Backgrounds = { I4: [], I5: await loadPhotos(whatsupSample, SIZE, SIZE) };
    expect(backgrounds.I5).toHaveLength(16);
    const combos = combinations(parseSvatGenerateSettings({ out: '-', background: ['I5'], objects: OBJECT_SETS, distractors: OBJECT_COUNTS, text: TEXT_MODES }));
    const wrong: string[] = [];
    for (const [ci, phi] of combos.entries()) {
      for (let i = 0; i < 50; i++) {
        const ep = sampleEpisode(new Rng(11, ci, i), { phi, shots: 4, width: SIZE, height: SIZE, id: `${ci}-${i}`, answer: i % 2 ? 'yes' : 'no', ...CHECK_DRAWING }, backgrounds);
        for (const shot of [...ep.demos, ep.query]) {
          const found = detectedAnswer(renderShot(ep, ep.backgroundRaster, shot), ep.line, shot.objects[0]);
          if (found !== shot.answer) wrong.push(`${ep.level} #${i}: labelled ${shot.answer}, found ${found ?? 'nothing'}`);
        }
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  }, 120_000);

  it('the check can fail: a flipped line or a target drawn elsewhere is caught', () => {
    const phi = { background: 'I3', objects: 'shape', m: 3, text: 'none' } as const;
    const ep = sampleEpisode(new Rng(5), { phi, shots: 2, width: SIZE, height: SIZE, id: 'x', answer: 'yes', ...CHECK_DRAWING }, { I4: [], I5: [] });
    const r = renderShot(ep, ep.backgroundRaster, ep.query);
    const target = ep.query.objects[0];
    expect(detectedAnswer(r, ep.line, target)).toBe('yes');
    expect(detectedAnswer(r, { ...ep.line, yes: ep.line.yes === 'below' ? 'above' : 'below' }, target)).toBe('no');
    const other = ep.demos.find((d) => d.answer === 'no')!;
    // The query's target, drawn where a No demonstration's target is.
    expect(detectedAnswer(renderShot(ep, ep.backgroundRaster, { objects: [{ ...target, x: other.objects[0].x, y: other.objects[0].y }, ...ep.query.objects.slice(1)] }), ep.line, target)).toBe('no');
    // Targets in the paper's random colours cannot be found by this check.
    const paper = sampleEpisode(new Rng(5), { phi, shots: 2, width: SIZE, height: SIZE, id: 'x', answer: 'yes' }, { I4: [], I5: [] });
    expect(() => detectedAnswer(r, paper.line, paper.query.objects[0])).toThrow('needs a target drawn from the palette');
  });
});
