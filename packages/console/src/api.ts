/// <reference lib="dom" />
// The console's only way to the gateway: same origin, the key in the Authorization header (never
// in a URL), kept in sessionStorage only (gone when the tab closes, or on Log out).

const KEY_ITEM = 'guardagent.console.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

/** Log out: the key and everything else the console kept in this tab (the approver's name). */
export function forgetKey(): void {
  for (const item of Object.keys(sessionStorage)) if (item.startsWith('guardagent.console.')) sessionStorage.removeItem(item);
}

/** An answer of the gateway other than 2xx: its error code and message, as the API says them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A query string of the set values (never a key: the key goes in the header). */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function request(method: string, path: string, body?: unknown, key = storedKey()): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  if (response.ok) return response;
  let code = `HTTP_${response.status}`;
  let message = response.statusText || 'request failed';
  let details: Record<string, unknown> = {};
  try {
    const parsed = (await response.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
    if (parsed.error?.code) code = parsed.error.code;
    if (parsed.error?.message) message = parsed.error.message;
    if (parsed.error?.details) details = parsed.error.details;
  } catch {
    // Not JSON: the status says it.
  }
  throw new ApiError(response.status, code, message, details);
}

export async function getJson<T>(path: string, key?: string): Promise<T> {
  return (await (await request('GET', path, undefined, key)).json()) as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return (await (await request('POST', path, body)).json()) as T;
}

export async function getText(path: string, key?: string): Promise<string> {
  return (await request('GET', path, undefined, key)).text();
}

/** NDJSON lines as values (the decision log). */
export async function getLines<T>(path: string): Promise<T[]> {
  const text = await getText(path);
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** What to tell a person about a failed call. */
export function explain(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return `This key is not accepted (${error.code}): ${error.message}`;
    if (error.status === 403) return `This key may not do that (${error.code}): ${error.message}`;
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
