import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { CONSOLE_CSP, registerConsole } from '../src/console-page';

// How the gateway serves the console's files, without a browser (the browser test is
// console-browser.test.ts): the page for any path, the bundle by name, the CSP on every answer.
describe('registerConsole', () => {
  it('serves index.html for /console and any unknown path under it, the bundle by name, with the CSP on each', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'console-dist-'));
    writeFileSync(join(dist, 'index.html'), '<!DOCTYPE html><title>x</title>');
    writeFileSync(join(dist, 'app.js'), 'console.log(1)');
    const app = Fastify();
    registerConsole(app, dist);
    for (const [url, status, type, body] of [
      ['/console', 200, 'text/html', '<!DOCTYPE html><title>x</title>'],
      ['/console/decisions/x/y', 200, 'text/html', '<!DOCTYPE html><title>x</title>'],
      ['/console/app.js', 200, 'text/javascript', 'console.log(1)'],
      ['/console/app.css', 404, 'text/plain', "no console file 'app.css'"],
    ] as const) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(status);
      expect(response.headers['content-type'], url).toMatch(new RegExp(`^${type}`));
      expect(response.body, url).toBe(body);
      expect(response.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
    }
    await app.close();
  });

  it('says the console is not built when its files are missing', async () => {
    const app = Fastify();
    registerConsole(app, join(tmpdir(), 'no-such-console-dist'));
    const response = await app.inject({ url: '/console/' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatch(/not built: run `npm run build`/);
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    await app.close();
  });
});
