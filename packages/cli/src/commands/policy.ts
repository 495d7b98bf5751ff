import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { EXIT_CODES, type HttpTransport } from '@guardagent/client';
import { NotFoundError, ValidationError } from '@guardagent/errors';
import type { Policy } from '@guardagent/schemas';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';
import { readPolicyFile } from '../policy-file';
import { diffPolicies, formatChanges } from '../policy/policy-diff';

const LINT_HELP = `
Checks each policy as the gateway checks one it stores, without Redis or a gateway: its schema
(unknown fields and values, with the closest known one), its rails (CEL conditions, argument
schemas, patterns, references to roles, tools and arguments) and the tests file beside it
(<policy>.tests.yaml). A directory stands for every policy file under it. Each problem is printed
as file:line:column: field: message.

Exit codes: ${EXIT_CODES.OK} no problems, ${EXIT_CODES.DENIED} a policy or tests file has a problem, ${EXIT_CODES.INVALID} no such file or directory.
`;

const TEST_HELP = `
Runs each policy's labelled examples, and the cases of the tests file beside it
(<policy>.tests.yaml, or --tests FILE), as checks through the real pipeline: the rails, then
the policy's program in the sandbox (the LLM only for guard requests without a program, and only
when one is configured). It runs on a private redis-server and workers of its own, never on
REDIS_URL, so nothing is registered on a deployment. Each case runs in rate-limit windows of its
own; a labelled example with label 1 passes when denied or held, label 0 when allowed.

A tests file:
  policy: refund-desk                 # optional: the policy id these cases are for
  defaults:                           # optional: taken by every case that gives none
    subject: { id: cust-42, roles: [support_agent] }
  cases:
    - name: a support agent refunds 20 to the session's user
      tool: issue_refund              # or action: { kind: tool_call | message, ... }
      args: { user_id: cust-42, amount: 20, reason: broken mug }
      expect: allow                   # allow | deny | pending
    - name: refunds over 50 wait for a supervisor
      tool: issue_refund
      args: { user_id: cust-42, amount: 80, reason: broken mug }
      expect: { decision: pending, rule: tools.issue_refund.approval.over-50 }
    - name: the sixth refund within the hour is refused
      tool: issue_refund
      args: { user_id: cust-42, amount: 10, reason: broken mug }
      repeat: 6                       # the same call 6 times in a row; the last is checked
      expect: { decision: deny, rules: [tools.issue_refund.rate-limit], reasons: [rate limit] }
  A case may also give input, output, context and subject. expect may also name the status
  (ok by default: a guard_error never passes by accident) and the layer (rails, guardagent).

A case that decides otherwise is printed with a diff: "-" what the case expects, "+" what was
decided. Exit codes: ${EXIT_CODES.OK} every case passed, ${EXIT_CODES.DENIED} a case failed (or a policy has no cases),
${EXIT_CODES.INVALID} an invalid policy or tests file, ${EXIT_CODES.UNAVAILABLE} the pipeline could not run.
`;

const GATEWAY_HELP = `
Talks to the gateway (--gateway, GUARDAGENT_URL) with GUARDAGENT_API_KEY (a key with scope
operate; or GUARDAGENT_ADMIN_KEY, acting as tenant 'default').
`;

const DIFF_HELP = `
  guardagent policy diff FILE            what putting FILE would change in the stored version of its id
  guardagent policy diff OLD.yaml NEW.yaml   two files (no gateway)
  guardagent policy diff ID [--from REF] [--to REF]   two stored versions (default: previous → current)
A REF is a version digest or a prefix of one (8 hex digits or more), a version label (the newest
put with it), current, shadow or previous. Each change is printed as "~ field: old → new",
"+ field: value" or "- field: value".
Exit codes: ${EXIT_CODES.OK} the same, ${EXIT_CODES.DENIED} they differ, ${EXIT_CODES.INVALID} an unknown id, version or file.
`;

const isFile = (arg: string) => existsSync(arg) && statSync(arg).isFile();

