/** mathjs's single-file build (package export `./lib/browser/math.js`) has no types of its own: it holds the main entry's functions. */
declare module 'mathjs/lib/browser/math.js' {
  const math: typeof import('mathjs');
  export default math;
}
