/**
 * The mathjs functions the statistics use, from mathjs's single-file build. Its main entry loads
 * about a thousand modules and builds every function up front (1.1 s of CPU, the largest part of
 * `npm start`'s start-up); the single file, of the same package and version, builds each function on
 * its first use (0.13 s). Same functions, same results (docs/pipeline.md, "Time per stage").
 */
import mathjs from 'mathjs/lib/browser/math.js';

export const { lgamma, matrix, multiply, pinv, qr, transpose } = mathjs;
export type { Matrix } from 'mathjs';
