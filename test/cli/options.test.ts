/**
 * Every option that parses or restricts its value rejects bad values through commander's
 * invalid-argument path: one `gsr: error:` line, exit 2, before any command runs. Plus the
 * deprecated spellings, which still work for one release with a notice.
 */
import { type Command, CommanderError, type Option } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import {
  collect,
  numberIn,
  integerIn,
  parseNonNegativeInt,
  parseNumber,
  parsePositiveInt,
  parseSeed,
} from '../../src/cli/parsers.js';
import { runCli } from '../helpers/cli.js';

function allCommands(cmd: Command, path: string[] = []): Array<{ cmd: Command; path: string[] }> {
  const here = path.length > 0 ? [{ cmd, path }] : [];
  return [...here, ...cmd.commands.flatMap((c) => allCommands(c, [...path, c.name()]))];
}

/** A program whose error output is captured and whose actions do nothing. */
function quietProgram(): { program: Command; errors: string[] } {
  const program = buildProgram();
  const errors: string[] = [];
  for (const { cmd } of [{ cmd: program }, ...allCommands(program)]) {
    cmd.configureOutput({ writeErr: (s) => errors.push(s), writeOut: () => {} });
    if ((cmd as unknown as { _actionHandler: unknown })._actionHandler) cmd.action(() => {});
  }
  return { program, errors };
}

function parseError(args: string[]): { error: CommanderError; output: string } {
  const { program, errors } = quietProgram();
  try {
    program.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return { error: err, output: errors.join('') };
    throw err;
  }
  throw new Error(`no error for ${args.join(' ')}`);
}

// Values each parser must refuse (the first is refused by every parser and every choice list).
const BAD: Array<[(value: string) => unknown, string[]]> = [
  [parsePositiveInt, ['zz', '0', '-1', '1.5', '', '1e400']],
  [parseNonNegativeInt, ['zz', '-1', '2.5', '']],
  [parseSeed, ['zz', '-1', '4294967296', '0.5', '']],
  [parseNumber, ['zz', '', 'Infinity', 'NaN']],
];

/** Options whose parser accepts any text (they collect repeated values). */
const FREE_TEXT = new Set([collect]);

