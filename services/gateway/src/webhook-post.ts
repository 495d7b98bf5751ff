import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Addresses a tenant's webhook may not reach unless the deployment allows it (loopback, private, link-local, …). */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** Whether an address is one a tenant's webhook may not reach by default (IPv4-mapped IPv6 read as IPv4). */
function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The destination refused before any byte was sent (a private address a tenant may not reach). */
export class WebhookDestinationError extends Error {}

export interface WebhookPostOptions {
  timeoutMs: number;
  /** Refuse private, loopback and link-local destinations (checked on every address the name resolves to, at connect time). */
  publicOnly: boolean;
}

/**
 * POST a webhook body; resolves with the HTTP status (the answer's body is read and dropped).
 * With `publicOnly`, the host name is resolved here and the connection made to the address
 * checked, so a name that resolves differently a moment later (DNS rebinding) changes nothing.
 * Redirects are not followed.
 */
export function postWebhook(url: string, body: string, headers: Record<string, string>, options: WebhookPostOptions): Promise<number> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (options.publicOnly && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.reject(new WebhookDestinationError(`${host} is a private or loopback address, which tenants' webhooks may not reach (GUARDAGENT_APPROVAL_WEBHOOK_PRIVATE_HOSTS)`));
  }
  const lookup: LookupFunction | undefined = options.publicOnly
    ? (hostname, lookupOptions, callback) => {
        dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
          if (error) return callback(error, '', 4);
          const refused = addresses.find((a) => isPrivateAddress(a.address));
          if (refused || addresses.length === 0) {
            return callback(new WebhookDestinationError(`${hostname} resolves to ${refused?.address ?? 'nothing'}, a private or loopback address tenants' webhooks may not reach`), '', 4);
          }
          if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          callback(null, addresses[0]!.address, addresses[0]!.family);
        });
      }
    : undefined;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: options.timeoutMs,
        ...(lookup ? { lookup } : {}),
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
