/**
 * The docs cannot drift from the CLI and the pipeline schema: every shell and YAML block of README.md
 * and docs/*.md is marked for what it needs (test/helpers/docs-blocks.ts) and checked or run here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { checkGsrLine, checkShellBlock, checkYaml, extractBlocks, gsrArgs, markProblems, shellCommands, type DocBlock } from '../helpers/docs-blocks.js';

const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = DOCS.flatMap((f) => extractBlocks(readFileSync(join(REPO_ROOT, f), 'utf8'), f));
const program = buildProgram();

/** The CLI from source in `cwd` (tsx by its resolved location: the folder is outside the repository). */
function runIn(cwd: string, args: string[]) {
  const cli = join(REPO_ROOT, 'src', 'cli', 'main.ts');
  return spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), cli, ...args], { cwd, env: { ...process.env, GSR_PROGRESS: '0' }, encoding: 'utf8' });
}

describe('docs blocks', () => {
  it('finds the blocks', () => {
    expect(blocks.filter((b) => b.mark === 'cli').length).toBeGreaterThan(30);
    expect(blocks.filter((b) => b.mark === 'pipeline').length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((b) => b.mark === 'run').length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((b) => b.mark === 'output').length).toBeGreaterThanOrEqual(1);
  });

  it('every fenced block has a language, and every shell and YAML block a mark', () => {
    expect(blocks.flatMap(markProblems)).toEqual([]);
  });

  it('every gsr command line matches the CLI (subcommands, options, values, arguments)', () => {
    expect(blocks.filter((b) => b.mark === 'cli' || b.mark === 'run').flatMap((b) => checkShellBlock(program, b, REPO_ROOT))).toEqual([]);
  });

  it('every YAML block parses, and pipeline blocks pass the pipeline schema', () => {
    expect(blocks.filter((b) => b.mark === 'pipeline' || b.mark === 'yaml').flatMap(checkYaml)).toEqual([]);
  });

  it("docs/pipeline.md's table lists every shipped pipeline", () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/pipeline.md'), 'utf8');
    const shipped = readdirSync(join(REPO_ROOT, 'pipelines')).filter((f) => f.endsWith('.yaml'));
    expect(shipped.filter((f) => !text.includes(`| \`pipelines/${f}\` |`))).toEqual([]);
  });

  it('no shipped file cites a file the repository does not have', () => {
    const cited = readdirSync(join(REPO_ROOT, 'pipelines')).flatMap((f) =>
      [...readFileSync(join(REPO_ROOT, 'pipelines', f), 'utf8').matchAll(/\b((?:docs\/)?[A-Za-z-]+\.md)\b/g)].map((m) => ({ f, cite: m[1] })),
    );
    const exists = (p: string) => readdirSync(REPO_ROOT).includes(p) || readdirSync(join(REPO_ROOT, 'docs')).includes(p.replace(/^docs\//, ''));
    expect(cited.filter((c) => !exists(c.cite))).toEqual([]);
  });

  describe('run blocks, in an empty folder', () => {
    const dirs: string[] = [];
    afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
    for (const b of blocks.filter((x) => x.mark === 'run')) {
      it(`${b.file}:${b.line}`, () => {
        const cwd = mkdtempSync(join(tmpdir(), 'gsr-docs-'));
        dirs.push(cwd);
        let printed = '';
        for (const c of shellCommands(b.text)) {
          const args = gsrArgs(c.words);
          expect(args, `${b.file}:${b.line}: a run block holds only gsr commands (${c.source})`).not.toBeNull();
          const r = runIn(cwd, args!);
          expect(r.status, `${c.source}\n${r.stderr}`).toBe(0);
          printed += (r.stdout + r.stderr).replaceAll(`${cwd}/`, '');
        }
        // An `output` block right after shows what the commands print (paths relative to the folder,
        // spacing aside): every line of it must appear.
        const next = blocks[blocks.indexOf(b) + 1];
        if (next?.file === b.file && next.mark === 'output') {
          const squeeze = (l: string) => l.trim().replace(/\s+/g, ' ');
          const lines = new Set(printed.split('\n').map(squeeze));
          expect(next.text.split('\n').filter((l) => l.trim() !== '' && !lines.has(squeeze(l)))).toEqual([]);
        }
      }, 240_000); // a few CLI starts, each seconds long when the machine is loaded
    }
  });
});

describe('the checker fails on drift (synthetic docs)', () => {
  const doc = (body: string, mark = 'cli', lang = 'sh'): DocBlock[] => extractBlocks(`# t\n\n<!-- docs-test: ${mark} -->\n\`\`\`${lang}\n${body}\n\`\`\`\n`, 'synthetic.md');
  const check = (body: string) => doc(body).flatMap((b) => checkShellBlock(program, b, REPO_ROOT));
  const LINE = 'gsr score reasoning --prompts p.jsonl --responses r.jsonl --out results/m';

  it('passes a correct line, and fails once a flag in it is renamed in the doc', () => {
    expect(check(LINE)).toEqual([]);
    expect(check(LINE.replace('--responses', '--response')).join('\n')).toMatch(/unknown option --response\b/);
  });

  it('fails when the CLI renames a flag the doc uses', () => {
    const renamed = buildProgram();
    const score = renamed.commands.find((c) => c.name() === 'score')!.commands.find((c) => c.name() === 'reasoning')!;
    const opt = score.options.find((o) => o.long === '--responses')!;
    opt.long = '--answers';
    expect(doc(LINE).flatMap((b) => checkShellBlock(renamed, b, REPO_ROOT)).join('\n')).toMatch(/unknown option --responses/);
  });

  it('catches unknown subcommands, extra arguments, missing required options and values off the list', () => {
    expect(check('gsr prompts build --manifest m.jsonl --task tg --out p.jsonl').join('\n')).toMatch(/unexpected argument build/);
    expect(check('gsr dataset frobnicate --out x').join('\n')).toMatch(/unknown subcommand frobnicate/);
    expect(check('gsr score reasoning --prompts p.jsonl --out results/m').join('\n')).toMatch(/required option --responses missing/);
    // A sketch (`...`) need not give every required option.
    expect(check('gsr score reasoning --prompts p.jsonl ...')).toEqual([]);
  });

  it('reads shell structure: continuations, comments, env assignments, npx, loops, brackets', () => {
    expect(check('FOO=1 npx gsr score reasoning \\\n  --prompts p.jsonl --responses r.jsonl [--out results/m]   # --bogus in a comment')).toEqual([]);
    expect(check('for m in a b; do gsr models pull $m --bogus; done').join('\n')).toMatch(/unknown option --bogus/);
    expect(check('gsr review --annotations a.json --manifest m.jsonl\n  --bogus 1').join('\n')).toMatch(/continuation line without a backslash/);
    expect(check('gsr pipeline run pipelines/no-such.yaml').join('\n')).toMatch(/no such file in the repository: pipelines\/no-such.yaml/);
  });

  it('fails on an unmarked block, a block without a language and invalid pipeline YAML', () => {
    expect(extractBlocks('```sh\ngsr --help\n```\n', 'x.md').flatMap(markProblems)).toHaveLength(1);
    expect(extractBlocks('```\nout\n```\n', 'x.md').flatMap(markProblems)).toHaveLength(1);
    expect(doc('name: x\nout: o\ndataset:\n  whatsup: { root: ${ROOT} }', 'pipeline', 'yaml').flatMap(checkYaml).join('\n')).toMatch(/invalid YAML/);
    expect(doc('name: x\nout: o\nmodels: []\nbogus_key: 1', 'pipeline', 'yaml').flatMap(checkYaml)).not.toEqual([]);
  });

  it('parses a line against the program generically', () => {
    expect(checkGsrLine(program, ['--version'])).toEqual([]);
    expect(checkGsrLine(program, ['review', '--annotations', 'a.json', '--manifest', 'm.jsonl'])).toEqual([]);
  });
});
