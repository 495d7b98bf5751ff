import { z } from 'zod';
import { NotFoundError } from '@guardagent/errors';
import {
  BatchStatusSchema,
  FeedbackCaseSchema,
  CompileResultSchema,
  DecisionSchema,
  DemonstrationSchema,
  GuardJobSchema,
  JsonValueSchema,
  PolicyIdSchema,
  PolicySchema,
  VerificationReportSchema,
  parseSince,
} from '@guardagent/schemas';
import { TenantQuotaOverridesSchema, TenantQuotasSchema } from '@guardagent/quotas';
import { CHECK_ID_PATTERN, COMPILE_ID_PATTERN } from '@guardagent/client';
import { KEY_SCOPES, KeyScopeSchema } from '@guardagent/api-keys';
import { StoredDemonstrationSchema, TenantIdSchema } from '@guardagent/memory';
import { RESERVED_TENANT_IDS, isReservedTenantId } from '@guardagent/queue';
import { ReplayRecordSchema } from './replay-store';

/** The most a client may ask the gateway to hold a request open for a decision. */
const MAX_WAIT_MS = 300_000;
const DEFAULT_CHECK_WAIT_MS = 10_000;
const DEFAULT_COMPILE_WAIT_MS = 60_000;

/** A point in time as a query or body field: a duration back (30m, 24h, 7d) or an ISO date. */
export const sinceOrDate = (name: string) =>
  z
    .string()
    .max(64)
    .optional()
    .refine((value) => value === undefined || parseSince(value, Date.now()) !== null, `${name} is neither a duration back (30m, 24h, 7d) nor an ISO date`);

const waitQuery = (fallback: number) =>
  z
    .object({
      wait: z.coerce
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .default(fallback)
        .describe('Milliseconds to wait for the result before answering 202 with the id (0: do not wait)'),
    });

export const CheckWaitQuerySchema = waitQuery(DEFAULT_CHECK_WAIT_MS);
export const CompileWaitQuerySchema = waitQuery(DEFAULT_COMPILE_WAIT_MS).extend({
  shadow: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe("Compile the policy id's shadow version (enforcement: shadow) instead of its enforcing one"),
});
export const BatchResultsQuerySchema = z.object({
  from: z.coerce.number().int().min(0).default(0).describe('Skip this many results (resume a partial read)'),
});

export const IdParamsSchema = z.object({ id: z.string().min(1).max(256) }).strict();

/**
 * The shapes of the ids the gateway hands out. A route checks an id from the path against its
 * shape before any Redis key is built from it (see idOfShape): a check's id names its executor job
 * (`<prefix>:executor:<id>`), which sits beside BullMQ's own keys (`…:executor:events`, a stream),
 * and a batch's record (`…:batch:<id>`) beside its results list (`…:batch:<id>:results`). An id of
 * another shape names nothing: 404, as an unknown id.
 */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID_SHAPES = {
  check: CHECK_ID_PATTERN,
  batch: UUID_PATTERN,
  replay: UUID_PATTERN,
  compile: COMPILE_ID_PATTERN,
} as const;

/** `id` when it has the shape of a `kind` id, else NotFoundError (no such id can exist). */
export function idOfShape(kind: keyof typeof ID_SHAPES, id: string): string {
  if (!ID_SHAPES[kind].test(id)) throw new NotFoundError(kind, id.length > 64 ? `${id.slice(0, 64)}…` : id);
  return id;
}
export const PolicyParamsSchema = z.object({ id: PolicyIdSchema }).strict();
export const PolicyVersionParamsSchema = z
  .object({ id: PolicyIdSchema, digest: z.string().regex(/^[0-9a-f]{8,64}$/, 'a version digest: 8 to 64 hex digits').describe('the digest, or a prefix of it (8 hex digits at least) naming one version') })
  .strict();
export const TenantListQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100).describe('Most tenants in this answer'),
    offset: z.coerce.number().int().min(0).default(0).describe('Skip this many (oldest first)'),
  })
  .strict();
