/**
 * Third-party material lives beside the repository, never in it (data/PROVENANCE.md): real photos,
 * real models, benchmark copies, the benchmarks' own texts. Tests that use it are optional checks:
 * each reads its material from a path (the `shared` folder beside the checkout by default, or the environment variable named
 * below), and is skipped with one reason when the path is absent. With GSR_REQUIRE_SHARED=1
 * (`npm run test:shared`, and `.ci/run`) a missing path fails the test file instead.
 * The list is documented in docs/testing.md; the reporter in test/helpers/optional-reporter.ts
 * prints every skipped check with its reason at the end of a run.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it, type TestContext } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The folder that holds the material (CI lays it beside the clone). */
export const SHARED_DIR = resolve(process.env.GSR_SHARED_DIR ?? join(REPO_ROOT, '..', 'shared'));

interface SharedResource {
  /** Environment variable that overrides the path. */
  env: string;
  /** Path under SHARED_DIR by default. */
  rel: string;
  /** A file or folder inside that must exist for the resource to count as present. */
  probe: string;
  what: string;
}

export const SHARED_RESOURCES = {
  whatsupSample: { env: 'GSR_SHARED_WHATSUP_SAMPLE', rel: 'data/whatsup-sample', probe: 'data/controlled_images_dataset.json', what: "16 What'sUp photos in the benchmark's layout" },
  whatsupSubsetA: { env: 'GSR_SHARED_WHATSUP_SUBSET_A', rel: 'data/whatsup-subset-a', probe: 'controlled_images_dataset.json', what: "What'sUp Subset A records (412)" },
  fastestdet: { env: 'GSR_SHARED_FASTESTDET', rel: 'models/fastestdet', probe: 'FastestDet.onnx', what: 'the real FastestDet ONNX model' },
  vsp: { env: 'GSR_SHARED_VSP', rel: 'data/vsp', probe: 'maze', what: 'a full copy of the VSP benchmark data' },
  virtualhome: { env: 'GSR_SHARED_VIRTUALHOME', rel: 'data/virtualhome', probe: 'fixtures/README.md', what: "VirtualHome's scene graphs and the reference engine's fixtures" },
  paperTables: { env: 'GSR_SHARED_PAPER_TABLES', rel: 'data/gsr-bench-paper', probe: 'table1_tg_circular.csv', what: "GSR-Bench's published tables as CSV" },
  etPlanReleased: { env: 'GSR_SHARED_ET_PLAN_RELEASED', rel: 'data/et-plan-released', probe: 'tasks/navigation_tasks.json', what: "ET-Plan-Bench's released task files (tasks/) and Table 2" },
  papers: { env: 'GSR_SHARED_PAPERS', rel: 'papers', probe: 'README.md', what: "the benchmarks' own texts" },
} as const satisfies Record<string, SharedResource>;

export type SharedId = keyof typeof SHARED_RESOURCES;

/** True when missing material must fail rather than skip. */
export const REQUIRE_SHARED = process.env.GSR_REQUIRE_SHARED === '1';

/** Where a resource is expected (whether or not it is there). */
export function sharedLocation(id: SharedId): string {
  const r: SharedResource = SHARED_RESOURCES[id];
  const fromEnv = process.env[r.env];
  return resolve(fromEnv && fromEnv !== '' ? fromEnv : join(SHARED_DIR, r.rel));
}

/** The resource's absolute path, or undefined when it is absent. */
export function sharedPath(id: SharedId): string | undefined {
  const p = sharedLocation(id);
  return existsSync(join(p, SHARED_RESOURCES[id].probe)) ? p : undefined;
}

/** Why a set of resources cannot be used, or null when all are present. */
export function missingReason(ids: readonly SharedId[]): string | null {
  const missing = ids.filter((id) => sharedPath(id) === undefined);
  if (missing.length === 0) return null;
  return missing.map((id) => `${SHARED_RESOURCES[id].what} not found at ${sharedLocation(id)} (set ${SHARED_RESOURCES[id].env})`).join('; ');
}

/** Paths of present resources, keyed by id (only meaningful when missingReason(ids) is null). */
export type SharedPaths<T extends SharedId> = Record<T, string>;

function pathsOf<T extends SharedId>(ids: readonly T[]): SharedPaths<T> {
  return Object.fromEntries(ids.map((id) => [id, sharedLocation(id)])) as SharedPaths<T>;
}

function failOrNull(ids: readonly SharedId[], title: string): string | null {
  const reason = missingReason(ids);
  if (reason !== null && REQUIRE_SHARED) throw new Error(`optional check "${title}" cannot run under GSR_REQUIRE_SHARED=1: ${reason}`);
  return reason;
}

/**
 * A suite that needs material beside the repository. When it is absent the suite holds one skipped
 * test whose note is the reason (the reporter prints it); under GSR_REQUIRE_SHARED=1 collection fails.
 */
export function describeShared<T extends SharedId>(title: string, ids: readonly T[], body: (paths: SharedPaths<T>) => void): void {
  const reason = failOrNull(ids, title);
  if (reason === null) {
    describe(`${title} [optional check]`, () => body(pathsOf(ids)));
    return;
  }
  describe(`${title} [optional check]`, () => {
    it('skipped', (ctx) => ctx.skip(reason));
  });
}

/** One test that needs material beside the repository (see describeShared). */
export function itShared<T extends SharedId>(
  title: string,
  ids: readonly T[],
  body: (paths: SharedPaths<T>, ctx: TestContext) => Promise<void> | void,
  timeout?: number,
): void {
  const reason = failOrNull(ids, title);
  it(`${title} [optional check]`, async (ctx) => {
    if (reason !== null) ctx.skip(reason);
    await body(pathsOf(ids), ctx);
  }, timeout);
}