/** A stored version by reference: current, shadow, previous, a digest (prefix) or a version label. */
async function storedVersion(gateway: HttpTransport, id: string, ref: string): Promise<{ policy: Policy; label: string }> {
  if (ref === 'current') {
    const view = await gateway.getPolicy(id);
    return { policy: view.policy, label: `${id} version ${view.policy.version} (${view.digest.slice(0, 12)}, current)` };
  }
  const versions = await gateway.policyVersions(id);
  let digest: string | undefined;
  if (ref === 'shadow') digest = versions.find((v) => v.shadow)?.digest;
  else if (ref === 'previous') {
    const current = versions.findIndex((v) => v.current);
    digest = versions.slice(current + 1).find((v) => v.enforcement === 'enforce' && v.digest !== versions[current]?.digest)?.digest;
  } else {
    const byDigest = [...new Set(versions.map((v) => v.digest).filter((d) => ref.length >= 8 && d.startsWith(ref)))];
    digest = byDigest.length === 1 ? byDigest[0] : versions.find((v) => v.version === ref)?.digest;
  }
  if (!digest) throw new NotFoundError(`version '${ref}' of policy`, id);
  const found = await gateway.policyVersion(id, digest);
  return { policy: found.policy, label: `${id} version ${found.policy.version} (${digest.slice(0, 12)})` };
}

/** Print a diff and set the exit code: 0 the same, 1 they differ. */
function reportDiff(from: { policy: unknown; label: string }, to: { policy: unknown; label: string }, json: boolean | undefined): void {
  const changes = diffPolicies(from.policy, to.policy);
  if (json) printJson({ from: from.label, to: to.label, same: changes.length === 0, changes }, true);
  else process.stdout.write(`--- ${from.label}\n+++ ${to.label}\n${changes.length === 0 ? '(no changes)' : formatChanges(changes)}\n`);
  process.exitCode = changes.length === 0 ? EXIT_CODES.OK : EXIT_CODES.DENIED;
}

