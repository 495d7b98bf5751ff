import { z } from 'zod';

/**
 * What one tenant may use of the shared cluster. Defaults come from the configuration; the server
 * admin can set any of them per tenant (`PUT /v1/tenants/:id/quotas`).
 */
export const TenantQuotasSchema = z
  .object({
    /** Checks admitted per second, on average (token bucket shared by every gateway). */
    checksPerSecond: z.number().int().positive().max(1_000_000),
    /** Checks admitted at once after a quiet spell (the bucket's size). */
    checkBurst: z.number().int().positive().max(10_000_000),
    /** Checks submitted and not yet decided. */
    jobsInFlight: z.number().int().positive().max(10_000_000),
    /** Stored policies (distinct ids). */
    policies: z.number().int().positive().max(1_000_000),
    /**
     * Bytes of Redis the tenant's checks may hold: each admitted check counts its job's JSON (a
     * quarter more, for the allocator's rounding) and STORED_BYTES_PER_CHECK (its decision and
     * bookkeeping) for as long as its decision is kept.
     */
    storedBytes: z.number().int().positive().max(2 ** 50),
  })
  .strict();
export type TenantQuotas = z.infer<typeof TenantQuotasSchema>;

export const DEFAULT_TENANT_QUOTAS: TenantQuotas = {
  checksPerSecond: 1000,
  checkBurst: 2000,
  jobsInFlight: 20_000,
  policies: 1000,
  storedBytes: 8 * 1024 ** 3,
};

/** A partial set of overrides, as the admin sends and Redis keeps them. */
export const TenantQuotaOverridesSchema = TenantQuotasSchema.partial();
export type TenantQuotaOverrides = z.infer<typeof TenantQuotaOverridesSchema>;
