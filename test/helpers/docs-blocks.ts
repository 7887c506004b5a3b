/**
 * Checks the fenced blocks of the docs (test/structure/docs-blocks.test.ts). Every `sh`/`bash`/`yaml`
 * block carries a mark on the line before its fence, `<!-- docs-test: MODE -->`, saying what it needs:
 *
 * - `cli`: every `gsr` / `npx gsr` command line is checked against the CLI's own commander tree
 *   (subcommand, options, option values, arguments, required options); other commands are left alone.
 * - `run`: the block is run, line by line, by the CLI in an empty folder (cheap blocks on generated data).
 * - `pipeline`: the YAML is a whole pipeline file, checked against the pipeline schema.
 * - `yaml`: the YAML only has to parse (a file of another tool, e.g. docker compose).
 * - `output` (on a `text` block right after a `run` block): every line of it is printed by the run.
 *
 * Blocks with no language are refused: output and trees take `text`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { parseDocument } from 'yaml';
import { parsePipelineText } from '../../src/formats/pipeline-file.js';
import { PipelineSchema } from '../../src/formats/pipeline.js';
import { BenchPipelineSchema } from '../../src/pipeline/bench.js';

export const MODES = ['cli', 'run', 'pipeline', 'yaml'] as const;
export type Mode = (typeof MODES)[number];

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  mark: string | null;
  text: string;
}

const CHECKED_LANGS = new Set(['sh', 'bash', 'shell', 'yaml', 'yml']);
const MARK = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

/** The fenced blocks of a Markdown text, with the mark on the line before each. */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let open: { line: number; lang: string; mark: string | null; indent: number; fence: string; body: string[] } | null = null;
  lines.forEach((l, i) => {
    const m = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(l);
    if (!open) {
      if (!m) return;
      const before = i > 0 ? MARK.exec(lines[i - 1]) : null;
      open = { line: i + 1, lang: m[3], mark: before ? before[1] : null, indent: m[1].length, fence: m[2], body: [] };
    } else if (m && m[2].startsWith(open.fence) && m[3] === '') {
      blocks.push({ file, line: open.line, lang: open.lang, mark: open.mark, text: open.body.join('\n') });
      open = null;
    } else open.body.push(l.slice(Math.min(open.indent, l.length - l.trimStart().length)));
  });
  return blocks;
}

/** Problems with a block's language or mark (before its contents are looked at). */
export function markProblems(b: DocBlock): string[] {
  const at = `${b.file}:${b.line}`;
  if (b.lang === '') return [`${at}: a fenced block needs a language (\`text\` for output)`];
  if (!CHECKED_LANGS.has(b.lang)) return [];
  if (b.mark === null) return [`${at}: ${b.lang} block without a <!-- docs-test: MODE --> mark (${MODES.join(', ')})`];
  const shell = !b.lang.startsWith('y');
  const allowed: Mode[] = shell ? ['cli', 'run'] : ['pipeline', 'yaml'];
  if (!(allowed as string[]).includes(b.mark)) return [`${at}: mark "${b.mark}" on a ${b.lang} block (use ${allowed.join(' or ')})`];
  return [];
}

/** Splits a shell block into simple commands (continuations joined, comments dropped), each as words. */
export function shellCommands(text: string): Array<{ words: string[]; source: string }> {
  const joined = text.replace(/\\\n/g, ' ');
  const out: Array<{ words: string[]; source: string }> = [];
  for (const raw of joined.split('\n')) {
    const line = raw.replace(/^\s*\$\s+/, '');
    const words: string[] = [];
    let cur: string | null = null;
    let quote: string | null = null;
    const flush = () => {
      if (cur !== null) words.push(cur);
      cur = null;
    };
    const end = () => {
      flush();
      if (words.length) out.push({ words: words.splice(0), source: line.trim() });
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === quote) quote = null;
        else cur = (cur ?? '') + c;
      } else if (c === "'" || c === '"') {
        quote = c;
        cur = cur ?? '';
      } else if (c === '#' && cur === null) break;
      else if (/\s/.test(c)) flush();
      else if (c === ';' || c === '&' || (c === '|' && (line[i + 1] === '|' || /\s/.test(line[i - 1] ?? ' ')))) {
        end();
        if (line[i + 1] === c) i++;
      } else cur = (cur ?? '') + c;
    }
    end();
  }
  // Shell keywords before a command (`for ...; do gsr ...; done`).
  return out.map((c) => ({ ...c, words: c.words[0] === 'do' || c.words[0] === 'then' ? c.words.slice(1) : c.words }));
}

/** The `gsr` arguments of a command (after `VAR=value` assignments and `npx`), or null when it is not gsr. */
export function gsrArgs(words: string[]): string[] | null {
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  if (words[i] === 'npx') i++;
  return words[i] === 'gsr' ? words.slice(i + 1) : null;
}

/** The subcommand run when a group is given none (commander's `isDefault`). */
function defaultCommand(cmd: Command): Command | undefined {
  const name = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
  return name ? cmd.commands.find((c) => c.name() === name) : undefined;
}

const isPlaceholder = (v: string) => /^[A-Z][A-Z0-9_:.,-]*$|\||\.\.\.|\$|^</.test(v);
const optionName = (o: Option) => o.long ?? o.short ?? o.flags;

/**
 * Checks one `gsr` command line against the program's commander tree. Synopsis notation is allowed:
 * `[...]` around optional parts, `...` for "more", upper-case placeholders and `a|b` for values.
 * A line holding `...` is a sketch: its required options are not demanded.
 */
