// Loaded with `node --import`: registers a module-resolution hook that writes `PKG <name>` to stderr
// for every npm package the process resolves, so a test can see what an import pulls in.
import { writeSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

const seen = new Set();

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (!/^(\.|\/|#|node:|file:|data:)/.test(specifier)) {
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    if (!seen.has(name)) {
      seen.add(name);
      writeSync(2, `PKG ${name}\n`);
    }
  }
  return result;
}
