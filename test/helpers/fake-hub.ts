/**
 * A model hub on loopback that answers as Hugging Face does (docs/perception.md, "Pinned downloads"):
 * `/<repo>/resolve/<revision>/<path>` names the commit in `X-Repo-Commit`; a small file comes back
 * directly with its git blob sha1 as ETag; a large (LFS) file is a 302 to a second server, the CDN,
 * with its sha256 in `X-Linked-Etag` and its size in `X-Linked-Size`. Both honour `Range`. Tests can
 * change a file (a new commit), drop the hub headers (a plain server), cut a connection mid-file, and
 * read back every request.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const sha256Of = (b: Buffer) => createHash('sha256').update(b).digest('hex');
export const gitSha1Of = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

export interface HubRequest {
  server: 'hub' | 'cdn';
  method: string;
  path: string;
  range: string | null;
}

export class FakeHub {
  readonly repo = 'org/tiny';
  /** The commit `main` resolves to; older commits keep the files they had. */
  commit = '1'.repeat(40);
  private readonly commits = new Map<string, Map<string, Buffer>>([[this.commit, new Map()]]);
  /** Files above this size are LFS files (redirected to the CDN). */
  lfsThreshold = 1024;
  /** Answer without any Hugging Face header (a plain file server). */
  plain = false;
  /** The CDN flips the first byte of what it serves (the bytes no longer match the hub's hash). */
  corrupt = false;
  /** Name this commit in `X-Repo-Commit` whatever was asked (a mirror that serves something else). */
  reportCommit: string | null = null;
  /** The next file body (hub or CDN) stops after this many bytes and the connection is cut. */
  cutNextAfter: number | null = null;
  readonly requests: HubRequest[] = [];
  hubBase = '';
  cdnBase = '';
  private hub!: Server;
  private cdn!: Server;

  /** Puts a file at a new commit (the old commits keep their files). */
  set(path: string, content: Buffer): void {
    const next = new Map(this.commits.get(this.commit));
    next.set(path, content);
    this.commit = createHash('sha1').update(`${this.commit}${path}${sha256Of(content)}`).digest('hex');
    this.commits.set(this.commit, next);
  }

  /** The resolve URL of a file at a revision (default: the current commit). */
  url(path: string, revision = this.commit): string {
    return `${this.hubBase}/${this.repo}/resolve/${revision}/${path}`;
  }

  async start(): Promise<void> {
    this.hub = createServer((req, res) => this.onHub(req, res));
    this.cdn = createServer((req, res) => this.onCdn(req, res));
    const listen = (s: Server) => new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
    this.hubBase = await listen(this.hub);
    this.cdnBase = await listen(this.cdn);
  }

  close(): Promise<void> {
    const stop = (s: Server) => new Promise<void>((r) => s.close(() => r()));
    this.hub.closeAllConnections();
    this.cdn.closeAllConnections();
    return Promise.all([stop(this.hub), stop(this.cdn)]).then(() => undefined);
  }

  private log(server: 'hub' | 'cdn', req: IncomingMessage): void {
    this.requests.push({ server, method: req.method ?? 'GET', path: req.url ?? '', range: req.headers.range ?? null });
  }

  private onHub(req: IncomingMessage, res: ServerResponse): void {
    this.log('hub', req);
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec((req.url ?? '').split('?')[0]);
    const commit = m && m[1] === this.repo ? (m[2] === 'main' ? this.commit : m[2]) : null;
    const files = commit === null ? undefined : this.commits.get(commit);
    if (!files) return void res.writeHead(404, { 'x-error-code': 'RevisionNotFound' }).end('Revision Not Found');
    const content = files.get(decodeURIComponent(m![3]));
    if (!content) return void res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
    const hubHeaders: Record<string, string> = this.plain ? {} : { 'x-repo-commit': this.reportCommit ?? commit! };
    if (content.length > this.lfsThreshold) {
      const sha = sha256Of(content);
      const linked = this.plain ? {} : { 'x-linked-etag': `"${sha}"`, 'x-linked-size': String(content.length), etag: `"${gitSha1Of(Buffer.from(`oid sha256:${sha}`))}"` };
      return void res.writeHead(302, { ...hubHeaders, ...linked, location: `${this.cdnBase}/blobs/${sha}?signature=${commit}` }).end();
    }
    this.send(req, res, content, this.plain ? {} : { ...hubHeaders, etag: `"${gitSha1Of(content)}"` });
  }

  private onCdn(req: IncomingMessage, res: ServerResponse): void {
    this.log('cdn', req);
    const sha = /^\/blobs\/([0-9a-f]{64})/.exec(req.url ?? '')?.[1];
    const content = [...this.commits.values()].flatMap((files) => [...files.values()]).find((c) => sha256Of(c) === sha);
    if (!content) return void res.writeHead(404).end();
    const served = this.corrupt ? Buffer.concat([Buffer.from([content[0] ^ 1]), content.subarray(1)]) : content;
    this.send(req, res, served, { etag: `"${createHash('md5').update(content).digest('hex')}"` });
  }

  /** Sends a body, honouring `bytes=N-` ranges, and cutting the connection when asked. */
  private send(req: IncomingMessage, res: ServerResponse, content: Buffer, headers: Record<string, string>): void {
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    if (start >= content.length && start > 0) return void res.writeHead(416, { 'content-range': `bytes */${content.length}` }).end();
    const body = content.subarray(start);
    const status = start > 0 ? 206 : 200;
    res.writeHead(status, { ...headers, 'accept-ranges': 'bytes', 'content-length': String(body.length), ...(start > 0 ? { 'content-range': `bytes ${start}-${content.length - 1}/${content.length}` } : {}) });
    if (req.method === 'HEAD') return void res.end();
    const cut = this.cutNextAfter;
    if (cut === null) return void res.end(body);
    this.cutNextAfter = null;
    res.write(body.subarray(0, cut), () => setTimeout(() => res.socket?.destroy(), 20));
  }
}
