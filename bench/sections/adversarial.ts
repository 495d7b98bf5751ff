import { QueueTransport } from '@guardagent/client/queue';
import type { Decision, PolicyInput } from '@guardagent/schemas';
import { spawnService } from '../lib/children';
import { waitForExecutors } from '../lib/executors';
import { log } from '../lib/log';
import { round } from '../lib/stats';

/**
 * `--only adversarial`: how long each attack's check takes to end (fail-closed) on a real
 * executor process, and how many ordinary compiled checks of another tenant that executor decides
 * per second alone and while attacks run alongside.
 */
export interface AdversarialResult {
  adversarial_worst_ms: Record<string, number>;
  adversarial_outcomes: Record<string, string>;
  adversarial_ordinary_per_s_alone: number;
  adversarial_ordinary_per_s_under_attack: number;
}

const examples = [
  { input: 'hello', label: 0 as const },
  { input: 'bye', label: 0 as const },
];

const ATTACKS: Record<string, { policy: PolicyInput; input: string }> = {
  'cpu-loop (policy cpuMs 5000)': {
    policy: { id: 'adv-cpu', requests: 'x', mode: 'compiled', limits: { cpuMs: 5000, wallMs: 5000 }, examples, program: 'if (input === "attack") { for (;;) {} } return { deny: false, reasons: [] };' },
    input: 'attack',
  },
  'host-time toolbox loop': {
    policy: {
      id: 'adv-host',
      requests: 'x',
      mode: 'compiled',
      examples,
      // The heaviest linear helper (about 9 ms per call on 100 KB), called until a limit stops it.
      toolbox: ['seeact'],
      program: 'if (input === "attack") { const t = "book a hotel and rent a car ".repeat(4000); for (let i = 0; i < 1e9; i++) classifyTask(t); } return { deny: false, reasons: [] };',
    },
    input: 'attack',
  },
  'injection filter, 2 MB of newlines': {
    policy: { id: 'adv-inj', mode: 'compiled', rails: { input: { injection: { threshold: 0.5 } } } },
    input: '\n'.repeat(2_000_000),
  },
  'PII filter, ssn + 2 MB of spaces': {
    policy: { id: 'adv-pii', mode: 'compiled', rails: { input: { pii: { kinds: ['ssn', 'secret'], action: 'redact' } } } },
    input: `ssn${' '.repeat(1_999_990)}x`,
  },
  'PII filter, 2 MB of JWT-like text': {
    policy: { id: 'adv-jwt', mode: 'compiled', rails: { input: { pii: { kinds: ['secret'], action: 'redact' } } } },
    input: 'eyJ'.repeat(666_666),
  },
  'PII filter, 2 MB of PEM BEGIN lines': {
    policy: { id: 'adv-pem', mode: 'compiled', rails: { input: { pii: { kinds: ['secret'], action: 'redact' } } } },
    input: '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(62_500),
  },
  'injection filter, 1 MB of newlines': {
    policy: { id: 'adv-inj-1mb', mode: 'compiled', rails: { input: { injection: { threshold: 0.5 } } } },
    input: '\n'.repeat(1_000_000),
  },
};

const ordinaryPolicy: PolicyInput = {
  id: 'adv-ordinary',
  requests: 'Deny the word stop.',
  mode: 'compiled',
  program: 'return { deny: input === "stop", reasons: [] };',
  examples: [
    { input: 'stop', label: 1 },
    { input: 'go', label: 0 },
  ],
};

async function ordinaryRate(client: QueueTransport, total: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < total) {
      next++;
      await client.check({ policy: 'adv-ordinary', input: next % 2 ? 'stop' : 'go' }, { timeoutMs: 60_000 });
    }
  };
  await Promise.all(Array.from({ length: 100 }, lane));
  return round(total / ((performance.now() - started) / 1000), 0);
}

export async function runAdversarial(options: { redisUrl: string; prefix: string; ordinary: number }): Promise<AdversarialResult> {
  const executor = spawnService('executor', { REDIS_URL: options.redisUrl, GUARDAGENT_PREFIX: options.prefix, GUARDAGENT_LLM_BASE_URL: '' });
  const attacker = await QueueTransport.connect({ redisUrl: options.redisUrl, prefix: options.prefix, tenant: 'attacker' });
  const other = await QueueTransport.connect({ redisUrl: options.redisUrl, prefix: options.prefix, tenant: 'bystander' });
  try {
    await waitForExecutors(options.redisUrl, options.prefix, 1);
    const compiled = await other.compile(ordinaryPolicy);
    if (compiled.status !== 'promoted') throw new Error('the ordinary policy was not promoted');
    for (const { policy } of Object.values(ATTACKS)) {
      if (policy.program) await attacker.compile(policy);
      else await attacker.putPolicy(policy);
    }
    await ordinaryRate(other, Math.min(200, options.ordinary)); // warm-up
    const alone = await ordinaryRate(other, options.ordinary);

    const worst: Record<string, number> = {};
    const outcomes: Record<string, string> = {};
    for (const [name, attack] of Object.entries(ATTACKS)) {
      const started = performance.now();
      const decision: Decision = await attacker.check({ policy: attack.policy.id, input: attack.input }, { timeoutMs: 60_000 });
      worst[name] = round(performance.now() - started, 1);
      outcomes[name] = `${decision.decision}/${decision.status}${decision.error ? ` ${decision.error.code}` : ''}`;
      log(`adversarial ${name}: ${worst[name]} ms → ${outcomes[name]}`);
    }

    // The two sandbox attacks again, back to back, while the ordinary checks run.
    let attacking = true;
    const attacks = (async () => {
      while (attacking) {
        await Promise.all(
          ['adv-cpu', 'adv-host'].map((policy) => attacker.check({ policy, input: 'attack' }, { timeoutMs: 60_000 })),
        );
      }
    })();
    const underAttack = await ordinaryRate(other, options.ordinary);
    attacking = false;
    await attacks;
    log(`adversarial: ordinary checks ${alone}/s alone, ${underAttack}/s with attacks running`);
    return {
      adversarial_worst_ms: worst,
      adversarial_outcomes: outcomes,
      adversarial_ordinary_per_s_alone: alone,
      adversarial_ordinary_per_s_under_attack: underAttack,
    };
  } finally {
    await attacker.close();
    await other.close();
    await executor.stop();
  }
}
