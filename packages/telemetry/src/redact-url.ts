/** A Redis URL without its password, for logs. */
export function redactUrl(url: string): string {
  // A cluster's seed list (redis-cluster://[user:password@]host:port,…) is no URL new URL() reads.
  if (url.startsWith('redis-cluster://')) return url.replace(/^(redis-cluster:\/\/[^:@/]*:)[^@]*@/, '$1***@');
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis://(unparseable)';
  }
}
