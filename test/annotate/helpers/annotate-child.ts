/**
 * Child process for the crash test: annotates the images named in argv with the slow test-double
 * detector, logging every detector call, so the parent can kill it mid-run and resume.
 * Usage: tsx annotate-child.ts OUT_DIR CALL_LOG DELAY_MS IMAGE...
 */
import { annotate } from '../../../src/annotate/run.js';
import { targetsFromImages } from '../../../src/annotate/targets.js';
import { DOUBLE_DETECTOR, registerDoubles } from './doubles.js';

const [outDir, callLog, delayMs, ...images] = process.argv.slice(2);
registerDoubles();
const summary = await annotate({
  targets: targetsFromImages(images, [{ role: 'subject', phrase: 'left' }]),
  outDir,
  detector: DOUBLE_DETECTOR,
  modelsDir: '/nonexistent',
  device: 'cpu',
  params: { call_log: callLog, delay_ms: Number(delayMs) },
});
process.stdout.write(JSON.stringify(summary) + '\n');