describe('option values are checked by commander, one line, exit 2', () => {
  const program = buildProgram();
  const cases = allCommands(program).flatMap(({ cmd, path }) =>
    cmd.options
      .filter((o: Option) => (o.parseArg || o.argChoices) && !FREE_TEXT.has(o.parseArg as typeof collect))
      .map((o: Option) => [`${path.join(' ')} ${o.long}`, path, o] as const),
  );

  it('finds the numeric and enum options of every command', () => {
    const names = cases.map(([name]) => name);
    for (const expected of ['run --seed', 'run --concurrency', 'dataset synth --workers', 'score reasoning --mode', 'score grounding --iou', 'score grounding --box-format', 'prompts --task', 'annotate run --device', 'report --seed', 'analyze power --seed']) {
      expect(names).toContain(expected);
    }
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases)('%s', (_name, path, option) => {
    const known = BAD.find(([parser]) => parser === option.parseArg);
    const values = known ? known[1] : ['zz'];
    for (const value of values) {
      const { error, output } = parseError([...path, option.long!, value]);
      expect(error.code, `${option.long} ${value}`).toBe('commander.invalidArgument');
      expect(output).toMatch(new RegExp(`^gsr: error: option '${option.flags.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' argument '${value}' is invalid\\. .+\\n$`));
      expect(output.trim().split('\n')).toHaveLength(1);
      if (option.argChoices) expect(output).toContain(`Allowed choices are ${option.argChoices.join(', ')}.`);
    }
  });
});

describe('parsers accept what they should', () => {
  it('integers, seeds, numbers and ranges', () => {
    expect(parsePositiveInt('3')).toBe(3);
    expect(parseNonNegativeInt('0')).toBe(0);
    expect(parseSeed('4294967295')).toBe(4294967295);
    expect(parseNumber('-0.25')).toBe(-0.25);
    expect(numberIn(0, 1)('1')).toBe(1);
    expect(() => numberIn(0, 1)('0')).toThrow(/\(0, 1\]/);
    expect(numberIn(0, 1, true)('0')).toBe(0);
    expect(integerIn(0, 64)('64')).toBe(64);
    expect(() => integerIn(0, 64)('65')).toThrow(/0\.\.64/);
  });
});

describe('the process exits 2 on a usage error, 1 on a failing command', () => {
  it('gsr run --seed -1: one line, exit 2, no stack', () => {
    const r = runCli(['run', '--prompts', 'p.jsonl', '--model', 'm', '--store', 's.sqlite', '--seed', '-1']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("gsr: error: option '--seed <n>' argument '-1' is invalid. Expected an integer in 0..4294967295.\n");
  });

  it('unknown options and commands are usage errors too; --help is not', () => {
    const missing = runCli(['score', 'reasoning', '--responses', 'r']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("gsr: error: required option '--prompts <file>' not specified\n");
    // An unknown option is the mistake named, even when a required option is missing too.
    const unknown = runCli(['score', 'reasoning', '--no-such-flag']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('gsr: error: unknown option --no-such-flag\n');
    expect(runCli(['annotate', 'run', '--help']).status).toBe(0);
  });
});

describe('unknown options', () => {
  it('a mistyped option is named as unknown, with the nearest flag, before missing required options', () => {
    const { error, output } = parseError(['prompts', '--manifset', 'm.jsonl', '--task', 'mc', '--out', 'o.jsonl']);
    expect(error.code).toBe('commander.unknownOption');
    expect(output).toBe('gsr: error: unknown option --manifset (did you mean --manifest?)\n');
  });

  it('an unknown command names the nearest one', () => {
    const { error, output } = parseError(['scroe']);
    expect(error.code).toBe('commander.unknownCommand');
    expect(output).toBe('gsr: error: unknown command scroe (did you mean score?)\n');
  });
});

describe('deprecated spellings still work, with a notice', () => {
  let stderr: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    stderr = [];
  });
  function capture(): void {
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (stderr.push(String(s)), true));
  }
  function parsed(args: string[]): Command {
    const { program } = quietProgram();
    capture();
    program.parse(args, { from: 'user' });
    let cmd: Command = program;
    for (const name of args) {
      const sub = cmd.commands.find((c) => c.name() === name);
      if (!sub) break;
      cmd = sub;
    }
    return cmd;
  }

  it('gsr annotate IMAGES runs `annotate run`', () => {
    const { program } = quietProgram();
    let got: unknown[] = [];
    program.commands.find((c) => c.name() === 'annotate')!.commands.find((c) => c.name() === 'run')!.action((images: string[], o: unknown) => {
      got = [images, o];
    });
    capture();
    program.parse(['annotate', 'a.jpg', 'b.jpg', '--objects', 'mug,table', '--out', 'o', '--restart'], { from: 'user' });
    expect(got[0]).toEqual(['a.jpg', 'b.jpg']);
    expect(got[1]).toMatchObject({ objects: 'mug,table', out: 'o', force: true });
    expect(stderr.join('')).toMatch(/"gsr annotate IMAGES\|--manifest \.\.\." is deprecated .* use "gsr annotate run \.\.\."/);
    expect(stderr.join('')).toMatch(/--restart is deprecated .* use --force/);
  });

  it('gsr annotate run and gsr annotate quality print no notice', () => {
    parsed(['annotate', 'run', 'a.jpg', '--out', 'o']);
    parsed(['annotate', 'quality', '--pred', 'p.json', '--truth', 't.json']);
    expect(stderr.join('')).toBe('');
  });

  it('gsr annotate alone shows the group help as an error', () => {
    const { error, output } = parseError(['annotate']);
    expect(error.exitCode).not.toBe(0);
    expect(output).toMatch(/Commands:\n\s+run \[options\] \[images\.\.\.\][\s\S]*quality/);
  });

  it('report --regression-y/-x, responses import --replace, run and annotate --retry-failed', () => {
    const report = parsed(['report', '--results', 'r', '--out', 'o.html', '--regression-y', 'a:b:c', '--regression-x', 'd:e']);
    expect(report.opts()).toMatchObject({ y: 'a:b:c', x: 'd:e' });
    const imp = parsed(['responses', 'import', 'f.jsonl', '--model', 'm', '--store', 's', '--replace']);
    expect(imp.opts()).toMatchObject({ force: true });
    expect(stderr.join('')).toMatch(/--regression-y is deprecated[\s\S]*--regression-x is deprecated[\s\S]*--replace is deprecated .* use --force/);
    expect(parsed(['run', '--prompts', 'p', '--model', 'm', '--store', 's']).opts().retryFailed).toBeUndefined();
    expect(parsed(['run', '--prompts', 'p', '--model', 'm', '--store', 's', '--no-retry-failed']).opts().retryFailed).toBe(false);
    expect(parsed(['annotate', 'run', '--out', 'o', '--retry-failed']).opts().retryFailed).toBe(true);
  });

  it('the old names are hidden from help', () => {
    const { program } = quietProgram();
    const help = allCommands(program).map(({ cmd }) => cmd.helpInformation()).join('\n');
    for (const old of ['--restart', '--replace', '--regression-y', '--regression-x']) expect(help).not.toContain(old);
  });
});
