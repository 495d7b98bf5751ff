import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * What the console's pages may do: load only this origin's script and style (no inline script or
 * style anywhere, not even a style= attribute), call only this origin's API, be framed by no one.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The files of the built console (packages/console/dist), with their content types. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'app.js.map': 'application/json; charset=utf-8',
  'app.css.map': 'application/json; charset=utf-8',
};

/** Where the built console is, or null when @guardagent/console is not installed. */
function consoleDist(): string | null {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@guardagent/console/package.json')), 'dist');
  } catch {
    return null;
  }
}

/**
 * The operator console at /console: the static files of @guardagent/console's build, served from
 * this process (no CDN: it works air-gapped), each answer with a strict Content-Security-Policy.
 * The page asks for an API key and calls the /v1 API with it in the Authorization header, the same
 * scopes applying as to any client; a key never travels in a URL. Any other path under /console/
 * is the page itself (its routes are in the URL's hash).
 */
export function registerConsole(app: FastifyInstance, dist: string | null = consoleDist()): void {
  const cache = new Map<string, Buffer>();
  const secure = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cross-origin-opener-policy', 'same-origin');

  const send = async (reply: FastifyReply, file: string) => {
    secure(reply);
    let content = cache.get(file);
    if (!content && dist) {
      try {
        content = await readFile(join(dist, file));
        cache.set(file, content);
      } catch {
        content = undefined;
      }
    }
    if (!content && file === 'index.html') {
      return reply.code(503).type('text/plain; charset=utf-8').send('The console is not built: run `npm run build` (it writes packages/console/dist).');
    }
    if (!content) return reply.code(404).type('text/plain; charset=utf-8').send(`no console file '${file}'`);
    // The page names the current bundle by path, so it is never kept stale; the bundle may be kept a while.
    reply.header('cache-control', file === 'index.html' ? 'no-cache' : 'public, max-age=300');
    return reply.type(FILES[file]).send(content);
  };

  app.get('/console', async (_request, reply) => send(reply, 'index.html'));
  app.get<{ Params: { '*': string } }>('/console/*', async (request, reply) => {
    const path = request.params['*'];
    return send(reply, Object.hasOwn(FILES, path) ? path : 'index.html');
  });
}
