import { describe, expect, it } from 'vitest';
import { BOX_FORMATS, boxFormatForModel, guessBoxFormat, parseBox, qwenSmartResize, resolveBoxFormat, type ParseBoxOptions, type ParseBoxResult } from '../../src/scoring/index.js';

const W = 640;
const H = 480;
const opts = (format: ParseBoxOptions['format'], extra: Partial<ParseBoxOptions> = {}): ParseBoxOptions => ({ format, width: W, height: H, ...extra });

function box(r: ParseBoxResult): number[] {
  if (!r.ok) throw new Error(`expected a box, got ${r.reason}: ${r.detail}`);
  return r.box;
}
function expectBox(r: ParseBoxResult, expected: number[]): void {
  const b = box(r);
  expected.forEach((v, i) => expect(b[i]).toBeCloseTo(v, 6));
}

// The box (x 100..500, y 200..800 on a 0-1000 grid) is [64, 96, 320, 384] on a 640x480 image.
const GRID = [64, 96, 320, 384];

describe('parseBox: every declared format, real-looking answers', () => {
  it('llava: 0-1 list, with and without the padded-square correction', () => {
    expectBox(parseBox('[0.1, 0.2, 0.5, 0.8]', opts('llava')), GRID);
    expectBox(parseBox('The bounding box of the mug is [0.10, 0.20, 0.50, 0.80].', opts('llava')), GRID);
    // Padded to a 640 square: 80 px bands above and below; y = v * 640 - 80.
    expectBox(parseBox('[0.1, 0.2, 0.5, 0.8]', opts('llava', { llavaPadded: true })), [64, 48, 320, 432]);
    // A portrait image pads left and right instead: 480x640 -> x = v * 640 - 80.
    expectBox(parseBox('[0.25, 0.1, 0.75, 0.5]', { format: 'llava', width: 480, height: 640, llavaPadded: true }), [80, 64, 400, 320]);
  });
  it('qwen-vl: <ref>..</ref><box>(x1,y1),(x2,y2)</box> on 0-1000', () => {
    expectBox(parseBox('<ref>the mug</ref><box>(100,200),(500,800)</box>', opts('qwen-vl')), GRID);
  });
  it('qwen2-vl: <|box_start|> tokens on 0-1000', () => {
    expectBox(parseBox('<|object_ref_start|>mug<|object_ref_end|><|box_start|>(100,200),(500,800)<|box_end|>', opts('qwen2-vl')), GRID);
  });
  it('qwen2.5-vl: JSON bbox_2d in resized-input pixels', () => {
    const text = '```json\n[\n\t{"bbox_2d": [56, 112, 280, 336], "label": "mug"}\n]\n```';
    // 640x480 seen as 560x420: every value scales by 8/7.
    expectBox(parseBox(text, opts('qwen2.5-vl', { inputWidth: 560, inputHeight: 420 })), [64, 128, 320, 384]);
    const r = parseBox(text, opts('qwen2.5-vl'));
    expect(r.ok ? 'ok' : r.reason).toBe('needs-input-size');
  });
  it('qwen3-vl: JSON bbox_2d on 0-1000', () => {
    expectBox(parseBox('{"bbox_2d": [100, 200, 500, 800], "label": "mug"}', opts('qwen3-vl')), GRID);
  });
  it('internvl: <box>[[x1,y1,x2,y2]]</box> on 0-1000', () => {
    expectBox(parseBox('<ref>mug</ref><box>[[100, 200, 500, 800]]</box>', opts('internvl')), GRID);
  });
  it('cogvlm: zero-padded [[x0,y0,x1,y1]]', () => {
    expectBox(parseBox('A white mug [[010,020,500,800]] on a table.', opts('cogvlm')), [6.4, 9.6, 320, 384]);
  });
  it('gemini: box_2d y-first on 0-1000', () => {
    expectBox(parseBox('```json\n[{"box_2d": [200, 100, 800, 500], "label": "mug"}]\n```', opts('gemini')), GRID);
  });
  it('florence2: <loc_N> bins decoded to bin centres', () => {
    expectBox(parseBox('mug<loc_100><loc_200><loc_500><loc_800>', opts('florence2')), [64.32, 96.24, 320.32, 384.24]);
  });
  it('kosmos2: patch indices on a 32x32 grid', () => {
    // 44 = row 1, col 12; 813 = row 25, col 13: centres (12.5, 1.5) and (13.5, 25.5) cells of 20x15 px.
    const text = '<grounding> Describe<phrase> a mug</phrase><object><patch_index_0044><patch_index_0813></object>';
    expectBox(parseBox(text, opts('kosmos2')), [250, 22.5, 270, 382.5]);
    // Same column: whole cells, so the box keeps an area.
    expectBox(parseBox('<object><patch_index_0012><patch_index_0044></object>', opts('kosmos2')), [240, 0, 260, 30]);
  });
  it('deepseek-vl2: <|det|>[[..]] on 0-999', () => {
    const r = parseBox('<|ref|>mug<|/ref|><|det|>[[100, 200, 500, 800]]<|/det|>', opts('deepseek-vl2'));
    expectBox(r, [(100 / 999) * W, (200 / 999) * H, (500 / 999) * W, (800 / 999) * H]);
  });
  it('paligemma: <locYYYY> x4, y first, 1024 bins', () => {
    expectBox(parseBox('<loc0256><loc0128><loc0768><loc0640> mug', opts('paligemma')), [80, 120, 400, 360]);
  });
  it('pixels: a plain [x1, y1, x2, y2] in original-image pixels (other harnesses, baselines)', () => {
    expectBox(parseBox('[64, 96, 320, 384]', opts('pixels')), GRID);
  });
  it('covers every format name', () => {
    expect([...BOX_FORMATS].sort()).toEqual(
      ['cogvlm', 'deepseek-vl2', 'florence2', 'gemini', 'internvl', 'kosmos2', 'llava', 'paligemma', 'pixels', 'qwen-vl', 'qwen2-vl', 'qwen2.5-vl', 'qwen3-vl'].sort(),
    );
  });
});

