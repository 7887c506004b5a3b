/**
 * Takes the lock of the folder in argv[2] (or, with argv[3] = "file", declares a write of the file in
 * argv[2]), says "held" on stdout, and waits to be killed.
 */
import { holdOutputFile, lockOutputFolder } from '../../src/util/lock.js';

if (process.argv[3] === 'file') holdOutputFile(process.argv[2]!, 'file holder');
else lockOutputFolder(process.argv[2]!, 'lock holder');
process.stdout.write('held\n');
setInterval(() => {}, 1 << 30);
