import { describe, expect, it } from 'vitest';
import { parsePythonJson } from '../../src/util/python-json.js';

describe('parsePythonJson', () => {
  it("reads Python's bare NaN and infinities as null, and leaves them alone inside strings", () => {
    expect(parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity, 1], "c": "NaN and \\"Infinity\\"", "d": -1.5e3}')).toEqual({ a: null, b: [null, null, 1], c: 'NaN and "Infinity"', d: -1500 });
    expect(parsePythonJson('[{"x": "a\\\\"}, NaN]')).toEqual([{ x: 'a\\' }, null]);
  });

  it('refuses what is not JSON otherwise', () => {
    expect(() => parsePythonJson('{"a": nan}')).toThrow();
    expect(() => parsePythonJson('{"a": NaNa}')).toThrow();
  });
});
