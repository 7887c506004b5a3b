/**
 * Property tests on random scripts over the project's apartment (apartment.ts), in both modes:
 * failed steps change nothing, the character is always INSIDE exactly one room, hands hold at most
 * one thing each and a held thing has exactly one HOLDS edge, grab then drop keeps the object in the
 * character's room, open then close gives back the same state.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineGraph, EngineState, REL, ScriptRun, roomOf, type EngineMode } from '../../../src/benchmarks/et-plan/engine/index.js';
import { apartment } from './apartment.js';

const graph = EngineGraph.fromJson(apartment());
const C = graph.characterId;
const VERBS = ['walk', 'run', 'find', 'grab', 'open', 'close', 'putback', 'putin', 'putobjback', 'switchon', 'switchoff', 'drop', 'sit', 'standup', 'turnto', 'lookat', 'drink'];
const ids = [...graph.ids, 99];
const name = (id: number) => graph.node(id)?.className ?? 'ghost';
const param = fc.constantFrom(...ids).map((id) => `<${name(id)}> (${id})`);
const line = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(fc.constantFrom(...VERBS), param, param).map(([v, a, b]) => (v === 'standup' ? '[standup]' : v === 'putback' || v === 'putin' ? `[${v}] ${a} ${b}` : `[${v}] ${a}`)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);
const script = fc.array(line, { minLength: 1, maxLength: 16 });
const mode = fc.constantFrom<EngineMode>('reference', 'repaired');
const grabbables = graph.ids.filter((id) => graph.node(id)!.properties.has('GRABBABLE'));
const openables = graph.ids.filter((id) => graph.node(id)!.properties.has('CAN_OPEN'));

/** Runs a script and returns the run (every step checked by `each`). */
function play(lines: string[], m: EngineMode, each: (before: EngineState, after: EngineState, ok: boolean) => void = () => {}): ScriptRun {
  const r = new ScriptRun(EngineState.initial(graph), { mode: m });
  for (const l of lines) {
    const before = r.state;
    const s = r.step(l);
    each(before, s.state, s.ok);
  }
  return r;
}

function holdsCount(s: EngineState, x: number): number {
  return s.in(x, REL.HOLDS_RH).length + s.in(x, REL.HOLDS_LH).length;
}

describe('engine properties', () => {
  it('a failed step never changes the state', () => {
    fc.assert(
      fc.property(script, mode, (lines, m) => {
        play(lines, m, (before, after, ok) => {
          if (!ok) expect(after).toBe(before);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('the character is always INSIDE exactly one room; each hand holds at most one thing, held by exactly one HOLDS edge', () => {
    fc.assert(
      fc.property(script, mode, (lines, m) => {
        play(lines, m, (_b, s) => {
          const inside = s.out(C, REL.INSIDE);
          expect(inside).toHaveLength(1);
          expect(graph.node(inside[0])!.isRoom).toBe(true);
          expect(s.out(C, REL.HOLDS_RH).length).toBeLessThanOrEqual(1);
          expect(s.out(C, REL.HOLDS_LH).length).toBeLessThanOrEqual(1);
          for (const h of [...s.out(C, REL.HOLDS_RH), ...s.out(C, REL.HOLDS_LH)]) expect(holdsCount(s, h)).toBe(1);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('grab then drop: held by one HOLDS edge and INSIDE the character room; after the drop, held by none and still there', () => {
    let grabbed = 0;
    fc.assert(
      fc.property(script, mode, fc.constantFrom(...grabbables), (lines, m, x) => {
        const r = play(lines, m);
        if (!r.step(`[walk] <${name(x)}> (${x})`).ok || !r.step(`[grab] <${name(x)}> (${x})`).ok) return;
        grabbed++;
        const room = roomOf(r.state, C)!;
        expect(holdsCount(r.state, x)).toBe(1);
        expect(r.state.has(x, REL.INSIDE, room)).toBe(true);
        expect(r.step(`[drop] <${name(x)}> (${x})`).ok).toBe(true);
        expect(holdsCount(r.state, x)).toBe(0);
        expect(r.state.has(x, REL.INSIDE, room)).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(grabbed).toBeGreaterThan(50);
  });

  it('open then close gives back the state it started from', () => {
    let opened = 0;
    fc.assert(
      fc.property(script, mode, fc.constantFrom(...openables), (lines, m, x) => {
        const r = play(lines, m);
        if (!r.step(`[walk] <${name(x)}> (${x})`).ok) return;
        const before = r.state;
        if (!r.step(`[open] <${name(x)}> (${x})`).ok) return;
        opened++;
        expect(r.step(`[close] <${name(x)}> (${x})`).ok).toBe(true);
        expect(r.state.fingerprint()).toBe(before.fingerprint());
      }),
      { numRuns: 300 },
    );
    expect(opened).toBeGreaterThan(20);
  });
});