export const DemonstrationParamsSchema = z.object({ id: PolicyIdSchema, demoId: z.string().min(1).max(128) }).strict();

export const FeedbackBodySchema = z
  .object({
    correctLabel: z.union([z.literal(0), z.literal(1)]).describe('1: the call should have been denied; 0: allowed'),
    note: z.string().max(10_000).optional(),
    job: FeedbackCaseSchema.optional().describe('the job as submitted; required for decisions made by the rails or a compiled program'),
  })
  .strict();

const FeedbackResultSchema = z.object({ promoted: z.boolean() });

/**
 * A new tenant's id: also none of the segments of the deployment's own keys (RESERVED_TENANT_IDS),
 * whose key space a tenant of that name would share (a tenant `tenants` overwrote the key records
 * of a tenant `policy`).
 */
const NewTenantIdSchema = TenantIdSchema.refine(
  (id) => !isReservedTenantId(id),
  `is reserved: the deployment's own keys use it (${RESERVED_TENANT_IDS.join(', ')})`,
);

export const TenantCreateBodySchema = z
  .object({
    id: NewTenantIdSchema.optional().describe(`Tenant id (default: generated); not one of ${RESERVED_TENANT_IDS.join(', ')}, nor default`),
    name: z.string().min(1).max(200).optional(),
    scopes: z.array(KeyScopeSchema).min(1).max(KEY_SCOPES.length).optional().describe("the first key's scopes (default ['admin'])"),
  })
  .strict();

export const TenantParamsSchema = z.object({ id: TenantIdSchema }).strict();
export const QuotaOverridesBodySchema = TenantQuotaOverridesSchema.describe('the quotas to override; those left out take the defaults');
const QuotasViewSchema = z.object({
  quotas: TenantQuotasSchema,
  overrides: TenantQuotaOverridesSchema,
  inFlight: z.number().int().describe('checks submitted and not yet decided'),
  storedBytes: z.number().int().describe("bytes the tenant's checks count against quotas.storedBytes now (each check's job JSON and 1,200 bytes, until its decision expires)"),
});

export const KeyCreateBodySchema = z
  .object({
    name: z.string().min(1).max(200).optional().describe('what the key is for (e.g. the agent that holds it)'),
    scopes: z.array(KeyScopeSchema).min(1).max(KEY_SCOPES.length).describe('check, feedback, operate, admin'),
  })
  .strict();

export const KeyRotateBodySchema = z
  .object({
    overlapSeconds: z.number().int().min(0).max(86_400).optional().describe('how long the old secret keeps working (default 0: stops at once)'),
  })
  .strict();

export const KeyIdParamsSchema = z.object({ id: z.string().regex(/^k-[0-9a-f]{12}$|^legacy$/, 'a key id (k-…)') }).strict();

export const KeyTenantQuerySchema = z
  .object({ tenant: TenantIdSchema.optional().describe('whose keys (the server admin key only; a tenant key always means its own tenant)') })
  .strict();

const KeyViewSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  scopes: z.array(KeyScopeSchema),
  createdAt: z.string(),
  rotatedAt: z.string().optional(),
});
const KeyListSchema = z.object({ keys: z.array(KeyViewSchema) });
const KeyIssuedSchema = KeyViewSchema.extend({ apiKey: z.string().describe('Shown only in this answer; stored as its sha256') });

const ApproverSchema = z.string().trim().min(1).max(256);
const DecisionReasonSchema = z.string().max(1000);
const ApprovalTenantSchema = TenantIdSchema.optional().describe(
  "the tenant whose agent made the call (server admin key only; default 'default'); a tenant's key decides its own tenant's calls",
);

