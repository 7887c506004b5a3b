/**
 * The prompts ET-Plan-Bench's released agent sends, and how its code reads the replies
 * (docs/et-plan.md, "The released protocol"). A benchmark's prompt is part of its definition, so
 * the texts are quoted from the public repository ET-Plan-Bench/ET-Plan-Bench, commit 07a935b:
 * navigation from evaluation_generation/navigation_tasks/gpt4_navigation*.py (CoT from
 * gpt4_navigation_rationale_CoT.py), single-object manipulation from
 * evaluation_generation/navigation_manipulation_tasks/EmbodiedAI/constant/prompt/data_gen.py, and
 * multi-object and temporal tasks from
 * evaluation_generation/navigation_manipulation_multiple_objects/inference_exploration_*.py.
 * Typos are the released text's own. Python list and set reprs are rendered as Python prints them.
 */

/** Which released prompt family a task family uses. */
export type PromptStyle = 'navigation' | 'embodied' | 'multi';

/** Prompting variants: the released default, chain of thought (the released CoT script), few-shot (ours). */
export const RELEASED_PROMPTING = ['plain', 'cot', 'few-shot'] as const;
export type ReleasedPrompting = (typeof RELEASED_PROMPTING)[number];

/** Python's repr of a string (single quotes unless the text holds one and no double quote). */
export function pyStr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s.replace(/\\/g, '\\\\')}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
export const pyList = (xs: readonly string[]): string => `[${xs.map(pyStr).join(', ')}]`;
/** A Python set of strings as printed; the order is ours (sorted: Python's is hash order, not reproducible). */
export const pySet = (xs: readonly string[]): string => (xs.length === 0 ? 'set()' : `{${[...new Set(xs)].sort().map(pyStr).join(', ')}}`);

const NO_AI = "Please do not output the answer like 'As an AI language model, I don not have the ability to physically determine the location of objects or bring them to you.'";
const NO_THINKING = 'Please do not output the thinking process.\n\n';
/** gpt4_navigation_rationale_CoT.py's suffix (its room prompt also fixes "don not" to "do not"). */
export const COT_SUFFIX = "Please output the thinking process and the final answer. The final answer should be in the last line and should follow the format mentioned above. Please do not output useless text in the line of final answer, such as 'The final answer:', 'The final answer is', and so on. Let's think step by step.";

/**
 * Few-shot examples (ours: the released scripts have no few-shot variant; the paper's Appendix A.10,
 * which reports one, is not available). Two worked question-answer pairs in the released format, put
 * before the question.
 */
const FEW_SHOT: Record<'rooms' | 'explore', string> = {
  rooms: "Example: for the object toothbrush and the room list ['kitchen', 'bathroom', 'bedroom', 'livingroom'], the answer is ['bathroom', 'bedroom', 'kitchen', 'livingroom'].\nExample: for the object pillow and the room list ['bedroom', 'kitchen', 'livingroom'], the answer is ['bedroom', 'livingroom', 'kitchen'].\n\n",
  explore: "Example: for the object milk and the visible objects ['fridge', 'wall', 'stove', 'floor'], the answer is ['fridge', 'stove'].\nExample: for the object towel and the visible objects ['ceiling', 'floor', 'wall'], the answer is None.\n\n",
};

export interface RoomsQuestion {
  style: PromptStyle;
  prompting: ReleasedPrompting;
  task: string;
  /** Class names of what is sought: one, or the object and its constraint's anchor. */
  objects: string[];
  /** Room class names in graph order (navigation, multi) or the apartment's room names (embodied). */
  rooms: string[];
}

export interface ExploreQuestion {
  style: PromptStyle;
  prompting: ReleasedPrompting;
  task: string;
  objects: string[];
  /** The room's class name (navigation, multi). */
  room: string;
  /** Class names offered: what the scan shows (navigation, multi) or the memory's unexplored items (embodied). */
  options: string[];
}

const finish = (text: string, q: { prompting: ReleasedPrompting }, kind: 'rooms' | 'explore'): string => {
  if (q.prompting === 'cot') return text + COT_SUFFIX;
  if (q.prompting === 'few-shot') return FEW_SHOT[kind] + text;
  return text;
};

