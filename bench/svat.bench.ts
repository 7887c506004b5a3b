/**
 * SVAT generation rate at 512x512 through the whole `gsr dataset synth svat` path (drawing, PNG
 * encoding, atomic writes; K = 4, so five images an item): for the default phi (I1, shape, M = 1)
 * and for all 60 phi combinations mixed, with CPU time per item (all threads), which other load
 * disturbs less. Then the label check of test/benchmarks/svat/labels.test.ts at 512x512:
 * GSR_BENCH_SVAT_CHECK items (default 1,000) over every phi, each image re-detected by colour.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateBenchmark } from '../src/benchmarks/index.js';
import { detectedAnswer } from '../src/benchmarks/svat/check.js';
import { CHECK_DRAWING, renderShot, sampleEpisode, type Backgrounds } from '../src/benchmarks/svat/episode.js';
import { balancedAnswers, combinations, parseSvatGenerateSettings, photoStandIns, roomScenes } from '../src/benchmarks/svat/generate.js';
import { BACKGROUND_SETS, OBJECT_COUNTS, OBJECT_SETS, TEXT_MODES } from '../src/benchmarks/svat/spec.js';
import { Rng } from '../src/util/random.js';

const ALL = { background: [...BACKGROUND_SETS], objects: [...OBJECT_SETS], distractors: [...OBJECT_COUNTS], text: [...TEXT_MODES] };

async function timed(out: string, settings: Record<string, unknown>) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await generateBenchmark('svat', { width: 512, height: 512, shots: 4, seed: 7, ...settings }, out);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { items: r.items, seconds: +seconds.toFixed(2), items_per_second: +(r.items / seconds).toFixed(1), cpu_ms_per_item: +((cpu.user + cpu.system) / 1000 / r.items).toFixed(1) };
}

async function labelCheck(count: number) {
  const backgrounds: Backgrounds = { I4: roomScenes(3, 512, 512), I5: photoStandIns(3, 512, 512) };
  const combos = combinations(parseSvatGenerateSettings({ out: '-', background: BACKGROUND_SETS, objects: OBJECT_SETS, distractors: OBJECT_COUNTS, text: TEXT_MODES }));
  const per = Math.ceil(count / combos.length);
  let items = 0;
  let images = 0;
  let agree = 0;
  const t0 = performance.now();
  for (const [ci, phi] of combos.entries()) {
    const answers = balancedAnswers(per, new Rng(3, ci, 0x5a17));
    for (let i = 0; i < per && items < count; i++, items++) {
      const ep = sampleEpisode(new Rng(3, ci, i), { phi, shots: 4, width: 512, height: 512, id: `${ci}-${i}`, answer: answers[i], ...CHECK_DRAWING }, backgrounds);
      for (const shot of [...ep.demos, ep.query]) {
        images++;
        if (detectedAnswer(renderShot(ep, ep.backgroundRaster, shot), ep.line, shot.objects[0]) === shot.answer) agree++;
      }
    }
  }
  return { items, images, labels_agreeing: agree, share: agree / images, seconds: +((performance.now() - t0) / 1000).toFixed(1) };
}

export default async function svatBench(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'gsr-svat-bench-'));
  try {
    await generateBenchmark('svat', { ...ALL, count: 1, width: 512, height: 512, seed: 1 }, join(dir, 'warmup'));
    const load = loadavg()[0];
    const defaultPhi = await timed(join(dir, 'default'), { count: Number(process.env.GSR_BENCH_SVAT_COUNT ?? 300) });
    const mixed = await timed(join(dir, 'mixed'), { ...ALL, count: Number(process.env.GSR_BENCH_SVAT_MIX_COUNT ?? 5) });
    const check = await labelCheck(Number(process.env.GSR_BENCH_SVAT_CHECK ?? 1000));
    return {
      width: 512,
      height: 512,
      shots: 4,
      target_items_per_second: 20,
      default_phi: { phi: 'I1/shape/M1/none', ...defaultPhi },
      all_phi_mixed: mixed,
      label_check_512: check,
      load_average_1m_at_start: +load.toFixed(2),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
