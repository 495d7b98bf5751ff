import type { QuarantineScope } from '@guardagent/errors';

export interface CrashBudgetOptions {
  /** Worker deaths (crashed or hung runs) one version of a tenant's guard may cause within `windowMs`. Default 3. */
  perVersion?: number;
  /** Worker deaths all of a tenant's guards together may cause within `windowMs`. Default 6. */
  perTenant?: number;
  /** The window the deaths are counted in, and how long a quarantine lasts. Default 60,000 ms. */
  windowMs?: number;
}

export const DEFAULT_CRASH_BUDGET = { perVersion: 3, perTenant: 6, windowMs: 60_000 } as const;

/** A quarantine in force: the runs it covers end at once, without a worker, until `until`. */
export interface Quarantine {
  tenant: string;
  scope: QuarantineScope;
  /** The version it covers (scope `version`), else undefined. */
  version?: string;
  /** Deaths counted in the window when it started. */
  crashes: number;
  /** When it started and ends (the clock's ms). */
  since: number;
  until: number;
}

interface Tally {
  /** When each death in the window happened, oldest first (at most the budget's size). */
  at: number[];
  quarantine?: Quarantine;
}

/**
 * Counts the sandbox workers each tenant's guards kill or hang, per tenant and per version of its
 * guard, in a sliding window. A tenant (or one version) that uses up its budget is quarantined for
 * one window from the death that used it up: its runs end at once (`quarantined`), so a guard that
 * kills every worker it touches costs the pool at most the budget's deaths per window, and other
 * tenants keep their workers warm. Only culprits are charged (the run a death is pinned on), never
 * bystanders. The state is this executor's: its workers are what the budget protects.
 *
 * Memory: one tally per tenant and per version that caused a death within the last window (each
 * holds at most its budget's timestamps); older ones are dropped as deaths are charged.
 */
export class CrashBudget {
  readonly perVersion: number;
  readonly perTenant: number;
  readonly windowMs: number;
  private readonly tallies = new Map<string, Tally>();
  /** Quarantines started since this budget was made, by tenant and scope (`tenant\0scope`). */
  private readonly started = new Map<string, number>();

  constructor(
    options: CrashBudgetOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.perVersion = Math.max(1, options.perVersion ?? DEFAULT_CRASH_BUDGET.perVersion);
    this.perTenant = Math.max(1, options.perTenant ?? DEFAULT_CRASH_BUDGET.perTenant);
    this.windowMs = Math.max(1, options.windowMs ?? DEFAULT_CRASH_BUDGET.windowMs);
  }

  /** The quarantine that covers a run of this tenant and version now, if any (the tenant's first). */
  quarantineOf(tenant: string, version: string | undefined): Quarantine | null {
    if (this.tallies.size === 0) return null;
    const now = this.now();
    const tenantWide = this.active(tenantKey(tenant), now);
    if (tenantWide) return tenantWide;
    return version === undefined ? null : this.active(versionKey(tenant, version), now);
  }

  /**
   * The tenant killed or hung a worker within the window (and is not quarantined): its runs go
   * only to a pool that is whole (see SandboxProcessPool), so its next death cannot find the pool
   * short of warm workers.
   */
  onProbation(tenant: string): boolean {
    if (this.tallies.size === 0) return false;
    const at = this.tallies.get(tenantKey(tenant))?.at;
    return at !== undefined && at.length > 0 && at[at.length - 1]! > this.now() - this.windowMs;
  }

  /**
   * Charge one worker death to a run of this tenant and version. Returns the quarantines it
   * started (none, the version's, the tenant's, or both).
   */
  charge(tenant: string, version: string | undefined): Quarantine[] {
    const now = this.now();
    this.prune(now);
    const begun: Quarantine[] = [];
    const tenantQuarantine = this.count(tenantKey(tenant), now, this.perTenant, () => ({ tenant, scope: 'tenant' as const }));
    if (tenantQuarantine) begun.push(tenantQuarantine);
    if (version !== undefined) {
      const versionQuarantine = this.count(versionKey(tenant, version), now, this.perVersion, () => ({ tenant, scope: 'version' as const, version }));
      if (versionQuarantine) begun.push(versionQuarantine);
    }
    for (const q of begun) this.started.set(`${q.tenant}\0${q.scope}`, (this.started.get(`${q.tenant}\0${q.scope}`) ?? 0) + 1);
    return begun;
  }

  /** Every quarantine in force now. */
  current(): Quarantine[] {
    const now = this.now();
    const found: Quarantine[] = [];
    for (const tally of this.tallies.values()) if (tally.quarantine && tally.quarantine.until > now) found.push(tally.quarantine);
    return found;
  }

  /** Quarantines started so far, per tenant and scope. */
  totals(): Array<{ tenant: string; scope: QuarantineScope; count: number }> {
    return [...this.started].map(([key, count]) => {
      const [tenant, scope] = key.split('\0') as [string, QuarantineScope];
      return { tenant, scope, count };
    });
  }

  private active(key: string, now: number): Quarantine | null {
    const quarantine = this.tallies.get(key)?.quarantine;
    return quarantine && quarantine.until > now ? quarantine : null;
  }

  private count(key: string, now: number, budget: number, what: () => Pick<Quarantine, 'tenant' | 'scope' | 'version'>): Quarantine | null {
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { at: [] };
      this.tallies.set(key, tally);
    }
    // A death while quarantined (a run that was on a worker when it began) extends nothing.
    if (tally.quarantine && tally.quarantine.until > now) return null;
    tally.at.push(now);
    while (tally.at.length > 0 && tally.at[0]! <= now - this.windowMs) tally.at.shift();
    if (tally.at.length < budget) return null;
    const quarantine: Quarantine = { ...what(), crashes: tally.at.length, since: now, until: now + this.windowMs };
    if (quarantine.version === undefined) delete quarantine.version;
    tally.quarantine = quarantine;
    // The deaths that started it are spent: after the quarantine the budget is whole again.
    tally.at = [];
    return quarantine;
  }

  private prune(now: number): void {
    for (const [key, tally] of this.tallies) {
      const quarantined = tally.quarantine !== undefined && tally.quarantine.until > now;
      const recent = tally.at.length > 0 && tally.at[tally.at.length - 1]! > now - this.windowMs;
      if (!quarantined && !recent) this.tallies.delete(key);
    }
  }
}

const tenantKey = (tenant: string) => `t\0${tenant}`;
const versionKey = (tenant: string, version: string) => `v\0${tenant}\0${version}`;