/** The room-ranking prompt. */
export function roomsPrompt(q: RoomsQuestion): string {
  const noThinking = q.prompting === 'cot' ? '' : NO_THINKING;
  if (q.style === 'embodied') {
    const name = q.objects.join(' and ');
    return finish(`# ROOM_LIST\n${pySet(q.rooms)}\n# INSTRUCTION\nDetermine which room is most likely to contain ${name}. Please re-order the room names in the ROOM_LIST by their probability to contain ${name}.\n${NO_AI}\nOutput your answer inside [], like [room_name1, room_name2, room_name3, room_name4].\nThe rooms most probable to contain ${name} are: []\n`, q, 'rooms');
  }
  const head = q.style === 'multi' ? `Given the task: please find ${q.objects[0]}\n\n` : `Given the task: ${q.task}\n\n`;
  const what = q.objects.length === 2 ? `the object ${q.objects[0]} and the object ${q.objects[1]} in the meantime` : `the object ${q.objects[0]}`;
  const noAi = q.prompting === 'cot' ? NO_AI.replace('I don not', 'I do not') : NO_AI;
  return finish(`${head}Determine which room may contain ${what}, and the room list is ${pyList(q.rooms)}. Please ranking these rooms based on the possibility and only output a Python-style list.\n\nThe number of output rooms should be the same as the number of rooms in the original room list.\n\n${noAi}\n\n${noThinking}`, q, 'rooms');
}

/** The prompt that asks which objects to explore (which may hide the target). */
export function explorePrompt(q: ExploreQuestion): string {
  const noThinking = q.prompting === 'cot' ? '' : NO_THINKING;
  if (q.style === 'embodied') {
    const name = q.objects.join(' and ');
    return finish(`# OBJECT_LIST\n${pyList(q.options)}\n# INSTRUCTION\n${name} might be hidden by some other objects. ${name} might be most likely to be hidden or contained by which objects in the OBJECT_LIST?\nFrom OBJECT_LIST, select only those objects that you think ${name} might be likely inside or hidden behind, and order these objects by their probabilty to contain or to hide ${name} (with the most likely object put in the front). Then, output them in a Python-style list, like [object1,object2]. Please output no more than 5 such objects. If you think none of the objects is likely to contain or to hide ${name}, please output "None".\n`, q, 'explore');
  }
  const head = q.style === 'multi' ? `Given the task: please find ${q.objects[0]}\n\n` : `Given the task: ${q.task}\n\n`;
  const body = q.objects.length === 2
    ? `Currently, the robot is in the room ${q.room} and can see objects ${pyList(q.options)}. Is this possible the object ${q.objects[0]} and the object ${q.objects[1]} are located inside or obscured by one of these visible objects? If yes, please only output these possbile visible objects in a Python-style list, if not, please only output None.\n\n`
    : `Currently, the robot is in the room ${q.room} and can see objects ${pyList(q.options)}. Since the target object could be obscured by some larger visible objects, the robot needs to explore the room further. Is this possible the object ${q.objects[0]} is located inside or nearby one of these visible objects? If yes, please only output these possbile visible objects in a Python-style list and in the order of possibility, if not, please only output None.\n\n`;
  return finish(head + body + noThinking, q, 'explore');
}

/** With CoT the released code reads the last line only (a reply of one line is asked again). */
export function answerLine(reply: string, prompting: ReleasedPrompting): string | null {
  if (prompting !== 'cot') return reply;
  if (!reply.includes('\n')) return null;
  return reply.split('\n').at(-1)!;
}

/**
 * The navigation scripts' list reader: the text between the first `['` and the next `']` (or the
 * double-quoted pair), else the text as it is, split at `', '` (else `", "`).
 */
export function navigationList(text: string): string[] {
  let inner = text;
  if (text.startsWith("['") && text.endsWith("']")) inner = text.slice(2, -2);
  else if (text.startsWith('["') && text.endsWith('"]')) inner = text.slice(2, -2);
  else if (text.includes("['") && text.includes("']")) inner = text.split("['")[1].split("']")[0];
  else if (text.includes('["') && text.includes('"]')) inner = text.split('["')[1].split('"]')[0];
  return inner.includes("', '") ? inner.split("', '") : inner.split('", "');
}

/**
 * The navigation scripts' reader of the explore answer: exactly `None` is none; a list as above;
 * anything else gives no object.
 */
export function navigationExploreList(text: string): string[] | 'none' {
  if (text === 'None') return 'none';
  const quoted = (text.startsWith("['") && text.endsWith("']")) || (text.startsWith('["') && text.endsWith('"]')) ||
    (text.includes("['") && text.includes("']")) || (text.includes('["') && text.includes('"]'));
  return quoted ? navigationList(text) : [];
}

/** The manipulation code's reader (`process_gpt_answer(to_list=True)`): every `[...]`, split at commas, quotes and brackets removed; null without one. */
export function embodiedList(text: string): string[] | null {
  const flat = text.replace(/\n/g, '');
  const lists = flat.match(/\[.*?\]/g);
  if (lists === null) return null;
  return lists.flatMap((l) => l.split(',')).map((s) => s.replace(/['"[\]]/g, '').trim());
}