export const ApprovalBodySchema = z
  .object({
    token: z.string().min(16).max(512).describe('from the pending decision'),
    approver: ApproverSchema.describe('who approves; must not be the subject of the call'),
    reason: DecisionReasonSchema.optional().describe('why (kept with the approval, for the audit trail)'),
    tenant: ApprovalTenantSchema,
  })
  .strict();

const ApprovalResultSchema = z.object({ result: z.enum(['approved', 'already-approved']) });

/** The path parameter naming a held call: its token (`apv_…`) or its id (the token's sha256, from a listing or a webhook). */
export const ApprovalRefParamsSchema = z
  .object({
    ref: z
      .string()
      .max(128)
      .describe("the held call's id (64 hex digits, from a listing or a webhook) or its approval token; prefer the id in URLs, which end up in logs"),
  })
  .strict();

export const ApprovalDecideBodySchema = z
  .object({
    approver: ApproverSchema.describe('who decides (an approval must not come from the subject of the call)'),
    reason: DecisionReasonSchema.optional().describe("why: a rejection's reason reaches the agent's model as the refusal"),
    tenant: ApprovalTenantSchema,
  })
  .strict();

export const ApprovalListQuerySchema = z
  .object({
    status: z.enum(['pending', 'approved']).default('pending').describe('`pending`: waiting for a person (default); `approved`: approved and not used yet'),
    policy: PolicyIdSchema.optional().describe('only calls held by this policy'),
    tool: z.string().min(1).max(256).optional().describe('only calls of this tool'),
    subject: z.string().min(1).max(256).optional().describe('only calls made for this subject id'),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().max(100).optional().describe('`next` of the previous page'),
    tenant: ApprovalTenantSchema,
  })
  .strict();

export const ApprovalTenantQuerySchema = z.object({ tenant: ApprovalTenantSchema }).strict();

const ApprovalViewSchema = z.object({
  id: z.string().describe("the held call's id: the approval token's sha256 (never the token itself)"),
  status: z.enum(['pending', 'approved', 'rejected', 'used', 'expired']),
  tenant: z.string(),
  policy: z.string(),
  tool: z.string(),
  args: z.record(z.string(), JsonValueSchema).describe('the arguments the approval is bound to (after the policy redacted them)'),
  subject: z.string().describe('the subject id the call was made for'),
  reasons: z.array(z.string()).describe('why the call was held'),
  rules: z.array(z.string()),
  decisionId: z.string().optional().describe('the pending decision (GET /v1/checks/{id})'),
  approver: z.string().optional().describe('who approved or rejected it'),
  reason: z.string().optional(),
  decidedAt: z.string().optional(),
  createdAt: z.string(),
  expiresAt: z.string().describe('past it the call can be neither approved nor run: it fails closed'),
  expiresInSeconds: z.number().int().describe('0 once expired'),
});
const ApprovalListSchema = z.object({
  approvals: z.array(ApprovalViewSchema).describe('oldest first'),
  next: z.string().nullable().describe('pass as `cursor` for the next page; null at the end'),
});
const ApprovalDecidedSchema = z.object({
  result: z.enum(['approved', 'already-approved', 'rejected', 'already-rejected']),
  approval: ApprovalViewSchema,
});

export const WebhookPutBodySchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .refine((url) => {
        const parsed = new URL(url);
        return parsed.username === '' && parsed.password === '';
      }, 'no user name or password in the URL (the signature authenticates GuardAgent)')
      .describe('where each new held call is POSTed (http or https; private and loopback addresses only where the deployment allows them)'),
    secret: z.string().min(16).max(256).optional().describe('the HMAC-SHA256 key; left out, one is made and shown in this answer only'),
  })
  .strict();
const WebhookViewSchema = z.object({
  url: z.string(),
  createdAt: z.string(),
  source: z.enum(['tenant', 'deployment', 'none']).describe("the tenant's own webhook, the deployment's (GUARDAGENT_APPROVAL_WEBHOOK_URL), or none"),
});
const WebhookSetSchema = WebhookViewSchema.extend({ secret: z.string().optional().describe('the key made for you: shown in this answer only') });