describe('parseBox: plain-text variants', () => {
  it('several boxes: the first is taken', () => {
    expectBox(parseBox('[[100,200,500,800],[0,0,10,10]]', opts('internvl')), GRID);
    expectBox(parseBox('<box>(100,200),(500,800)</box> and <box>(0,0),(10,10)</box>', opts('qwen-vl')), GRID);
  });
  it('tagged box wins over earlier numbers; plain lists work without tags', () => {
    expectBox(parseBox('There are [1, 2, 3, 4] mugs. <|box_start|>(100,200),(500,800)<|box_end|>', opts('qwen2-vl')), GRID);
    expectBox(parseBox('(100,200),(500,800)', opts('qwen2-vl')), GRID);
    expectBox(parseBox('The box is [100, 200, 500, 800].', opts('qwen3-vl')), GRID);
  });
  it('swapped corners are reordered and reported', () => {
    const r = parseBox('[0.5, 0.8, 0.1, 0.2]', opts('llava'));
    expectBox(r, GRID);
    expect(r.ok && r.fixes).toEqual(['swapped']);
  });
  it('out-of-range values are clipped and reported', () => {
    const r = parseBox('<|box_start|>(-50,200),(1100,800)<|box_end|>', opts('qwen2-vl'));
    expectBox(r, [0, 96, 640, 384]);
    expect(r.ok && r.fixes).toEqual(['clipped']);
  });
  it('nested brackets', () => {
    expectBox(parseBox('[[[[[[0.1, 0.2, 0.5, 0.8]]]]]]', opts('llava')), GRID);
  });
});

describe('parseBox: auto guesses by written rules and says so', () => {
  const cases: Array<[string, string]> = [
    ['mug<loc_100><loc_200><loc_500><loc_800>', 'florence2'],
    ['<loc0256><loc0128><loc0768><loc0640> mug', 'paligemma'],
    ['<object><patch_index_0044><patch_index_0813></object>', 'kosmos2'],
    ['<|box_start|>(100,200),(500,800)<|box_end|>', 'qwen2-vl'],
    ['<|det|>[[100, 200, 500, 800]]<|/det|>', 'deepseek-vl2'],
    ['<box>(100,200),(500,800)</box>', 'qwen-vl'],
    ['<box>[[100, 200, 500, 800]]</box>', 'internvl'],
    ['{"box_2d": [200, 100, 800, 500]}', 'gemini'],
    ['[[100, 200, 500, 800]]', 'cogvlm'],
    ['[0.1, 0.2, 0.5, 0.8]', 'llava'],
    ['{0, 0.25, 1, 0.75}', 'llava'],
    ['The mug is at [64, 96, 320, 384].', 'pixels'],
    ['(64.5, 96, 320, 384)', 'pixels'],
  ];
  for (const [text, format] of cases) {
    it(`${format}`, () => {
      const r = parseBox(text, opts('auto'));
      expect(r.ok && r.format).toBe(format);
      expect(r.ok && r.guessed).toBe(true);
    });
  }
  it('bbox_2d is ambiguous between Qwen2.5-VL and Qwen3-VL: refused, not guessed', () => {
    const r = parseBox('{"bbox_2d": [100, 200, 500, 800]}', opts('auto'));
    expect(r.ok ? r.format : r.reason).toBe('ambiguous');
  });
  it('plain lists: every value in 0..1 reads as fractions of the image, a value above 1 as pixels', () => {
    expectBox(parseBox('[0.1, 0.2, 0.5, 0.8]', opts('auto')), GRID);
    expectBox(parseBox('Box: [64, 96, 320, 384]', opts('auto')), GRID);
    // Beyond the image is clipped, and says so.
    const r = parseBox('[64, 96, 700, 384]', opts('auto'));
    expect(r.ok && r.fixes).toEqual(['clipped']);
    // Only the first list is read: a later one never competes with it.
    expectBox(parseBox('[0.1, 0.2, 0.5, 0.8] or maybe [64, 96, 320, 384]', opts('auto')), GRID);
  });
  it('no rule: no-box', () => {
    expect(guessBoxFormat('The mug is on the left.')).toBeNull();
    expect(guessBoxFormat('[1, 2, 3]')).toBeNull();
    const r = parseBox('The mug is on the left, about 100 px wide.', opts('auto'));
    expect(r.ok ? r.format : r.reason).toBe('no-box');
  });
});

