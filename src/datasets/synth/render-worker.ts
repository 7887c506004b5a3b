/** Worker thread of `gsr dataset synth`: produces the scenes it is sent (see produce.ts). */
import { parentPort } from 'node:worker_threads';
import { produceScene, type SceneJob } from './produce.js';

// Tells the pool the module graph loaded (a loader problem would have failed before this line).
parentPort!.postMessage({ ready: true });

parentPort!.on('message', (job: SceneJob) => {
  produceScene(job).then(
    (scene) => parentPort!.postMessage({ ok: true, scene }, [scene.image.buffer as ArrayBuffer, scene.depthPng.buffer as ArrayBuffer]),
    (err: unknown) => parentPort!.postMessage({ ok: false, index: job.index, error: err instanceof Error ? err.message : String(err) }),
  );
});