const TenantCreatedSchema = z.object({
  id: z.string(),
  apiKey: z.string().describe('Shown only in this answer; stored as its sha256'),
  key: KeyIssuedSchema.omit({ apiKey: true }).describe('the key just issued (its id, to rotate or revoke it)'),
  createdAt: z.string(),
});

const AcceptedSchema = z.object({
  id: z.string(),
  status: z.enum(['queued', 'running', 'compiling']),
});

const PolicyPutResultSchema = z.object({ id: z.string(), version: z.string(), digest: z.string() });

const ReplayEvidenceSchema = VerificationReportSchema.shape.replay
  .unwrap()
  .nullable()
  .describe("The latest finished replay of recorded traffic with this version's program (POST /v1/policies/{id}/replays)");

const PolicyViewSchema = z.object({
  policy: PolicySchema,
  digest: z.string(),
  programDigest: z.string(),
  program: z
    .object({ source: z.enum(['supplied', 'compiled']), promotedAt: z.string(), passedCount: z.number(), total: z.number(), replay: ReplayEvidenceSchema })
    .nullable()
    .describe('The verified program checks run, if one is promoted for this version'),
  shadow: z
    .object({
      version: z.string(),
      digest: z.string(),
      programDigest: z.string(),
      programPromoted: z.boolean().describe('Whether the shadow has a verified program (without one it cannot decide)'),
      replay: ReplayEvidenceSchema,
    })
    .nullable()
    .describe('The version deciding beside this one (enforcement: shadow), if any'),
});

const PolicyVersionListSchema = z.object({
  versions: z
    .array(
      z.object({
        digest: z.string(),
        version: z.string(),
        enforcement: z.enum(['enforce', 'shadow']),
        putAt: z.string().nullable().describe('When it was put; null for a version stored before versions were recorded'),
        current: z.boolean().describe('The enforcing version now'),
        shadow: z.boolean().describe('The shadow version now'),
      }),
    )
    .describe('Newest first; the last 100 put'),
});

const PolicyVersionViewSchema = z.object({
  policy: PolicySchema,
  digest: z.string(),
  programDigest: z.string(),
  program: z
    .object({
      code: z.string().describe('The guard program checks run'),
      source: z.enum(['supplied', 'compiled']).describe('Supplied with the policy, or written by the LLM'),
      promotedAt: z.string(),
      passedCount: z.number().int().describe('Labelled examples it passed at verification'),
      total: z.number().int(),
    })
    .nullable()
    .optional()
    .describe("The version's verified program (compiled mode), null when none was promoted for it: compare two versions' programs"),
});

const TenantListSchema = z.object({
  tenants: z.array(z.object({ id: z.string(), name: z.string().optional(), createdAt: z.string() })).describe('Oldest first'),
  total: z.number().int(),
});

const PolicyListSchema = z.object({
  policies: z.array(z.object({ id: z.string(), version: z.string(), digest: z.string(), description: z.string().optional() })),
});

export const DemonstrationBodySchema = z.union([DemonstrationSchema, z.array(DemonstrationSchema).min(1).max(10_000)]);
const DemonstrationListSchema = z.object({ demonstrations: z.array(StoredDemonstrationSchema) });
const DemonstrationsAddedSchema = z.object({ ids: z.array(z.string()), added: z.number(), unchanged: z.number() });

export const ReplayRequestSchema = z
  .object({
    version: z
      .union([z.enum(['shadow', 'current']), z.string().regex(/^[0-9a-f]{64}$/, 'a policy version digest (64 hex digits)')])
      .default('shadow')
      .describe("The version that re-decides: the policy's shadow (default), its current version, or a stored version's digest"),
    since: sinceOrDate('since').describe('Recorded from this time: a duration back (30m, 24h, 7d) or an ISO date (default: the whole log)'),
    until: sinceOrDate('until').describe('Recorded before this time: a duration back or an ISO date (default: now)'),
    limit: z.number().int().min(1).max(100_000).optional().describe('Most recorded decisions replayed, oldest first (default and most: 100,000)'),
    llm: z
      .boolean()
      .default(false)
      .describe('Allow a version without a verified program to replay through the LLM (one LLM pipeline per recorded check); refused otherwise'),
  })
  .strict();