export function checkGsrLine(program: Command, args: string[]): string[] {
  const sketch = args.some((a) => a.includes('...'));
  const tokens = args.map((a) => a.replace(/^\[+|\]+$/g, '')).filter((a) => a !== '' && a !== '...');
  let cmd = program;
  const path = ['gsr'];
  const operands: string[] = [];
  const seen = new Set<Option>();
  const problems: string[] = [];
  let help = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.startsWith('-') && t.length > 1 && !/^-\d/.test(t)) {
      const [flag, inline] = t.includes('=') ? [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)] : [t, undefined];
      if (flag === '-h' || flag === '--help') {
        help = true;
        continue;
      }
      const fallback = defaultCommand(cmd);
      if (fallback) {
        cmd = fallback;
        path.push(fallback.name());
      }
      const opt = cmd.options.find((o) => o.long === flag || o.short === flag);
      if (!opt) {
        problems.push(`${path.join(' ')}: unknown option ${flag}`);
        continue;
      }
      // `--version` ends parsing, as `--help` does.
      if (opt.attributeName() === (cmd as unknown as { _versionOptionName?: string })._versionOptionName) help = true;
      if (opt.hidden) problems.push(`${path.join(' ')}: ${flag} is hidden (deprecated); use the current name`);
      seen.add(opt);
      const values: string[] = [];
      if (inline !== undefined) values.push(inline);
      else if (opt.required || opt.optional) {
        while (i + 1 < tokens.length && !(tokens[i + 1].startsWith('-') && tokens[i + 1].length > 1 && !/^-\d/.test(tokens[i + 1]))) {
          values.push(tokens[++i]);
          if (!opt.variadic) break;
        }
        if (opt.required && values.length === 0) problems.push(`${path.join(' ')}: ${flag} needs a value`);
      }
      for (const v of values) {
        if (opt.argChoices && !isPlaceholder(v) && !opt.argChoices.includes(v)) problems.push(`${path.join(' ')}: ${flag} ${v}: not one of ${opt.argChoices.join(', ')}`);
      }
      continue;
    }
    const sub = operands.length === 0 ? cmd.commands.find((c) => c.name() === t || c.aliases().includes(t)) : undefined;
    const fallback = sub ? undefined : defaultCommand(cmd);
    if (fallback) {
      // `gsr review FILE` runs the default subcommand (`serve`) with the word as its argument.
      cmd = fallback;
      path.push(fallback.name());
      i--;
      continue;
    }
    if (sub) {
      cmd = sub;
      path.push(sub.name());
      continue;
    }
    operands.push(t);
  }
  if (help) return problems;
  const where = path.join(' ');
  const hasAction = Boolean((cmd as unknown as { _actionHandler?: unknown })._actionHandler);
  if (!hasAction && cmd.commands.length > 0) {
    const names = cmd.commands.map((c) => c.name());
    return [...problems, operands.length ? `${where}: unknown subcommand ${operands[0]} (have ${names.join(', ')})` : `${where}: needs a subcommand (${names.join(', ')})`];
  }
  const declared = cmd.registeredArguments;
  const variadic = declared.some((a) => a.variadic);
  const excess = (cmd as unknown as { _allowExcessArguments?: boolean })._allowExcessArguments === true;
  if (!variadic && !excess && operands.length > declared.length) problems.push(`${where}: unexpected argument ${operands[declared.length]}`);
  const required = declared.filter((a) => a.required).length;
  if (!sketch && operands.length < required) problems.push(`${where}: missing argument <${declared[operands.length].name()}>`);
  if (!sketch) {
    for (const o of cmd.options) if (o.mandatory && !seen.has(o) && !o.envVar) problems.push(`${where}: required option ${optionName(o)} missing`);
  }
  return problems;
}

/** Files a command line names in the repository's own folders (pipelines/, notebooks/) must exist. */
export function repoPathProblems(root: string, words: string[]): string[] {
  return words.filter((w) => /^(pipelines|notebooks)\/[^*]+\.(ya?ml|ts)$/.test(w) && !existsSync(join(root, w))).map((w) => `no such file in the repository: ${w}`);
}

/** Environment references of a YAML text, set to a harmless value so every model and section is checked. */
function placeholderEnv(text: string): NodeJS.ProcessEnv {
  return Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1], '1']));
}

/** Checks a YAML block: it parses, and for `pipeline` passes the schema its `benchmark` key picks. */
export function checkYaml(b: DocBlock): string[] {
  const at = `${b.file}:${b.line}`;
  const doc = parseDocument(b.text);
  if (doc.errors.length) return [`${at}: invalid YAML: ${doc.errors[0].message.split('\n')[0]}`];
  if (b.mark !== 'pipeline') return [];
  const raw = doc.toJS() as Record<string, unknown> | null;
  const schema = raw && typeof raw === 'object' && 'benchmark' in raw ? BenchPipelineSchema : PipelineSchema;
  try {
    parsePipelineText(schema, b.text, at, placeholderEnv(b.text));
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/** Every problem of a `cli`-marked shell block. */
export function checkShellBlock(program: Command, b: DocBlock, root: string): string[] {
  const problems: string[] = [];
  // A line that starts with a flag continues the line before: without a backslash it would be lost.
  b.text.split('\n').forEach((l, i, all) => {
    if (/^\s*\[?--?[A-Za-z]/.test(l) && !/\\\s*$/.test(all[i - 1] ?? '')) problems.push(`${b.file}:${b.line + 1 + i}: a continuation line without a backslash on the line before`);
  });
  for (const c of shellCommands(b.text)) {
    const args = gsrArgs(c.words);
    const found = [...(args ? checkGsrLine(program, args) : []), ...repoPathProblems(root, c.words)];
    problems.push(...found.map((p) => `${b.file}:${b.line}: ${p} (in: ${c.source})`));
  }
  return problems;
}
