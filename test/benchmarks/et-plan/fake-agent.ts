/**
 * A deterministic stand-in for a model on ET-Plan-Bench step prompts, for the fake endpoint
 * (test/mllm/fake-server.ts): from a hash of the prompt text it picks one action among walks to the
 * rooms and objects the prompt lists, grabs, opens and puts of what is held, after a line of
 * "thinking"; about one reply in eleven holds no action. The same text always gets the same reply.
 * On the released protocol's prompts (released-prompts.ts) it ranks the rooms as listed and names the
 * objects offered, or `None` about one time in five.
 */
import { createHash } from 'node:crypto';

export function fakeAgentReply(text: string): string {
  const h = createHash('sha256').update(text).digest().readUInt32BE(0);
  const rooms0 = /room list is (\[[^\]]*\])/.exec(text)?.[1] ?? /# ROOM_LIST\n\{([^}]*)\}/.exec(text)?.[1];
  if (rooms0 !== undefined) return rooms0.startsWith('[') ? rooms0 : `[${rooms0}]`;
  const offered = /can see objects (\[[^\]]*\])/.exec(text)?.[1] ?? /# OBJECT_LIST\n(\[[^\]]*\])/.exec(text)?.[1];
  if (offered !== undefined) return h % 5 === 0 ? 'None' : offered;
  if (h % 11 === 0) return 'I am not sure what to do here.';
  const objects = [...text.matchAll(/^\s*- (?:(?:inside|on): )?(\w+) \((\d+)\)/gm)].map((m) => [m[1], m[2]]);
  const rooms = [.../^Rooms: (.*)\.$/m.exec(text)?.[1].matchAll(/(\w+) \((\d+)\)/g) ?? []].map((m) => [m[1], m[2]]);
  const held = /^Holding: (\w+) \((\d+)\)/m.exec(text);
  const options = [...rooms, ...objects].map(([n, id]) => `[walk] <${n}> (${id})`);
  for (const [n, id] of objects) options.push(`[grab] <${n}> (${id})`, `[open] <${n}> (${id})`);
  if (held) for (const [n, id] of objects) options.push(`[putin] <${held[1]}> (${held[2]}) <${n}> (${id})`, `[putback] <${held[1]}> (${held[2]}) <${n}> (${id})`);
  if (options.length === 0) return 'Nothing to do.';
  return `Let me think about the task.\n${options[Math.floor(h / 11) % options.length]}`;
}
