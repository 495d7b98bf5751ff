import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HttpTransport } from '@guardagent/client';
import type { GuardJobInput } from '@guardagent/schemas';
import { waitFor } from '@guardagent/testing';
import { CONSOLE_CSP } from '../src/console-page';
import { ADMIN_KEY, refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// The operator console (issue 36) end to end in a real headless Chromium (Debian's `chromium`,
// installed by scripts/ensure-chromium.sh) against a real gateway, executor and private Redis:
// an operator logs in with a key, approves a held refund in the inbox, the agent's retry with the
// token (through the client SDK) runs once; another tenant sees none of it; a new deny shows in
// the explorer within a second; a policy's two compiled versions are diffed; a `check` key
// cannot approve; logged markup is shown as text under a strict CSP.

const CHROMIUM = process.env.GUARDAGENT_CHROMIUM ?? '/usr/bin/chromium';
const METRICS_KEY = 'console-test-metrics-key-0123456789';
const SHOTS = join(import.meta.dirname, '..', '..', '..', 'test-output', 'screenshots');
const refundDesk = { ...parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8')), decisionLog: true };
const subject = (id: string) => ({ id, roles: ['support_agent'], attributes: { email: `${id}@example.com` } });
const refund = (who: string, amount: number, approvalToken?: string): GuardJobInput =>
  ({
    policy: 'refund-desk',
    subject: subject(who),
    action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: who, amount, reason: 'broken item' } },
    ...(approvalToken ? { context: { approvalToken } } : {}),
  }) as GuardJobInput;

let f: GatewayFixture;
let browser: Browser;
const keys = { aAdmin: '', aOperate: '', aCheck: '', bAdmin: '', metrics: METRICS_KEY };
let agentA: HttpTransport;
let agentB: HttpTransport;
/** Every URL the browser asked for: no key may ever be in one. */
const requested: string[] = [];
/** Errors the pages raised (a CSP violation among them). */
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  contexts.push(context);
  const page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return page;
}

