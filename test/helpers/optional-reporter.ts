/**
 * Prints, at the end of a run, every optional check that was skipped and why (one line each), so a
 * plain clone's run says what it did not check. Optional checks are named by test/helpers/shared.ts.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class OptionalChecksReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped' || !test.fullName.includes('[optional check]')) continue;
        lines.push(`  - ${test.fullName.replace(/ \[optional check\].*$/, '')} (${mod.relativeModuleId}): ${result.note ?? 'skipped'}`);
      }
    }
    if (lines.length === 0) return;
    process.stdout.write(`\nOptional checks skipped (${lines.length}); they need material beside the repository (docs/testing.md):\n${lines.join('\n')}\n`);
  }
}
