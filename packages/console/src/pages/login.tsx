/// <reference lib="dom" />
import { useState } from 'preact/hooks';
import { ApiError, explain, getJson, getText, storeKey } from '../api';

async function readsMetrics(key: string): Promise<boolean> {
  try {
    await getText('/metrics', key);
    return true;
  } catch {
    return false;
  }
}

/**
 * Paste an API key: it is tried once (a key the gateway does not know is not kept), then kept in
 * this tab's sessionStorage only. A `check` key is accepted too: it then sees what its scope allows.
 */
export function LoginPage({ onLogin }: { onLogin: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError('Paste an API key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await getJson('/v1/quotas', trimmed);
      storeKey(trimmed);
      setKey('');
      onLogin();
    } catch (caught) {
      // 403: a key the gateway knows, whose scope does not read quotas: it sees what its scope allows.
      if (caught instanceof ApiError && caught.status === 403) {
        storeKey(trimmed);
        setKey('');
        onLogin();
        return;
      }
      // The metrics key (GUARDAGENT_METRICS_KEY) is no tenant's key: it reads /metrics only (the Overview).
      if (caught instanceof ApiError && caught.status === 401 && (await readsMetrics(trimmed))) {
        storeKey(trimmed);
        setKey('');
        location.hash = '#/overview';
        onLogin();
        return;
      }
      setError(caught instanceof ApiError && caught.status === 401 ? 'The gateway does not know this key.' : explain(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login" id="main">
      <h1>GuardAgent console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" spellcheck={false} value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
        <p class="hint">Kept in this tab only (sessionStorage), sent in the Authorization header, never in a URL. A tenant key sees its own tenant.</p>
        <button type="submit" disabled={busy}>
          Log in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
