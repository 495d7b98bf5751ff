/// <reference lib="dom" />
import './app.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { forgetKey, storedKey } from './api';
import { href, useRoute } from './router';
import { LoginPage } from './pages/login';
import { ApprovalsPage } from './pages/approvals';
import { DecisionDetailPage, DecisionsPage } from './pages/decisions';
import { PoliciesPage, PolicyPage } from './pages/policies';
import { OverviewPage } from './pages/overview';

const PAGES = [
  ['approvals', 'Approvals'],
  ['decisions', 'Decisions'],
  ['policies', 'Policies'],
  ['overview', 'Overview'],
] as const;

function Page({ route }: { route: string[] }) {
  const [name, id] = route;
  if (name === 'decisions' && id) return <DecisionDetailPage id={id} />;
  if (name === 'decisions') return <DecisionsPage />;
  if (name === 'policies' && id) return <PolicyPage id={id} />;
  if (name === 'policies') return <PoliciesPage />;
  if (name === 'overview') return <OverviewPage />;
  return <ApprovalsPage />;
}

function App() {
  const [key, setKey] = useState(storedKey());
  const route = useRoute();
  const current = route[0] ?? 'approvals';
  const title = PAGES.find(([page]) => page === current)?.[1] ?? 'Approvals';
  useEffect(() => {
    document.title = key ? `${title} · GuardAgent console` : 'Log in · GuardAgent console';
  }, [title, key]);
  if (!key) return <LoginPage onLogin={() => setKey(storedKey())} />;

  const logOut = () => {
    forgetKey();
    setKey(null);
    location.hash = '';
  };
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">GuardAgent console</span>
        <nav aria-label="Console pages">
          <ul>
            {PAGES.map(([page, title]) => (
              <li key={page}>
                <a href={href(page)} aria-current={current === page ? 'page' : undefined}>
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="logout" onClick={logOut}>
          Log out
        </button>
      </header>
      <main id="main">
        <Page route={route} />
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