const ReplayListSchema = z.object({ replays: z.array(ReplayRecordSchema) });

const BatchCreatedSchema = z.object({ id: z.string(), total: z.number().int() });


const FieldIssueSchema = z.object({ path: z.string(), message: z.string() });
const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string().describe('Stable, for programs: VALIDATION_FAILED, NOT_FOUND, UNAUTHORIZED...'),
    message: z.string(),
    issues: z.array(FieldIssueSchema).optional().describe('Each invalid field, for VALIDATION_FAILED'),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

const HealthSchema = z.object({ status: z.literal('ok') });
const ReadySchema = z.object({
  ready: z.boolean(),
  redis: z.enum(['ok', 'unreachable']),
  workers: z.record(z.string(), z.number().int()).describe('Live workers per stage'),
  missing: z.array(z.string()).describe('Stages without a live worker'),
  sandbox: z
    .object({
      pools: z.number().int().describe('Executors reporting their sandbox pool'),
      unserving: z.array(z.string()).describe('Executors whose pool has had no ready sandbox worker past GUARDAGENT_SANDBOX_UNSERVED_MS'),
    })
    .describe("The executors' sandbox pools"),
});

/** Every schema published under components.schemas of the OpenAPI document, by name. */
export const API_COMPONENTS = {
  JsonValue: JsonValueSchema,
  Policy: PolicySchema,
  GuardJob: GuardJobSchema,
  Decision: DecisionSchema,
  CompileResult: CompileResultSchema,
  Demonstration: DemonstrationSchema,
  StoredDemonstration: StoredDemonstrationSchema,
  DemonstrationBody: DemonstrationBodySchema,
  DemonstrationList: DemonstrationListSchema,
  DemonstrationsAdded: DemonstrationsAddedSchema,
  Feedback: FeedbackBodySchema,
  FeedbackResult: FeedbackResultSchema,
  TenantCreate: TenantCreateBodySchema,
  Approval: ApprovalBodySchema,
  ApprovalResult: ApprovalResultSchema,
  ApprovalDecide: ApprovalDecideBodySchema,
  ApprovalDecided: ApprovalDecidedSchema,
  ApprovalView: ApprovalViewSchema,
  ApprovalList: ApprovalListSchema,
  WebhookPut: WebhookPutBodySchema,
  WebhookView: WebhookViewSchema,
  WebhookSet: WebhookSetSchema,
  TenantCreated: TenantCreatedSchema,
  KeyCreate: KeyCreateBodySchema,
  QuotaOverrides: QuotaOverridesBodySchema,
  QuotasView: QuotasViewSchema,
  KeyRotate: KeyRotateBodySchema,
  KeyList: KeyListSchema,
  KeyIssued: KeyIssuedSchema,
  Accepted: AcceptedSchema,
  PolicyPutResult: PolicyPutResultSchema,
  PolicyView: PolicyViewSchema,
  PolicyList: PolicyListSchema,
  PolicyVersionList: PolicyVersionListSchema,
  PolicyVersionView: PolicyVersionViewSchema,
  TenantList: TenantListSchema,
  BatchCreated: BatchCreatedSchema,
  BatchStatus: BatchStatusSchema,
  ReplayRequest: ReplayRequestSchema,
  Replay: ReplayRecordSchema,
  ReplayList: ReplayListSchema,
  Error: ErrorBodySchema,
  Health: HealthSchema,
  Ready: ReadySchema,
} as const satisfies Record<string, z.ZodType>;
export type ApiComponent = keyof typeof API_COMPONENTS;
