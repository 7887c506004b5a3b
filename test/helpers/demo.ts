import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from './cli.js';

/**
 * The shipped demo (pipelines/demo.yaml) on `count` scenes, scored against the scenes' exact truth,
 * without the real photos, with three of the simulated answerers (sim-g20, sim-g60, sim-g95) and its
 * endpoint entry as shipped; written to `work`, with its outputs in `out`. Returns the file's path.
 */
export function writeReducedDemo(work: string, out: string, count: number): string {
  const demo = parse(readFileSync(join(REPO_ROOT, 'pipelines', 'demo.yaml'), 'utf8')) as Record<string, any>;
  demo.out = out;
  demo.dataset.synthetic.count = count;
  demo.annotations = { source: 'exact' };
  delete demo.photos;
  demo.models = demo.models.filter((m: { name: string }) => !/^sim-g(10|35|50|70|85)$/.test(m.name));
  const file = join(work, 'demo-small.yaml');
  writeFileSync(file, stringify(demo));
  return file;
}
