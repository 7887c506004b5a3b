import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { integerIn, parseNumber } from '../parsers.js';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';
import { writeJsonAtomic } from '../../util/fs.js';

// The review library loads fastify, sharp and SQLite: load it only when a command runs.
const lib = () => import('../../review/index.js');

interface SessionCliOptions {
  annotations: string;
  manifest: string;
  journal?: string;
  depth?: string;
  reviewer?: string;
  segmenter: string;
  modelsDir: string;
}

/** The folder the review journal is written in (by default it lies beside the annotation file). */
const journalFolder = (o: SessionCliOptions) => dirname(o.journal ?? o.annotations);

async function openSession(o: SessionCliOptions) {
  const { ReviewSession } = await lib();
  return ReviewSession.open({
    annotations: o.annotations,
    manifest: o.manifest,
    journal: o.journal,
    depth: o.depth,
    reviewer: o.reviewer ?? process.env.USER ?? 'reviewer',
    segmenter: o.segmenter === 'none' ? null : { id: o.segmenter, modelsDir: resolve(o.modelsDir) },
  });
}

function sessionOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--annotations <file>', 'COCO annotation file to review (from gsr annotate or gsr dataset synth)')
    .requiredOption('--manifest <file>', 'manifest (JSONL) of the annotated items: captions, subject and object, images')
    .option('--journal <file>', 'review journal (SQLite); default review.sqlite beside the annotation file')
    .option('--depth <dir>', "folder the annotation file's depth_file paths resolve against (default: its folder)")
    .option('--reviewer <name>', 'name recorded with every edit (default: $USER, else "reviewer")')
    .option('--segmenter <id>', 'segmenter for re-segmenting an edited box, or none', 'slimsam-77-uniform')
    .option('--models-dir <dir>', 'folder holding the model files', 'models');
}

