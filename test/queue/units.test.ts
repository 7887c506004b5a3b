import { describe, expect, it } from 'vitest';
import { checkedResultFile, DEFAULT_SHARD_SIZE, limiterFor, promptJobId, reconnectDelayMs, redisOptions, safeQueueUrl } from '../../src/queue/index.js';
import { runCli } from '../helpers/cli.js';

describe('queue settings', () => {
  it('reads Redis URLs, and says what is wrong with a bad one in one line', () => {
    expect(redisOptions('redis://10.0.0.5:6380/2')).toMatchObject({ host: '10.0.0.5', port: 6380, db: 2, maxRetriesPerRequest: null });
    expect(redisOptions('redis://localhost')).toMatchObject({ host: 'localhost', port: 6379, db: 0 });
    expect(redisOptions('rediss://u:p%40ss@h:1/0')).toMatchObject({ username: 'u', password: 'p@ss', tls: {} });
    expect(() => redisOptions('localhost:6379')).toThrow(/must start with redis:\/\//);
    expect(() => redisOptions('not a url')).toThrow(/must be a Redis URL/);
    expect(() => redisOptions('redis://h:1/x')).toThrow(/database number/);
    expect(safeQueueUrl('redis://u:secret@h:1/0')).not.toContain('secret');
  });

  it('backs off reconnects from 100 ms, doubling, to 5 s', () => {
    expect([1, 2, 3, 6, 7, 50].map(reconnectDelayMs)).toEqual([100, 200, 400, 3200, 5000, 5000]);
  });

  it('turns a rate into ~100 ms limiter windows whose rate is the one asked for', () => {
    for (const r of [1, 7, 50, 100, 200, 333, 1000]) {
      const { max, duration } = limiterFor(r);
      expect(max).toBeGreaterThanOrEqual(1);
      expect(Math.abs((max * 1000) / duration - r) / r).toBeLessThan(0.02);
      expect(duration).toBeLessThanOrEqual(1000);
    }
    expect(limiterFor(200)).toEqual({ max: 20, duration: 100 });
  });

  it('names prompt jobs by a hash of the key (stable, BullMQ-safe)', () => {
    expect(promptJobId('a:b/c')).toBe(promptJobId('a:b/c'));
    expect(promptJobId('a:b/c')).toMatch(/^p-[0-9a-f]{32}$/);
    expect(promptJobId('x')).not.toBe(promptJobId('y'));
  });
});

describe('files in a queue result', () => {
  const entry = { type: 'done' as const, item_id: 'a', annotations: [], image: { file_name: 'a.png', width: 1, height: 1, item_id: 'a', depth_file: 'depth/a.png', overlay_file: 'overlays/a.png' } };
  it('are written only where their record names them, inside depth/ or overlays/', () => {
    expect(checkedResultFile('depth/a.png', entry)).toBe('depth/a.png');
    expect(checkedResultFile('overlays/a.png', entry)).toBe('overlays/a.png');
    expect(() => checkedResultFile('depth/b.png', entry)).toThrow(/does not name/);
    const forged = { ...entry, image: { ...entry.image, depth_file: '../../etc/x.png' } };
    expect(() => checkedResultFile('../../etc/x.png', forged)).toThrow(/outside depth/);
    const failed = { type: 'failed' as const, item_id: 'a', file: 'a.png', error: 'x' };
    expect(() => checkedResultFile('depth/a.png', failed)).toThrow();
  });
});

describe('queue flags on the CLI', () => {
  it('shows the default shard size the queue uses', () => {
    expect(runCli(['annotate', 'run', '--help']).stdout).toContain(`(default ${DEFAULT_SHARD_SIZE})`);
  });

  it('refuses queue-only flags without --queue, and a bad URL, before doing anything', () => {
    const r = runCli(['run', '--prompts', 'x.jsonl', '--model', 'm', '--store', '/nonexistent/s.sqlite', '--rate-limit', '5']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('gsr: error: --resume and --rate-limit go with --queue\n');
    const a = runCli(['annotate', 'run', 'a.png', '--objects', 'a', '--out', '/tmp/never', '--resume']);
    expect(a.stderr).toBe('gsr: error: --shard-size and --resume go with --queue\n');
    const down = runCli(['queue', 'status', '--queue', 'redis://127.0.0.1:1']);
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/gsr: error: cannot reach Redis at redis:\/\/127\.0\.0\.1:1\n$/);
    const q = runCli(['queue', 'status', '--queue', 'http://x']);
    expect(q.status).toBe(1);
    expect(q.stderr).toBe('gsr: error: --queue must start with redis:// or rediss://, got "http://x"\n');
  });
});
