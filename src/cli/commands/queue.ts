import type { Command } from 'commander';
import { action, printJson } from '../action.js';

interface QueueFlags {
  queue: string;
  run?: string;
  json?: boolean;
}

const lib = () => import('../../queue/index.js');

export function registerQueue(program: Command): void {
  const group = program.command('queue').description('Inspect and clean up queued runs on a Redis (see docs/scale-out.md)');
  const flags = (cmd: Command) =>
    cmd.requiredOption('--queue <url>', 'Redis URL redis://HOST:PORT[/DB]').option('--run <id>', 'only this run (default: every gsr run on this Redis)').option('--json', 'print the result as JSON');
  flags(group.command('status').description('Queued runs: jobs waiting, in flight, finished, failed; workers attached')).action(
    action(async (o: QueueFlags) => {
      const runs = await (await lib()).queueStatus(o.queue, o.run);
      if (o.json) return printJson(runs);
      if (runs.length === 0) return void process.stdout.write('no queued runs\n');
      for (const r of runs) {
        process.stdout.write(
          `${r.id}  ${r.kind.padEnd(8)} workers ${r.workers} | waiting ${r.waiting} | in flight ${r.active} | delayed ${r.delayed} | finished ${r.completed} | failed ${r.failed} | since ${r.created} | ${r.out}\n`,
        );
      }
    }),
  );
  flags(group.command('drain').description('Stop handing out a run\'s jobs: remove those not started and unregister the run')).action(
    action(async (o: QueueFlags) => {
      const drained = await (await lib()).drainQueue(o.queue, o.run);
      if (o.json) return printJson(drained);
      for (const d of drained) process.stdout.write(`${d.id}: ${d.removed} jobs removed, run unregistered\n`);
    }),
  );
  flags(group.command('clean').description('Delete a run and all its jobs from Redis')).action(
    action(async (o: QueueFlags) => {
      const cleaned = await (await lib()).cleanQueue(o.queue, o.run);
      if (o.json) return printJson(cleaned);
      process.stdout.write(cleaned.length === 0 ? 'nothing to clean\n' : cleaned.map((id) => `${id}: deleted\n`).join(''));
    }),
  );
}