export function registerReview(program: Command): void {
  const review = program.command('review').description('Check and correct the pseudo-labels in a local web app; export the reviewed COCO file');

  sessionOptions(review.command('serve', { isDefault: true }).description('Serve the review app (127.0.0.1 unless --host is given)'))
    .option('--port <n>', 'port (0: any free port)', integerIn(0, 65535), 8737)
    .option('--host <addr>', 'address to bind; anything but loopback prints a one-time token the page must present', '127.0.0.1')
    .action(
      action(async (o: SessionCliOptions & { port: number; host: string }) => {
        const { serveReview } = await lib();
        const session = await openSession(o);
        let server;
        try {
          server = await serveReview(session, { host: o.host, port: o.port });
        } catch (err) {
          await session.close();
          throw err;
        }
        const reviewed = session.slots.length - [...session.labels().values()].filter((l) => l.state === 'unreviewed').length;
        notice(`${session.slots.length} labels (${reviewed} reviewed), journal ${session.options.journal}`);
        if (session.unannotated.length > 0) notice(`${session.unannotated.length} manifest items have no image in the annotation file (not shown)`);
        if (session.segmenterInstalled === false) notice(`segmenter ${o.segmenter} is not installed in ${resolve(o.modelsDir)} (gsr models pull ${o.segmenter}): box edits are kept without a new mask`);
        if (server.token) notice('bound beyond loopback: open the URL with its one-time token');
        process.stdout.write(`gsr review: ${server.url}\n`);
        const stop = async () => {
          notice('stopping');
          await server.close();
          await session.close();
          process.exit(0);
        };
        process.once('SIGINT', () => void stop());
        process.once('SIGTERM', () => void stop());
      }, (o) => ({ inside: [journalFolder(o)] })),
    );

  sessionOptions(review.command('export').description('Write the reviewed labels as COCO, with provenance per annotation'))
    .requiredOption('--out <file>', 'reviewed annotation file to write (COCO JSON)')
    .option('--json', 'print the counts as JSON')
    .action(
      action(async (o: SessionCliOptions & { out: string; json?: boolean }) => {
        const session = await openSession({ ...o, segmenter: 'none' });
        try {
          const counts = await session.exportTo(o.out);
          if (o.json) return printJson({ out: resolve(o.out), counts });
          process.stdout.write(`${Object.entries(counts).map(([k, v]) => `${k}: ${v}`).join(', ')}\nwrote ${resolve(o.out)}\n`);
        } finally {
          await session.close();
        }
      }, (o) => ({ files: [o.out], inside: [journalFolder(o)] })),
    );

  review
    .command('queue')
    .description('Print the review queue (most suspicious first); with --corrupted, the share of known errors it puts first')
    .requiredOption('--annotations <file>', 'COCO annotation file')
    .requiredOption('--manifest <file>', 'manifest (JSONL) of the annotated items')
    .option('--corrupted <file>', 'corruption list written by gsr review simulate')
    .option('--share <x>', 'head of the queue to measure (default 0.1)', parseNumber, 0.1)
    .option('--json', 'print JSON')
    .action(
      action(async (o: { annotations: string; manifest: string; corrupted?: string; share: number; json?: boolean }) => {
        const { buildSlots, buildQueue, recallAtShare } = await lib();
        const { readCocoFile } = await import('../../formats/coco.js');
        const { readManifestAll } = await import('../../formats/manifest.js');
        const { readJsonFile } = await import('../../util/jsonl.js');
        if (!(o.share > 0 && o.share <= 1)) throw new GsrError(`--share must be in (0, 1], got ${o.share}`);
        const coco = await readCocoFile(o.annotations);
        const { slots } = buildSlots(coco, await readManifestAll(o.manifest));
        const queue = buildQueue(slots, coco);
        let recall: number | null = null;
        if (o.corrupted) {
          const list = await readJsonFile<{ corrupted?: Array<{ key: string }> }>(o.corrupted);
          if (!Array.isArray(list.corrupted)) throw new GsrError(`${o.corrupted}: no "corrupted" list`);
          recall = recallAtShare(queue, new Set(list.corrupted.map((c) => c.key)), o.share);
        }
        if (o.json) return printJson({ labels: queue.length, share: o.share, recall, queue });
        for (const [i, e] of queue.entries()) {
          if (e.suspicion === 0) break;
          process.stdout.write(`${String(i + 1).padStart(5)}  ${e.suspicion.toFixed(2)}  ${JSON.stringify(e.key)}  ${e.reasons.map((r) => r.text).join('; ')}\n`);
        }
        if (recall !== null) process.stdout.write(`first ${Math.round(o.share * 100)}% of ${queue.length} labels hold ${(recall * 100).toFixed(1)}% of the corrupted ones\n`);
      }),
    );

  review
    .command('simulate')
    .description('Make pseudo-labels with known errors from exact synthetic truth (to try the queue and the relabel loop)')
    .requiredOption('--truth <file>', 'exact annotation file (gsr dataset synth)')
    .requiredOption('--out <file>', 'corrupted annotation file to write; the corruption list goes to FILE.corrupted.json')
    .option('--rate <x>', 'share of labels to corrupt', parseNumber, 0.08)
    .option('--seed <n>', 'seed', parseNumber, 1)
    .option('--kinds <list>', 'corruption kinds (wrong-place, part, loose, not-found)')
    .option('--jitter <x>', 'edge noise on clean boxes, share of the side', parseNumber, 0.02)
    .action(
      action(async (o: { truth: string; out: string; rate: number; seed: number; kinds?: string; jitter: number }) => {
        const { simulatePseudoLabels, CORRUPTION_KINDS } = await lib();
        const { readCocoFile, writeCocoFile } = await import('../../formats/coco.js');
        if (!(o.rate >= 0 && o.rate <= 1)) throw new GsrError(`--rate must be in [0, 1], got ${o.rate}`);
        const kinds = o.kinds?.split(',').map((k) => k.trim());
        for (const k of kinds ?? []) if (!(CORRUPTION_KINDS as readonly string[]).includes(k)) throw new GsrError(`unknown corruption kind "${k}" (known: ${CORRUPTION_KINDS.join(', ')})`);
        const truth = await readCocoFile(o.truth);
        const { coco, corrupted } = simulatePseudoLabels(truth, { seed: o.seed, rate: o.rate, kinds: kinds as never, jitter: o.jitter });
        const out = resolve(o.out);
        await writeCocoFile(out, { info: coco.info ?? {}, images: coco.images, annotations: coco.annotations, categories: coco.categories ?? [] });
        await writeJsonAtomic(`${out}.corrupted.json`, { truth: resolve(o.truth), seed: o.seed, rate: o.rate, corrupted });
        process.stdout.write(`corrupted ${corrupted.length} of ${truth.annotations.length} labels\nwrote ${out} and ${out}.corrupted.json\n`);
      }, (o) => ({ files: [o.out] })),
    );

  review
    .command('agreement')
    .description('Agreement of two reviewed files over the labels both reviewed: box IoU, Cohen kappa, disagreements')
    .argument('<a>', 'reviewed annotation file (gsr review export)')
    .argument('<b>', 'another reviewed annotation file over the same items')
    .option('--iou <t>', 'boxes below this IoU are a disagreement', parseNumber, 0.5)
    .option('--json', 'print JSON')
    .action(
      action(async (a: string, b: string, o: { iou: number; json?: boolean }) => {
        const { reviewAgreement } = await lib();
        const { readCocoFile } = await import('../../formats/coco.js');
        if (!(o.iou > 0 && o.iou <= 1)) throw new GsrError(`--iou must be in (0, 1], got ${o.iou}`);
        const summary = reviewAgreement(await readCocoFile(a), await readCocoFile(b), o.iou);
        if (o.json) return printJson(summary);
        const f = (v: number | null | undefined, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d));
        const k = summary.kappa;
        process.stdout.write(`labels reviewed in both: ${summary.n} (only in ${a}: ${summary.only_a}, only in ${b}: ${summary.only_b})\n`);
        process.stdout.write(`keep/remove: agreement ${f(k.observed)}, chance ${f(k.expected)}, Cohen kappa ${f(k.kappa)}\n`);
        const i = summary.iou;
        process.stdout.write(`box IoU where both kept the label (n = ${i.n}): mean ${f(i.mean)}, p10 ${f(i.p10)}, median ${f(i.median)}, p90 ${f(i.p90)}; >= 0.5: ${f(i.at_least['0.5'])}, >= 0.75: ${f(i.at_least['0.75'])}, >= 0.9: ${f(i.at_least['0.9'])}\n`);
        process.stdout.write(`disagreements to adjudicate: ${summary.disagreements.length}\n`);
        // JSON strings: labels and names typed by reviewers cannot inject terminal control sequences.
        const show = (d: (typeof summary.disagreements)[number]['a']) => (d.kind === 'keep' ? `keep [${d.box.map((v) => v.toFixed(0)).join(', ')}] by ${JSON.stringify(d.reviewer)}` : `remove (${JSON.stringify(d.reason)}) by ${JSON.stringify(d.reviewer)}`);
        for (const d of summary.disagreements) process.stdout.write(`  ${JSON.stringify(d.key)} ${JSON.stringify(d.phrase)}: ${d.why}${d.iou !== null ? ` IoU ${f(d.iou)}` : ''}; a: ${show(d.a)}; b: ${show(d.b)}\n`);
      }),
    );
}
