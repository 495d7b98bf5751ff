import type { PiiPattern } from './pii-patterns';

/**
 * Secrets by their published shapes (token prefixes as documented by each vendor and as gitleaks
 * detects them). Bounded quantifiers only; each starts at a fixed prefix, so a 2 MB text costs
 * one scan per pattern.
 */
export const SECRET_PATTERNS: readonly PiiPattern[] = [
  { kind: 'secret', regex: /\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,200}/g, needs: (t) => t.includes('sk-') },
  { kind: 'secret', regex: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,200}/g, needs: (t) => t.includes('k_') },
  { kind: 'secret', regex: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { kind: 'secret', regex: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, needs: (t) => t.includes('_') },
  { kind: 'secret', regex: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, needs: (t) => t.includes('github_pat_') },
  // Slack bot/user/app-level tokens.
  { kind: 'secret', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,200}/g, needs: (t) => t.includes('xox') },
  { kind: 'secret', regex: /\bxapp-\d-[A-Za-z0-9]{1,40}-\d{1,20}-[A-Za-z0-9]{1,128}/g, needs: (t) => t.includes('xapp-') },
  { kind: 'secret', regex: /\bAIza[0-9A-Za-z_-]{35}/g, needs: (t) => t.includes('AIza') },
  // Hugging Face user and organisation tokens.
  { kind: 'secret', regex: /\b(?:hf_|api_org_)[A-Za-z]{34}\b/g, needs: (t) => t.includes('hf_') || t.includes('api_org_') },
  // GitLab personal access tokens, legacy and routable.
  { kind: 'secret', regex: /\bglpat-[0-9A-Za-z_-]{20,300}(?:\.[0-9a-z]{9})?/g, needs: (t) => t.includes('glpat-') },
  // npm access tokens.
  { kind: 'secret', regex: /\bnpm_[A-Za-z0-9]{36}\b/g, needs: (t) => t.includes('npm_') },
  // SendGrid API keys: SG.<22>.<43>.
  { kind: 'secret', regex: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g, needs: (t) => t.includes('SG.') },
  // Amazon Bedrock API keys: long-lived (ABSK + base64) and short-lived (a base64 presigned URL).
  { kind: 'secret', regex: /\bABSK[A-Za-z0-9+/]{109,269}={0,2}/g, needs: (t) => t.includes('ABSK') },
  { kind: 'secret', regex: /\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/%=]{0,8000}/g, needs: (t) => t.includes('bedrock-api-key-') },
  {
    kind: 'secret',
    regex:
      // The body cannot cross another `-----` marker, so a run of BEGIN lines costs one scan, not one per line.
      /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----)[\s\S]){0,20000}-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)?/g,
    needs: (t) => t.includes('-----BEGIN'),
  },
  {
    kind: 'secret',
    // Starts only where a token starts (not inside a run of token characters): one scan per token.
    regex: /(?<![A-Za-z0-9_.-])eyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,16000}\.[A-Za-z0-9_-]{0,2000}/g,
    needs: (t) => t.includes('eyJ'),
  },
];