export function registerPolicy(program: Command): void {
  const policy = program.command('policy').description('the policy lifecycle: lint and test policy files, put them, read, list and diff stored versions');

  policy
    .command('lint')
    .description('check policy files (and their tests files) as the gateway checks a policy it stores; for CI')
    .argument('<files...>', 'policy files or directories')
    .option('--tests <file>', "the tests file of the (one) policy, instead of the one beside it")
    .option('--json', 'print the result as JSON')
    .addHelpText('after', LINT_HELP)
    .action(async (files: string[], options: { tests?: string; json?: boolean }) => {
      const { lintPolicies } = await import('../policy/lint-policies');
      process.exitCode = lintPolicies(files, options);
    });

  policy
    .command('test')
    .description("run policies' labelled examples and test cases through the rails and their program; a diff for each case that fails")
    .argument('<files...>', 'policy files or directories')
    .option('--tests <file>', "the tests file of the (one) policy, instead of the one beside it")
    .option('--no-examples', "leave out the policies' labelled examples")
    .option('--timeout <ms>', 'how long one check may take', '30000')
    .option('--json', 'print the results as JSON')
    .addHelpText('after', TEST_HELP)
    .action(async (files: string[], options: { tests?: string; examples: boolean; timeout: string; json?: boolean }) => {
      const { testPolicies } = await import('../policy/test-policies');
      process.exitCode = await testPolicies(files, { ...options, timeoutMs: Number(options.timeout) });
    });

  withGatewayOption(
    policy
      .command('put')
      .description('check policy files and store each as its id\'s current version (or its shadow, with enforcement: shadow)')
      .argument('<files...>', 'policy files (YAML/JSON)')
      .option('--compile', "then compile (verify a supplied program against the policy's examples); exit 1 if one fails")
      .addHelpText('after', `${GATEWAY_HELP}Exit codes: ${EXIT_CODES.OK} stored, ${EXIT_CODES.DENIED} a program failed verification (--compile), ${EXIT_CODES.INVALID} a policy refused (each problem with its line).\n`),
  ).action(async (files: string[], options: GatewayOptions & { compile?: boolean }) => {
    // Every file is checked before any is stored: one bad file stores none.
    const read = files.map((file) => readPolicyFile(file));
    await onGateway(options, 'tenant', 'policy put', async (gateway) => {
      for (const { path, policy: doc, text } of read) {
        let stored: Awaited<ReturnType<HttpTransport['putPolicy']>>;
        try {
          stored = await gateway.putPolicy(doc);
        } catch (error) {
          if (error instanceof ValidationError) throw new ValidationError(path, text.withLines(error.issues));
          throw error;
        }
        const compiled = options.compile ? await gateway.compile(doc.id) : null;
        printJson({ file: path, ...stored, ...(compiled ? { compile: { status: compiled.status, report: compiled.report, ...(compiled.message ? { message: compiled.message } : {}), ...(compiled.error ? { error: compiled.error } : {}) } } : {}) });
        if (compiled && compiled.status !== 'promoted' && compiled.status !== 'rails-only') process.exitCode = EXIT_CODES.DENIED;
      }
    });
  });

  withGatewayOption(
    policy
      .command('get <id>')
      .description('print a stored policy as YAML (a policy file), or with --json as the gateway shows it (digests, verified program, shadow)')
      .option('--at <ref>', 'which stored version: a digest (prefix), a version label, current, shadow or previous', 'current')
      .option('--json', 'the JSON view')
      .addHelpText('after', GATEWAY_HELP),
  ).action(async (id: string, options: GatewayOptions & { at: string; json?: boolean }) => {
    await onGateway(options, 'tenant', 'policy get', async (gateway) => {
      if (options.json && options.at === 'current') return printJson(await gateway.getPolicy(id), true);
      const { policy: doc, label } = await storedVersion(gateway, id, options.at);
      if (options.json) printJson({ label, policy: doc }, true);
      else process.stdout.write(`# ${label}\n${stringify(doc, { lineWidth: 0 })}`);
    });
  });

  withGatewayOption(policy.command('list').description("the tenant's policies: each id's current version").addHelpText('after', GATEWAY_HELP)).action(
    async (options: GatewayOptions) => printJson(await onGateway(options, 'tenant', 'policy list', (g) => g.listPolicies()), true),
  );

  withGatewayOption(policy.command('delete <id>').description('remove a policy id and its history (checks already queued still finish)').addHelpText('after', GATEWAY_HELP)).action(
    async (id: string, options: GatewayOptions) => printJson(await onGateway(options, 'tenant', 'policy delete', (g) => g.deletePolicy(id).then(() => ({ deleted: id })))),
  );

  withGatewayOption(
    policy
      .command('versions <id>')
      .description('the versions put under a policy id, newest first (the current one marked *, the shadow s)')
      .option('--json', 'print them as JSON')
      .addHelpText('after', GATEWAY_HELP),
  ).action(async (id: string, options: GatewayOptions & { json?: boolean }) => {
    const versions = await onGateway(options, 'tenant', 'policy versions', (g) => g.policyVersions(id));
    if (options.json) return printJson(versions, true);
    for (const v of versions) {
      process.stdout.write(`${v.current ? '*' : v.shadow ? 's' : ' '} ${v.version.padEnd(12)} ${v.digest.slice(0, 16)}  ${v.enforcement.padEnd(7)}  ${v.putAt ?? '(before versions were recorded)'}\n`);
    }
  });

  withGatewayOption(
    policy
      .command('diff')
      .description('what changed between two versions of a policy: a file and its stored version, two files, or two stored versions')
      .argument('<targets...>', 'FILE, OLD NEW files, or a policy ID')
      .option('--from <ref>', 'with an ID: the older version', 'previous')
      .option('--to <ref>', 'with an ID: the newer version', 'current')
      .option('--json', 'print the changes as JSON')
      .addHelpText('after', `${DIFF_HELP}${GATEWAY_HELP}`),
  ).action(async (targets: string[], options: GatewayOptions & { from: string; to: string; json?: boolean }) => {
    if (targets.length > 2) throw new ValidationError('arguments', [{ path: 'targets', message: 'give FILE, OLD NEW, or an ID' }]);
    if (targets.length === 2) {
      const [older, newer] = targets.map((file) => readPolicyFile(file));
      return reportDiff({ policy: older!.policy, label: older!.path }, { policy: newer!.policy, label: newer!.path }, options.json);
    }
    const [target] = targets as [string];
    await onGateway(options, 'tenant', 'policy diff', async (gateway) => {
      if (isFile(target)) {
        const file = readPolicyFile(target);
        const stored = await storedVersion(gateway, file.policy.id, 'current').catch((error: unknown) => {
          if (error instanceof NotFoundError) return { policy: {}, label: `${file.policy.id} (not stored)` };
          throw error;
        });
        return reportDiff(stored, { policy: file.policy, label: target }, options.json);
      }
      reportDiff(await storedVersion(gateway, target, options.from), await storedVersion(gateway, target, options.to), options.json);
    });
  });
}
