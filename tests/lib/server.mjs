// A static file server for the built page (trunk's dist/), on 127.0.0.1 at an ephemeral port.
// Only node:http and node:fs: no network beyond the loopback, no other server.

import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests/lib/ is two levels down). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The built page: $OFFSETLAB_DIST, or dist/ at the repository root. */
export const DIST = resolve(process.env.OFFSETLAB_DIST || join(REPO_ROOT, 'dist'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Types a real static host compresses (text, and wasm, which gzip shrinks to about a third). */
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg', '.txt']);

/** The content type for a file name. */
export function contentType(name) {
  return TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a request path maps to inside `root`, or null when it would leave it.
 * "/" and extensionless paths that are not files fall back to index.html (see serve()).
 */
export function fileFor(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = normalize(decoded).replace(/^([/\\])+/, '');
  const full = resolve(root, relative);
  if (full !== root && !full.startsWith(root + sep)) return null;
  return full;
}

/** Gzip of each file served, by path, kept while the file's size and mtime stay the same. */
const GZIP_CACHE = new Map();

/** `body` (the file at `path`) gzipped, compressed once: level 9 takes long enough for a 1 MB
 * wasm that compressing it on every request would show up in a load measurement. */
async function gzipped(path, body) {
  const { size, mtimeMs } = await stat(path);
  const key = `${size}:${mtimeMs}`;
  const cached = GZIP_CACHE.get(path);
  if (cached?.key === key) return cached.body;
  const compressed = gzipSync(body, { level: 9 });
  GZIP_CACHE.set(path, { key, body: compressed });
  return compressed;
}

async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves `root` on 127.0.0.1 at an ephemeral port.
 * Resolves to { url, port, close() }; `url` ends without a slash, e.g. http://127.0.0.1:41234.
 * With `base` (e.g. "/offsetlab/"), `root` is served under that path, as a site hosting the page
 * below its root would, and anything outside it is a 404.
 * With `gzip`, text and wasm go out with Content-Encoding: gzip (level 9, as the page's byte
 * guard counts) to a client that accepts it, as a production host would serve them; the browser then
 * still sees application/wasm, so streaming compilation works.
 */
export async function serve(root = DIST, { base = '/', gzip = false } = {}) {
  root = resolve(root);
  if (!(await isFile(join(root, 'index.html')))) {
    throw new Error(
      `no index.html in ${root}: build the page first (trunk build --release), ` +
        'or set OFFSETLAB_DIST to the built dist directory',
    );
  }
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      let { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (base !== '/') {
        if (!pathname.startsWith(base)) {
          res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
          return;
        }
        pathname = pathname.slice(base.length - 1);
      }
      let path = fileFor(root, pathname);
      if (path === null) {
        res.writeHead(403, { 'Content-Type': 'text/plain' }).end('forbidden');
        return;
      }
      if (!(await isFile(path))) {
        // "/" (and "/?seed=1"), and any unknown extensionless route: the page itself.
        if (pathname === '/favicon.ico') {
          // The page links its icon (assets/favicon.svg); an old tab may still ask for this one.
          res.writeHead(204).end();
          return;
        }
        if (pathname.endsWith('/') || extname(pathname) === '') {
          path = join(root, 'index.html');
        } else {
          res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
          return;
        }
      }
      let body = await readFile(path);
      const headers = { 'Content-Type': contentType(path), 'Cache-Control': 'no-store' };
      if (gzip && COMPRESSED.has(extname(path).toLowerCase())) {
        headers.Vary = 'Accept-Encoding';
        if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
          body = await gzipped(path, body);
          headers['Content-Encoding'] = 'gzip';
        }
      }
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}
