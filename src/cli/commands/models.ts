import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import type { PulledFile } from '../../perception/pull.js';
import { GsrError } from '../../util/errors.js';

// Loaded when a command runs (src/cli/program.ts, "Lazy loading"): the store opens onnxruntime.
const lib = async () => ({
  ...(await import('../../perception/manifest.js')),
  ...(await import('../../perception/pull.js')),
  ...(await import('../../perception/store.js')),
  ...(await import('../../formats/models-lock.js')),
});

interface CommonOpts {
  modelsDir: string;
  manifests?: string;
  json?: boolean;
}

/** --manifests, or undefined for the package's own models/. */
function manifestDirOf(opts: CommonOpts): string | undefined {
  return opts.manifests ? resolve(opts.manifests) : undefined;
}

function mib(bytes: number | null): string {
  return bytes === null ? '?' : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** How `models pull` says a file was checked. */
const CHECKS: Record<PulledFile['verified'], string> = {
  manifest: 'sha256 ok',
  'hub-sha256': "sha256 ok (the hub's)",
  'hub-git-sha1': "git blob sha1 ok (the hub's)",
  lock: 'sha256 ok (the lock\'s)',
  none: 'not verified (no hash known)',
};

function common(cmd: Command): Command {
  return cmd
    .option('--models-dir <dir>', 'folder holding <id>/ model files', 'models')
    .option('--manifests <dir>', "folder of model manifests (<id>.json); default: the package's models/")
    .option('--json', 'print the result as JSON');
}

export function registerModels(program: Command): void {
  const models = program.command('models').description('List, download and verify the ONNX perception models');

  common(models.command('list').description('Show each model: installed or missing, size, licence')).action(
    action(async (opts: CommonOpts) => {
      const { listModels } = await lib();
      const rows = await listModels(resolve(opts.modelsDir), manifestDirOf(opts));
      if (opts.json) {
        printJson(rows);
        return;
      }
      const body = rows.map((r) => [r.id, r.task, r.status, mib(r.bytes), r.licence]);
      process.stdout.write(`${table([['id', 'task', 'status', 'size', 'licence'], ...body])}\n`);
      process.stdout.write(`models dir: ${resolve(opts.modelsDir)}\n`);
    }),
  );

  common(models.command('pull').description("Download a model into <models-dir>/<id>/ from its pinned revision (resumes; checks size and sha256, records them in <models-dir>/models.lock.json)"))
    .argument('<id>', 'model id (see `gsr models list`)')
    .option('--update', 'take files that differ from the lock and rewrite it (installed files are checked against the hub too)')
    .action(
      action(async (id: string, opts: CommonOpts & { update?: boolean }) => {
        const { getManifest, modelsLockPath, pullModel } = await lib();
        const manifest = await getManifest(id, manifestDirOf(opts));
        const modelsDir = resolve(opts.modelsDir);
        const files = await pullModel(manifest, modelsDir, { update: opts.update });
        if (opts.json) {
          printJson({ id, lock: modelsLockPath(modelsDir), files });
          return;
        }
        for (const f of files) {
          process.stdout.write(`${f.action.padEnd(10)} ${f.path} (${mib(f.bytes)}, ${CHECKS[f.verified]}, revision ${f.revision ?? 'unknown'})\n`);
        }
        process.stdout.write(`lock: ${modelsLockPath(modelsDir)}\n`);
      }, (id, o) => ({ inside: [join(o.modelsDir, id)] })),
    );

  common(models.command('verify').description("Load a model's files and check them against its contract (names, dtypes, shapes)"))
    .argument('<id|path>', 'installed model id, or an ONNX file')
    .option('--model <id>', 'for a file: the model whose contract to check against (default: every known contract)')
    .option('--role <role>', 'for a file: the file role (model, encoder, decoder)')
    .action(
      action(async (target: string, opts: CommonOpts & { model?: string; role?: string }) => {
        const { getManifest, listManifests, verifyInstalled, verifyPath } = await lib();
        const manifestDir = manifestDirOf(opts);
        const known = (await listManifests(manifestDir)).some((m) => m.id === target);
        if (known && !(existsSync(target) && statSync(target).isFile())) {
          const checks = await verifyInstalled(await getManifest(target, manifestDir), resolve(opts.modelsDir));
          const ok = checks.every((c) => c.ok);
          if (opts.json) printJson({ id: target, ok, files: checks });
          else for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.role} ${c.path}${c.problems.length ? `: ${c.problems.join('; ')}` : ''}\n`);
          if (!ok) throw new GsrError(`${target}: ${checks.filter((c) => !c.ok).map((c) => `${c.role}: ${c.problems.join('; ')}`).join(' | ')}`);
          return;
        }
        if (!existsSync(target)) throw new GsrError(`"${target}" is neither a known model id nor a file`);
        const r = await verifyPath(resolve(target), opts.model, opts.role, manifestDir);
        const ok = r.matches.length > 0;
        if (opts.json) printJson({ ...r, ok });
        else if (ok) process.stdout.write(`ok   ${r.path} matches ${r.matches.map((m) => `${m.id} ${m.role}`).join(', ')}\n`);
        if (!ok) {
          const against = r.checkedAgainst ? `${r.checkedAgainst.id} ${r.checkedAgainst.role}` : 'any contract';
          throw new GsrError(`${r.path} does not match the ${against} contract: ${r.problems.join('; ')}`);
        }
      }),
    );
}
