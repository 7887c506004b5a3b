/** Takes the lock of the folder in argv[2], says "held" on stdout, and waits to be killed. */
import { lockOutputFolder } from '../../src/util/lock.js';

lockOutputFolder(process.argv[2]!, 'lock holder');
process.stdout.write('held\n');
setInterval(() => {}, 1 << 30);
