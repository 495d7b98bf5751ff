import { describe, expect, it } from 'vitest';
import { ConfigError } from '@guardagent/errors';
import { keyPrefixFor, loadConfig, parseRedisTarget } from '../src/index';

describe('Redis targets', () => {
  it('reads one server, and a cluster seed list with or without credentials', () => {
    expect(parseRedisTarget('redis://127.0.0.1:6379/0')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379/0' });
    expect(parseRedisTarget('redis-cluster://10.0.0.1:7000,10.0.0.2:7001, redis-3.internal:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-3.internal', port: 7002 },
      ],
    });
    expect(parseRedisTarget('redis-cluster://app:p%40ss@[::1]:7000/')).toEqual({ kind: 'cluster', nodes: [{ host: '::1', port: 7000 }], username: 'app', password: 'p@ss' });
    expect(parseRedisTarget('redis-cluster://:secret@h:7000')).toEqual({ kind: 'cluster', nodes: [{ host: 'h', port: 7000 }], password: 'secret' });
  });

  it('refuses malformed targets, naming the bad seed', () => {
    for (const bad of ['redis-cluster://', 'redis-cluster://h', 'redis-cluster://h:0', 'redis-cluster://h:70000', 'redis-cluster://h:7000,,h:7001', 'redis-cluster://h:7000;rm -rf', 'http://h:6379', 'not a url']) {
      expect(() => parseRedisTarget(bad), bad).toThrow(TypeError);
    }
    expect(() => parseRedisTarget('redis-cluster://h:7000,evil')).toThrow(/'evil' is not host:port/);
  });

  it('puts the prefix in a hash tag on a cluster only, once', () => {
    expect(keyPrefixFor('guardagent', 'redis://h:6379')).toBe('guardagent');
    expect(keyPrefixFor('guardagent', undefined)).toBe('guardagent');
    expect(keyPrefixFor('guardagent', 'redis-cluster://h:7000')).toBe('{guardagent}');
    expect(keyPrefixFor('{guardagent}', 'redis-cluster://h:7000')).toBe('{guardagent}');
  });

  it('loadConfig takes REDIS_URL as a cluster seed list, and names the variable when it is bad', () => {
    const config = loadConfig({ REDIS_URL: 'redis-cluster://h1:7000,h2:7000', GUARDAGENT_PREFIX: 'ga' });
    expect(config.redisUrl).toBe('redis-cluster://h1:7000,h2:7000');
    expect(config.prefix).toBe('{ga}');
    expect(() => loadConfig({ REDIS_URL: 'redis-cluster://h1' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'redis-cluster://h1' })).toThrow(/REDIS_URL/);
  });
});
