import type { ClaimResult, RunStore, StoredResponse } from './store.js';

/**
 * Group commit: claims and responses that arrive in the same event-loop turn go to the store in one
 * transaction (flushed on setImmediate, so within milliseconds). Each caller's promise settles only
 * after its row is committed, so nothing is reported done before it is durable against a crash.
 */
export class StoreBatcher {
  private claims: Array<{ key: string; resolve: (r: ClaimResult) => void; reject: (e: unknown) => void }> = [];
  private commits: Array<{ row: StoredResponse; resolve: () => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly store: RunStore,
    private readonly model: string,
    private readonly settings: string,
    private readonly leaseMs: number,
  ) {}

  claim(key: string): Promise<ClaimResult> {
    return new Promise((resolve, reject) => {
      this.claims.push({ key, resolve, reject });
      this.schedule();
    });
  }

  commit(row: StoredResponse): Promise<void> {
    return new Promise((resolve, reject) => {
      this.commits.push({ row, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const claims = this.claims.splice(0);
    const commits = this.commits.splice(0);
    let results: ClaimResult[];
    try {
      results = this.store.transaction(() => {
        for (const c of commits) this.store.commit(c.row);
        return claims.map((c) => this.store.claim(c.key, this.model, this.settings, this.leaseMs));
      });
    } catch (err) {
      for (const c of [...claims, ...commits]) c.reject(err);
      return;
    }
    claims.forEach((c, i) => c.resolve(results[i]));
    for (const c of commits) c.resolve();
  }
}