describe('parseBox: garbage gets a typed failure', () => {
  const reason = (r: ParseBoxResult) => (r.ok ? `ok ${r.box}` : r.reason);
  it('empty, whitespace, non-string', () => {
    expect(reason(parseBox('', opts('llava')))).toBe('empty');
    expect(reason(parseBox('  \n ', opts('llava')))).toBe('empty');
    expect(reason(parseBox(null, opts('llava')))).toBe('empty');
    expect(reason(parseBox(42, opts('llava')))).toBe('empty');
  });
  it('NaN, Infinity and overflowing numbers', () => {
    expect(reason(parseBox('[NaN, 0.2, 0.5, 0.8]', opts('llava')))).toBe('no-box');
    expect(reason(parseBox('[Infinity, 0.2, 0.5, 0.8]', opts('llava')))).toBe('no-box');
    expect(reason(parseBox('[1e400, 0.2, 0.5, 0.8]', opts('llava')))).toBe('non-finite');
  });
  it('too few numbers, too few tokens, prose', () => {
    expect(reason(parseBox('[0.1, 0.2, 0.5]', opts('llava')))).toBe('no-box');
    expect(reason(parseBox('<loc_1><loc_2>', opts('florence2')))).toBe('no-box');
    expect(reason(parseBox('I cannot see a mug.', opts('qwen2-vl')))).toBe('no-box');
  });
  it('bad image size and unknown format', () => {
    expect(reason(parseBox('[0.1, 0.2, 0.5, 0.8]', { format: 'llava', width: 0, height: 480 }))).toBe('bad-image-size');
    expect(reason(parseBox('[0.1, 0.2, 0.5, 0.8]', { format: 'llava', width: NaN, height: 480 }))).toBe('bad-image-size');
    expect(reason(parseBox('[0.1, 0.2, 0.5, 0.8]', opts('yolo' as never)))).toBe('unknown-format');
  });
  it('a 10 MB answer is scanned in linear time', () => {
    const junk = '[[(( 12345678901234567890 ,'.repeat(400_000); // ~10 MB of near-misses
    const t0 = Date.now();
    expect(reason(parseBox(junk, opts('llava')))).toBe('no-box');
    expect(reason(parseBox(junk + '<box>[[100, 200, 500, 800]]</box>', opts('internvl')))).toMatch(/^ok/);
    expect(reason(parseBox(junk, opts('auto')))).toBe('no-box');
    // Generous bound: a quadratic scan of 10 MB would take hours, not seconds.
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});

describe('Qwen smart_resize and model-name formats', () => {
  it('matches the processor rule, including Python round-half-even', () => {
    expect(qwenSmartResize(640, 480)).toEqual([644, 476]); // 22.86 -> 23, 17.14 -> 17 (x28)
    expect(qwenSmartResize(4000, 3000)).toEqual([4004, 2996]);
    expect(qwenSmartResize(8000, 6000)).toEqual([4116, 3080]); // over max_pixels: floor after scaling
    expect(qwenSmartResize(70, 70)).toEqual([56, 56]); // 70/28 = 2.5 rounds to 2, not 3
    expect(qwenSmartResize(30, 20)).toEqual([84, 56]); // under min_pixels: ceil after scaling
    expect(qwenSmartResize(10000, 10)).toBeNull(); // aspect ratio over 200
  });
  it('declared formats from model names', () => {
    expect(boxFormatForModel('Qwen/Qwen2.5-VL-7B-Instruct')).toBe('qwen2.5-vl');
    expect(boxFormatForModel('qwen2-vl-72b')).toBe('qwen2-vl');
    expect(boxFormatForModel('Qwen3-VL-8B')).toBe('qwen3-vl');
    expect(boxFormatForModel('Qwen-VL-Chat')).toBe('qwen-vl');
    expect(boxFormatForModel('llava-v1.5-13b')).toBe('llava');
    expect(boxFormatForModel('gemini-1.5-pro')).toBe('gemini');
    expect(boxFormatForModel('gpt-4o')).toBeNull();
  });
  it('a declared format wins; auto or nothing takes the family from the model id; auto guesses only without one', () => {
    expect(resolveBoxFormat('llava', 'Qwen/Qwen2.5-VL-7B-Instruct')).toEqual({ format: 'llava', source: 'declared' });
    expect(resolveBoxFormat('auto', 'Qwen/Qwen2.5-VL-7B-Instruct')).toEqual({ format: 'qwen2.5-vl', source: 'family' });
    expect(resolveBoxFormat(undefined, 'llava-v1.5-13b')).toEqual({ format: 'llava', source: 'family' });
    expect(resolveBoxFormat('auto', 'my-local-model')).toEqual({ format: 'auto', source: 'auto' });
    expect(() => resolveBoxFormat('yolo', 'x')).toThrow(/unknown box format "yolo"/);
  });
});
