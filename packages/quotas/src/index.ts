export { TenantQuotasSchema, TenantQuotaOverridesSchema, DEFAULT_TENANT_QUOTAS, type TenantQuotas, type TenantQuotaOverrides } from './tenant-quotas';
export { QuotaStore } from './quota-store';
export { CheckAdmission, IN_FLIGHT_STALE_MS, STORED_BYTES_PER_CHECK, STORED_BYTES_FACTOR, bulkChunkLimit, type AdmissionResult } from './check-admission';
