import { GsrError } from './errors.js';

/**
 * A named set of plug-ins of one kind (detectors, segmenters, depth models, MLLM clients,
 * report writers). Plug-ins register a factory under a name; users pick them by that name.
 */
export class Registry<T> {
  private readonly factories = new Map<string, T>();

  constructor(readonly kind: string) {}

  register(name: string, factory: T): void {
    if (this.factories.has(name)) throw new Error(`${this.kind} "${name}" is already registered`);
    this.factories.set(name, factory);
  }

  get(name: string): T {
    const f = this.factories.get(name);
    if (f === undefined) {
      throw new GsrError(`unknown ${this.kind} "${name}" (available: ${this.names().join(', ') || 'none'})`);
    }
    return f;
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  names(): string[] {
    return [...this.factories.keys()].sort();
  }
}
