import { describe, expect, it } from 'vitest';
import { postgresConnectionString } from './pool.ts';

const sslmode = (url: string) => new URL(postgresConnectionString(url)).searchParams.get('sslmode');

describe('postgresConnectionString', () => {
  it.each([
    'postgres://svc@db.example:5432/vault',
    'postgresql://svc@10.0.0.5/vault',
    'postgres://svc@[2001:db8::1]/vault',
  ])('asks for a verified TLS connection to another machine: %s', (url) => {
    expect(sslmode(url)).toBe('verify-full');
  });

  it.each([
    'postgres://svc@127.0.0.1:5432/vault',
    'postgres://svc@localhost/vault',
    'postgres://svc@[::1]/vault',
    'postgres://svc@%2Fvar%2Frun%2Fpostgresql/vault',
    'postgres:///vault?host=/var/run/postgresql',
  ])('leaves a connection that stays on this machine (loopback or Unix socket) as asked: %s', (url) => {
    expect(sslmode(url)).toBeNull();
  });

  it('keeps the sslmode a URL asks for, and a host parameter that is not a socket decides', () => {
    expect(sslmode('postgres://svc@db.example/vault?sslmode=disable')).toBe('disable');
    expect(sslmode('postgres://svc@localhost/vault?sslmode=require')).toBe('require');
    expect(sslmode('postgres://svc@localhost/vault?host=db.example')).toBe('verify-full');
  });

  it('reads a URL without a host as the client does: where PGHOST says, else this machine', () => {
    const before = process.env.PGHOST;
    try {
      process.env.PGHOST = 'db.example';
      expect(sslmode('postgres:///vault')).toBe('verify-full');
      process.env.PGHOST = '/var/run/postgresql';
      expect(sslmode('postgres:///vault')).toBeNull();
      delete process.env.PGHOST;
      expect(sslmode('postgres:///vault')).toBeNull();
    } finally {
      if (before === undefined) delete process.env.PGHOST;
      else process.env.PGHOST = before;
    }
  });

  it('refuses what is not a postgres:// URL', () => {
    expect(() => postgresConnectionString('mysql://db/vault')).toThrow(/postgres:\/\//);
    expect(() => postgresConnectionString('not a url')).toThrow(/not a valid/);
  });
});
