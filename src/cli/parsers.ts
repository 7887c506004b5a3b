/**
 * Option-value parsers and option helpers shared by the commands. Parsers run inside commander's
 * parsing, before any action: they throw commander's InvalidArgumentError, so commander prints
 * `gsr: error: option '--x <n>' argument 'v' is invalid. ...` on one line and the CLI exits 2
 * (main.ts maps every usage error to 2).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { GsrError } from '../util/errors.js';
import { notice } from '../util/log.js';

/** Exit code of usage errors (bad option values, unknown options or commands, missing arguments). */
export const USAGE_EXIT_CODE = 2;

/** A usage mistake found in an action (flags that do not go together): exit code 2. */
export function usageError(message: string): GsrError {
  return new GsrError(message, USAGE_EXIT_CODE);
}

function integer(value: string): number | null {
  const n = Number(value);
  return value.trim() !== '' && Number.isInteger(n) ? n : null;
}

/** A positive integer. */
export function parsePositiveInt(value: string): number {
  const n = integer(value);
  if (n === null || n <= 0) throw new InvalidArgumentError('Expected a positive integer.');
  return n;
}

/** A non-negative integer. */
export function parseNonNegativeInt(value: string): number {
  const n = integer(value);
  if (n === null || n < 0) throw new InvalidArgumentError('Expected a non-negative integer.');
  return n;
}

/** A random seed: an integer in 0..2^32-1, the same range for every command. */
export function parseSeed(value: string): number {
  const n = integer(value);
  if (n === null || n < 0 || n > 0xffffffff) throw new InvalidArgumentError('Expected an integer in 0..4294967295.');
  return n;
}

/** A comma-separated list of non-negative integers (e.g. `10,20,50`). */
export function parseIntList(value: string): number[] {
  const parts = value.split(',').map((v) => v.trim());
  const out = parts.map(integer);
  if (parts.length === 0 || out.some((n) => n === null || n < 0)) throw new InvalidArgumentError('Expected a comma-separated list of non-negative integers.');
  return out as number[];
}

/** A comma-separated list of allowed values. */
export function listOf(choices: readonly string[]): (value: string) => string[] {
  return (value: string) => {
    const xs = value.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = xs.find((x) => !choices.includes(x));
    if (xs.length === 0 || bad !== undefined) throw new InvalidArgumentError(`expected a comma-separated list of ${choices.join(', ')}${bad ? ` (got "${bad}")` : ''}`);
    return [...new Set(xs)];
  };
}

/** A finite number. */
export function parseNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('Expected a number.');
  return n;
}

/** A number in (low, high], or [low, high] with `closed`. */
export function numberIn(low: number, high: number, closed = false): (value: string) => number {
  return (value: string) => {
    const n = parseNumber(value);
    if (n > high || n < low || (!closed && n === low)) throw new InvalidArgumentError(`Expected a number in ${closed ? '[' : '('}${low}, ${high}].`);
    return n;
  };
}

/** An integer in low..high. */
export function integerIn(low: number, high: number): (value: string) => number {
  return (value: string) => {
    const n = integer(value);
    if (n === null || n < low || n > high) throw new InvalidArgumentError(`Expected an integer in ${low}..${high}.`);
    return n;
  };
}

/** Puts a library parser that throws GsrError on commander's invalid-argument path. */
export function fromLibrary<T>(parse: (value: string) => T): (value: string) => T {
  return (value: string) => {
    try {
      return parse(value);
    } catch (err) {
      if (err instanceof GsrError) throw new InvalidArgumentError(err.message);
      throw err;
    }
  };
}

/** An option whose value must be one of `choices` (commander checks it and lists them on error). */
export function choiceOption(flags: string, description: string, choices: readonly string[], defaultValue?: string): Option {
  const option = new Option(flags, description).choices(choices);
  return defaultValue === undefined ? option : option.default(defaultValue);
}

/** Appends each use of a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Keeps an old spelling of an option working for one release: hidden from help, a deprecation notice
 * on stderr, and the value given to the option that replaced it.
 */
export function deprecatedOption(cmd: Command, flags: string, replacement: string): Command {
  const old = new Option(flags).hideHelp();
  const target = cmd.options.find((o) => o.long === replacement);
  // Values pass through unparsed: only options without a parser get aliases.
  if (!target || target.parseArg) throw new Error(`${replacement} is not an option of ${cmd.name()} without a parser`);
  cmd.addOption(old);
  cmd.on(`option:${old.name()}`, (value?: string) => {
    notice(`${old.long} is deprecated and will be removed in the next release; use ${replacement}`);
    cmd.setOptionValueWithSource(target.attributeName(), value ?? true, 'cli');
  });
  return cmd;
}
