/**
 * A fixed-latency fake Chat Completions endpoint in its own process (for runner.bench.ts), so the
 * server does not share the runner's event loop. Prints its URL on stdout, then serves until killed.
 */
import { startFakeServer } from '../test/mllm/fake-server.js';

const latencyMs = Number(process.argv[2] ?? 50);
const server = await startFakeServer({ latencyMs });
process.stdout.write(server.url + '\n');
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
