/**
 * The agent's actions: which engine actions it may use, their grammar as the prompt states it, how
 * the action is read from a reply (docs/et-plan.md, "The step prompt"). The one-arm rule is monitor.ts's.
 */
import { REL, type ActionName, type EngineState } from './engine/index.js';

/** Engine actions an agent may use (the paper's skills: navigation, open, close, grab, put, putin; plus find and drop). */
export const AGENT_ACTIONS = ['WALK', 'FIND', 'GRAB', 'OPEN', 'CLOSE', 'PUTIN', 'PUTBACK', 'DROP'] as const satisfies readonly ActionName[];

/** The action grammar shown in every step prompt. */
export const ACTION_GRAMMAR = [
  '[walk] <name> (id)                        walk into a room, or next to an object',
  '[find] <name> (id)                        walk next to an object and face it',
  '[grab] <object> (id)                      pick up an object next to you (needs a free hand)',
  '[open] <container> (id)                   open a container next to you (needs a free hand)',
  '[close] <container> (id)                  close a container next to you',
  '[putin] <object> (id) <container> (id)    put a held object into an open container next to you',
  '[putback] <object> (id) <surface> (id)    put a held object onto a surface next to you',
  '[drop] <object> (id)                      drop a held object where you are',
].join('\n');

const LEAD = /^(?:[-*>•]\s*|\d+[.)]\s*)+/u;
const LABEL = /^(?:next\s+)?(?:action|answer)\s*:\s*/iu;
const ACTION_START = /\[[\p{L}\p{N}_]+\]/gu;

/** One line with markdown list markers, backticks, an `Action:` label and a `<char0>` prefix removed. */
function cleanLine(line: string): string {
  let s = line.trim().replace(LEAD, '').replaceAll('`', '').trim();
  s = s.replace(LABEL, '').replace(LEAD, '').trim();
  return s.replace(/^<char0>\s*/iu, '');
}

/**
 * The action line of a reply: the last line that starts with `[verb]` once list markers, backticks,
 * an `Action:`/`Answer:` label and a `<char0>` prefix are removed; failing that, the text from the
 * last `[verb]` anywhere in the reply to the end of its line. Null when the reply has no `[verb]`.
 */
export function extractAction(reply: string): string | null {
  const lines = reply.split(/\r?\n/).map(cleanLine);
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].startsWith('[')) return lines[i];
  for (let i = lines.length - 1; i >= 0; i--) {
    const starts = [...lines[i].matchAll(ACTION_START)];
    if (starts.length) return lines[i].slice(starts[starts.length - 1].index);
  }
  return null;
}

/** Held ids, right hand first. */
export function heldBy(state: EngineState): number[] {
  const c = state.characterId;
  return [...state.out(c, REL.HOLDS_RH), ...state.out(c, REL.HOLDS_LH)];
}