async function logIn(key: string): Promise<Page> {
  const page = await newPage();
  await page.goto(`${f.url}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  return page;
}

/**
 * Each screenshot's page is checked first for what a person with a screen reader or only a
 * keyboard needs: every input and select labelled, every button and link named, every table with
 * header cells, no positive tabindex, and no style= attribute (the CSP would refuse it).
 */
async function shot(page: Page, name: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    const named = (el: Element) => (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() !== '';
    for (const el of Array.from(document.querySelectorAll('input, select, textarea'))) {
      if ((el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label')) found.push(`unlabelled ${el.tagName} #${el.id}`);
    }
    for (const el of Array.from(document.querySelectorAll('button, a'))) if (!named(el)) found.push(`unnamed ${el.tagName}`);
    for (const el of Array.from(document.querySelectorAll('table'))) if (el.querySelectorAll('th').length === 0) found.push(`table without headers (${el.className})`);
    for (const el of Array.from(document.querySelectorAll('[tabindex]'))) if (Number(el.getAttribute('tabindex')) > 0) found.push(`positive tabindex on ${el.tagName}`);
    if (document.querySelectorAll('[style]').length > 0) found.push('style= attribute');
    return found;
  });
  expect(problems, name).toEqual([]);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  f = await startFixture({ stages: ['executor', 'memory'], approvalWebhooks: false, config: { metricsKey: METRICS_KEY } });
  keys.aAdmin = (await (await f.call('/v1/tenants', { body: { id: 'console-a' } })).json()).apiKey;
  keys.bAdmin = (await (await f.call('/v1/tenants', { body: { id: 'console-b' } })).json()).apiKey;
  keys.aOperate = (await (await f.call('/v1/keys', { body: { name: 'operator', scopes: ['operate'] }, key: keys.aAdmin })).json()).apiKey;
  keys.aCheck = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: keys.aAdmin })).json()).apiKey;
  for (const key of [keys.aAdmin, keys.bAdmin]) {
    expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key })).status).toBe(200);
  }
  // Two compiled versions of one policy (supplied programs, verified on their examples: no LLM).
  const v1 = { ...refundPolicy(), decisionLog: true };
  const v2 = { ...v1, version: '2', program: v1.program.replaceAll('100', '10'), examples: [v1.examples[0], { ...v1.examples[1], context: { amount: 5 } }] };
  for (const version of [v1, v2]) {
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: version, key: keys.aAdmin })).status).toBe(200);
    expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key: keys.aAdmin })).json()).status).toBe('promoted');
  }
  // Each version's view carries its verified program's code (what the policy page diffs).
  const listed = (await (await f.call('/v1/policies/refunds/versions', { key: keys.aAdmin })).json()).versions as Array<{ digest: string }>;
  const programs = [];
  for (const { digest } of listed) programs.push((await (await f.call(`/v1/policies/refunds/versions/${digest}`, { key: keys.aAdmin })).json()).program);
  expect(programs).toMatchObject([
    { code: v2.program, source: 'supplied', passedCount: 2, total: 2 },
    { code: v1.program, source: 'supplied', passedCount: 2, total: 2 },
  ]);
  agentA = new HttpTransport({ baseUrl: f.url, apiKey: keys.aCheck });
  agentB = new HttpTransport({ baseUrl: f.url, apiKey: keys.bAdmin });
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run bash scripts/ensure-chromium.sh (or set GUARDAGENT_CHROMIUM)`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await agentA?.close();
  await agentB?.close();
  await f?.close();
});

describe('the console at /console', () => {
  it('is served with a strict CSP, nosniff and no referrer, the page for any path under /console/, and its assets', async () => {
    for (const path of ['/console', '/console/', '/console/approvals/deep/link', '/console/app.js', '/console/app.css']) {
      const response = await fetch(`${f.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy'), path).toBe(CONSOLE_CSP);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      const body = await response.text();
      if (path.endsWith('.js')) expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
      else if (path.endsWith('.css')) expect(response.headers.get('content-type')).toMatch(/^text\/css/);
      else {
        expect(body).toContain('<script type="module" src="/console/app.js"></script>');
        // No inline script or style anywhere in the page.
        expect(body).not.toMatch(/<script>|<style|style=/);
      }
    }
  });

  it('refuses a key the gateway does not know and keeps nothing', async () => {
    const page = await newPage();
    await page.goto(`${f.url}/console/`);
    await page.getByLabel('API key').fill('ga_not-a-real-key');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/does not know this key/);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await shot(page, 'login');
  });

  it("shows tenant A's held refund in the inbox; approving it there lets the agent's retry with the token run once", async () => {
    const held = await agentA.check(refund('cust-a', 80));
    expect(held.decision).toBe('pending');
    const token = held.approval!.token;

    const page = await logIn(keys.aOperate);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['guardagent.console.apiKey']);
    const row = page.locator(`tr[data-approval="${held.approval!.id}"]`);
    await row.waitFor();
    expect(await row.locator('.tool').textContent()).toBe('issue_refund');
    expect(await row.locator('.subject').textContent()).toBe('cust-a');
    expect(await row.textContent()).toContain("refunds over 50 need a supervisor's approval");
    expect(await row.textContent()).toContain('refund-desk');
    expect(await row.locator('time').textContent()).toMatch(/^in \d+ min$/);
    await shot(page, 'approvals-inbox');

    await page.getByLabel('Approver name').fill('ops-lead');
    await row.getByLabel('Reason').fill('customer called');
    await row.getByRole('button', { name: 'Approve issue_refund for cust-a' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('issue_refund for cust-a: approved by ops-lead.');
    // Live: the decided call leaves the inbox.
    await row.waitFor({ state: 'detached' });
    const record = await (await f.call(`/v1/approvals/${held.approval!.id}`, { key: keys.aOperate })).json();
    expect(record).toMatchObject({ status: 'approved', approver: 'ops-lead', reason: 'customer called' });

    // The agent presents the token through the client SDK: allowed once, then never again.
    expect((await agentA.check(refund('cust-a', 80, token))).decision).toBe('allow');
    expect((await agentA.check(refund('cust-a', 80, token))).decision).not.toBe('allow');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("rejects a held call in the inbox with a reason: the agent's retry is refused, naming who and why", async () => {
    const held = await agentA.check(refund('cust-r', 75));
    expect(held.decision).toBe('pending');
    const page = await logIn(keys.aOperate);
    const row = page.locator(`tr[data-approval="${held.approval!.id}"]`);
    await row.waitFor();
    // No approver yet: the console asks for one and decides nothing.
    await row.getByRole('button', { name: 'Reject issue_refund for cust-r' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Enter your name as the approver first.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('approver');
    await page.keyboard.type('ops-lead');
    await row.getByLabel('Reason').fill('refunded by phone already');
    await row.getByLabel('Reason').press('Tab');
    await page.keyboard.press('Tab');
    // Keyboard: Tab from the reason reaches Approve, then Reject; Enter presses it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Reject issue_refund for cust-r');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').textContent()).resolves.toBe('issue_refund for cust-r: rejected by ops-lead.');
    await row.waitFor({ state: 'detached' });
    const retry = await agentA.check(refund('cust-r', 75, held.approval!.token));
    expect(retry.decision).toBe('deny');
    expect(retry.reasons).toContain('the approval was rejected by ops-lead: refunded by phone already');
  });

  it("shows tenant B neither tenant A's held calls nor A's decisions", async () => {
    const mine = await agentB.check(refund('cust-b', 90));
    expect(mine.decision).toBe('pending');
    const theirs = await agentA.check(refund('cust-a2', 95));
    expect(theirs.decision).toBe('pending');

    const page = await logIn(keys.bAdmin);
    await page.locator(`tr[data-approval="${mine.approval!.id}"]`).waitFor();
    expect(await page.locator(`tr[data-approval="${theirs.approval!.id}"]`).count()).toBe(0);
    expect(await page.locator('table.approvals').textContent()).not.toContain('cust-a');

    await page.getByRole('link', { name: 'Decisions' }).click();
    await page.locator(`tr[data-decision="${mine.id}"]`).waitFor();
    expect(await page.locator(`tr[data-decision="${theirs.id}"]`).count()).toBe(0);
    expect(await page.locator('table.decisions').textContent()).not.toContain('cust-a');
    // Nor by a direct link to A's decision.
    await page.goto(`${f.url}/console/#/decisions/${encodeURIComponent(theirs.id)}`);
    await page.getByText('This decision is not in the log').waitFor();
  });

  it('shows a new deny in the explorer within a second, and its detail: the job, the rule that fired and why, digests, timings, trace id', async () => {
    const page = await logIn(keys.aOperate);
    await page.getByRole('link', { name: 'Decisions' }).click();
    await page.getByRole('heading', { name: 'Decision explorer' }).waitFor();
    // The explorer has read the log once (every earlier decision shows) before the new one is made.
    await page.locator('table.decisions tbody tr').first().waitFor();

    const denied = await agentA.check({ policy: 'refund-desk', subject: subject('cust-a'), action: { kind: 'tool_call', tool: 'delete_user', args: { user_id: 'cust-9' } } } as GuardJobInput);
    expect(denied.decision).toBe('deny');
    const decided = Date.now();
    const row = page.locator(`tr[data-decision="${denied.id}"]`);
    await row.waitFor({ timeout: 5000 });
    const after = Date.now() - decided;
    // Polled every second: shown within one poll and its answer (the rest is slack for a loaded machine).
    expect(after).toBeLessThan(2500);
    expect(await row.textContent()).toContain('deny');
    expect(await row.textContent()).toContain('delete_user');
    await shot(page, 'decision-explorer');

    // Filters: only denies on the tool delete_user.
    await page.getByLabel('Decision', { exact: true }).selectOption('deny');
    await page.getByLabel('Tool').fill('delete_user');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await row.waitFor();
    await waitFor(async () => (await page.locator('table.decisions tbody tr').count()) === 1, 5000, 'the filtered explorer');

    await row.getByRole('link', { name: `Details of decision ${denied.id}` }).click();
    await page.getByRole('heading', { name: `Decision ${denied.id}` }).waitFor();
    const detail = (await page.locator('.detail').textContent()) ?? '';
    expect(detail).toContain(denied.rules[0]);
    expect(detail).toContain(denied.reasons[0]);
    expect(detail).toContain(denied.traceId);
    expect(detail).toContain(denied.policy.digest.slice(0, 12));
    expect(detail).toContain('"tool": "delete_user"');
    expect(await page.locator('table.timings tbody tr').count()).toBeGreaterThan(0);
    await shot(page, 'decision-detail');
  });

  it("diffs two compiled versions' programs on the policy page, with each version's YAML and program", async () => {
    const page = await logIn(keys.aOperate);
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'refunds' }).click();
    await page.getByRole('heading', { name: 'Policy refunds' }).waitFor();
    await page.locator('pre.diff').waitFor();
    expect(await page.locator('pre.diff .removed').allTextContents()).toEqual(["- if (amount > 100) return { deny: true, reasons: ['refund of ' + amount + ' is over 100'] };\n"]);
    expect(await page.locator('pre.diff .added').allTextContents()).toEqual(["+ if (amount > 10) return { deny: true, reasons: ['refund of ' + amount + ' is over 10'] };\n"]);
    expect(await page.locator('pre.diff .same').count()).toBe(2);
    expect(await page.locator('pre.yaml').textContent()).toContain('id: refunds\nversion: "2"');
    expect(await page.locator('pre.program').textContent()).toContain('amount > 10)');
    expect(await page.title()).toBe('Policies · GuardAgent console');
    // The policies themselves, as YAML.
    await page.getByLabel('Compare').selectOption('yaml');
    await waitFor(async () => (await page.locator('pre.diff .removed').allTextContents()).includes('- version: "1"\n'), 5000, 'the YAML diff');
    expect(await page.locator('pre.diff .added').allTextContents()).toContain('+ version: "2"\n');
    await page.getByLabel('Compare').selectOption('program');
    await waitFor(async () => (await page.locator('pre.diff .added').allTextContents()).length === 1, 5000, 'the program diff again');
    // The older version, shown on request.
    await page.getByRole('button', { name: /^Show version 1 / }).click();
    await waitFor(async () => ((await page.locator('pre.program').textContent()) ?? '').includes('amount > 100)'), 5000, 'version 1 shown');
    await shot(page, 'policy-diff');
  });

  it("gives a check-scope key no approve button, with a clear message; the API refuses it too", async () => {
    const held = await agentA.check(refund('cust-a3', 70));
    expect(held.decision).toBe('pending');
    const page = await logIn(keys.aCheck);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Cannot read the held calls\. This key may not do that \(SCOPE_REQUIRED\).*operate/);
    expect(await page.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    const refused = await f.call(`/v1/approvals/${held.approval!.id}/approve`, { body: { approver: 'agent' }, key: keys.aCheck });
    expect(refused.status).toBe(403);
  });

  it('shows markup in a logged decision as text: no script runs', async () => {
    const markup = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const logged = await agentA.check({ policy: 'refunds', input: markup, context: { amount: 500, note: markup } } as GuardJobInput);
    expect(logged.decision).toBe('deny');
    const page = await logIn(keys.aOperate);
    await page.goto(`${f.url}/console/#/decisions/${encodeURIComponent(logged.id)}`);
    await page.getByRole('heading', { name: `Decision ${logged.id}` }).waitFor();
    expect(await page.locator('pre.job-input').textContent()).toBe(markup);
    expect(await page.locator('.detail img, .detail script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.getByRole('link', { name: '← All decisions' }).click();
    await page.locator(`tr[data-decision="${logged.id}"]`).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it("gives an overview: readiness, and checks per second, deny rate and guard errors to the admin key and the metrics key (which reads nothing else); a tenant's admin key its quotas and keys", async () => {
    const denied = await agentA.check({ policy: 'refunds', input: 'refund please', context: { amount: 900 } } as GuardJobInput);
    expect(denied.decision).toBe('deny');
    const admin = await logIn(ADMIN_KEY);
    await admin.getByRole('link', { name: 'Overview' }).click();
    // As /readyz says (here not ready: the fixture runs no planner or codegen worker).
    const ready = await fetch(`${f.url}/readyz`);
    await expect(admin.locator('p.readiness').textContent()).resolves.toBe(ready.ok ? 'Ready' : 'Not ready');
    const stat = (name: string) => admin.locator(`dt:text-is("${name}") + dd`);
    // A rate needs two scrapes (every 2 s): measured, then a number.
    await waitFor(async () => ((await stat('Checks per second').textContent()) ?? '').match(/^\d+\.\d$/), 10_000, 'a measured rate');
    // Every tenant's decisions (the metrics name them all), denies among them.
    expect(Number(await stat('Decisions').textContent())).toBeGreaterThanOrEqual(1);
    expect(await stat('Deny rate').textContent()).toMatch(/^\d+\.\d %$/);
    expect(await stat('Deny rate').textContent()).not.toBe('0.0 %');
    expect(await stat('Guard errors').textContent()).toBe('0');
    await shot(admin, 'overview');

    // The metrics key is no tenant's key: it logs in to the Overview, and reads nothing else.
    const scraper = await logIn(METRICS_KEY);
    await scraper.getByRole('heading', { name: 'Overview' }).waitFor();
    await waitFor(async () => ((await scraper.locator('dt:text-is("Decisions") + dd').textContent()) ?? '').match(/^\d+$/), 10_000, 'the metrics read with the metrics key');
    await scraper.getByRole('link', { name: 'Approvals' }).click();
    await expect(scraper.getByRole('alert').textContent()).resolves.toMatch(/This key is not accepted \(UNAUTHORIZED\)/);

    const tenant = await logIn(keys.aAdmin);
    await tenant.getByRole('link', { name: 'Overview' }).click();
    await tenant.getByText(/The metrics are read with the admin key or the metrics key/).waitFor();
    const keyTable = tenant.locator('table.keys');
    await keyTable.waitFor();
    expect(await keyTable.locator('tbody tr').count()).toBe(3);
    expect(await keyTable.textContent()).toContain('operator');
    expect(await tenant.locator('table.quotas').textContent()).toContain('checksPerSecond');
  });

  it('never put a key in a URL, and no page raised an error', () => {
    expect(requested.length).toBeGreaterThan(10);
    for (const key of Object.values(keys)) expect(requested.filter((url) => url.includes(key))).toEqual([]);
    // A CSP violation is reported as a console error: none happened.
    expect(pageErrors.filter((text) => !text.includes('Failed to load resource'))).toEqual([]);
  });
});
