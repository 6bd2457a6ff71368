/**
 * The least work the vault's rules leave per request, done with the engine's own primitives and
 * nothing else: the floor a route can approach but not pass, for the targets that are ratios to a
 * server that does none of it (the bare Node reverse proxy, our server's echo).
 *
 * - sql.js with the vault's schema and pragmas (insert-ceiling.ts), prepared statements kept (or
 *   Node's own SQLite, floor-engines.ts);
 * - libsodium: XChaCha20-Poly1305 for token data and the journal record, keyed BLAKE2b for the API
 *   key's lookup hash, fingerprints, row MACs and the audit chain;
 * - every write grouped: one transaction for everyone waiting, its journal record sealed, then the
 *   record and the acknowledged mark written durably (durable-write-pair.ts), then all answered.
 *
 * Left out, because a route cannot do without them yet they are not the engine's: HTTP routing,
 * schema validation, permissions, expressions (masks are cut by hand), logging, limits, error
 * mapping, and moving audit entries out of memory (they stay in sql.js here). So a route's ratio
 * to this floor is the share of its cost that is ours, and the floor's ratio to the plain server
 * is the most any implementation on this engine could reach.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { StorageFs } from '../../core/backends/embedded/storage-fs.ts';
import { open, seal } from '../../core/crypto/aead.ts';
import { keyedHash } from '../../core/crypto/keyed-hash.ts';
import { loadSodium } from '../../core/crypto/sodium.ts';
import type { Sodium } from '../../core/crypto/sodium.ts';
import { openDurablePair } from './durable-write-pair.ts';
import type { DurablePair } from './durable-write-pair.ts';
import { floorDatabase, floorEngineFromEnv } from './floor-engines.ts';
import type { Cell, FloorDatabase, FloorEngineName, FloorStatement } from './floor-engines.ts';
import { CEILING_TENANT } from './insert-ceiling.ts';

interface Waiting {
  readonly rows: () => Cell[][];
  readonly startsGroup: boolean;
  readonly done: () => void;
  readonly failed: (error: unknown) => void;
}

/** A token as tokenize answers it. */
export interface FloorToken {
  readonly id: string;
  readonly type: string;
  readonly mask: string;
}

const key = () => new Uint8Array(randomBytes(32));
const utf8 = (text: string) => Buffer.from(text, 'utf8');

export class EngineFloor {
  private readonly dataKey = key();
  private readonly lookupKey = key();
  private readonly rowKey = key();
  private readonly chainKey = key();
  private readonly journalKey = key();
  private readonly keyHashes = new Map<string, Uint8Array>();
  private waiting: Waiting[] = [];
  private writing = false;
  private seq = 0;
  private head: Uint8Array = new Uint8Array(32);
  private readonly find: FloorStatement;
  private readonly insertToken: FloorStatement;
  private readonly insertActivity: FloorStatement;
  private readonly insertEntry: FloorStatement;
  private readonly setHead: FloorStatement;

  private constructor(
    private readonly sodium: Sodium,
    private readonly sqlite: FloorDatabase,
    private readonly pair: DurablePair,
  ) {
    this.find = sqlite.prepare(
      'select id, type, container, fingerprint, data, row_mac, mask from tokens where tenant_id = ? and id = ?',
    );
    this.insertToken = sqlite.prepare(
      'insert into tokens (tenant_id, id, type, data, mask, fingerprint, fingerprint_expression, container, created_at, row_mac) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertActivity = sqlite.prepare(
      'insert or ignore into token_activity (tenant_id, month, token_id) values (?, ?, ?)',
    );
    this.insertEntry = sqlite.prepare(
      'insert into audit_logs (id, tenant_id, seq, actor_id, actor_type, entity_type, entity_id, operation, message, created_at, prev_hash, hash, revealed) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const head = sqlite.prepare('insert into audit_heads (tenant_id, seq, hash) values (?, 0, ?)');
    head.run([CEILING_TENANT, this.head]);
    head.free();
    this.setHead = sqlite.prepare('update audit_heads set seq = ?, hash = ? where tenant_id = ?');
  }

  /**
   * A floor over a new in-memory database on `engine` (by default SVC_BENCH_FLOOR_ENGINE's, else
   * sql.js); its journal and mark in a fresh folder under `parent`, on `fs` (by default the bench
   * servers' layer).
   */
  static async open(
    parent?: string,
    fs?: StorageFs,
    engine: FloorEngineName = floorEngineFromEnv(),
  ): Promise<EngineFloor> {
    const [sodium, sqlite] = await Promise.all([loadSodium(), floorDatabase(engine)]);
    return new EngineFloor(sodium, sqlite, await openDurablePair(parent, fs));
  }

  /** Registers an API key: only its keyed hash is kept, as the vault keeps it. */
  addApiKey(apiKey: string, application: string): void {
    this.keyHashes.set(application, keyedHash(this.sodium, this.lookupKey, apiKey));
  }

  /** The application a presented key belongs to: its keyed hash, compared in constant time. */
  application(presented: string): string | null {
    const hash = keyedHash(this.sodium, this.lookupKey, presented);
    for (const [application, stored] of this.keyHashes) if (timingSafeEqual(hash, stored)) return application;
    return null;
  }

  /** Seals, fingerprints and vouches for a card number, staging its rows in the next group. */
  tokenize(actor: string, type: string, value: string): { token: FloorToken; durable: Promise<void> } {
    const id = randomUUID();
    const container = '/pci';
    const fingerprint = Buffer.from(keyedHash(this.sodium, this.lookupKey, value, 24)).toString('base64url');
    const data = Buffer.from(
      seal(this.sodium, this.dataKey, utf8(value), utf8(`${CEILING_TENANT}/${id}`)),
    ).toString('base64');
    const mask = `${value.slice(0, 6)}${'X'.repeat(Math.max(0, value.length - 10))}${value.slice(-4)}`;
    const mac = this.rowMac(id, type, container, fingerprint);
    const createdAt = new Date().toISOString();
    const durable = this.grouped(() => {
      this.insertToken.run([
        CEILING_TENANT,
        id,
        type,
        `v1.1.${data}`,
        mask,
        fingerprint,
        '{{ data }}',
        container,
        createdAt,
        mac,
      ]);
      this.insertActivity.run([CEILING_TENANT, createdAt.slice(0, 7), id]);
      return [
        [id, type, data, mask, fingerprint, container, createdAt, mac],
        this.entry(actor, id, 'create', null),
      ];
    });
    return { token: { id, type, mask }, durable };
  }

  /** A token's data for a caller allowed to see it: the row looked up, its MAC checked, its data opened. */
  reveal(tokenId: string): string | null {
    return this.opened(tokenId)?.data ?? null;
  }

  /** A token as a read shows it, answered once the read's audit entry is durable; null if unknown. */
  async read(actor: string, tokenId: string): Promise<(FloorToken & { data: string }) | null> {
    const token = this.opened(tokenId);
    if (token === null) return null;
    await this.grouped(() => [this.entry(actor, tokenId, 'read', 1)]);
    return token;
  }

  private opened(tokenId: string): (FloorToken & { data: string }) | null {
    const row = this.find.first([CEILING_TENANT, tokenId]) as string[] | undefined;
    if (row === undefined) return null;
    const [id, type, container, fingerprint, data, mac, mask] = row;
    const expected = Buffer.from(this.rowMac(id!, type!, container!, fingerprint!), 'base64');
    const stored = Buffer.from(mac!, 'base64');
    if (stored.length !== expected.length || !timingSafeEqual(stored, expected)) return null;
    const opened = open(
      this.sodium,
      this.dataKey,
      Buffer.from(data!.slice('v1.1.'.length), 'base64'),
      utf8(`${CEILING_TENANT}/${id!}`),
    );
    if (opened === null) return null;
    return { id: id!, type: type!, mask: mask!, data: Buffer.from(opened).toString('utf8') };
  }

  /**
   * An audit entry chained to the tenant's head, in the next group; resolves once it is durable.
   * An `invoke` entry starts no group of its own: it rides with the next one, as the vault's does.
   */
  audit(actor: string, tokenId: string, operation: 'use' | 'invoke'): Promise<void> {
    return this.grouped(
      () => [this.entry(actor, tokenId, operation, operation === 'use' ? 1 : null)],
      operation === 'use',
    );
  }

  close(): Promise<void> {
    for (const s of [this.find, this.insertToken, this.insertActivity, this.insertEntry, this.setHead])
      s.free();
    this.sqlite.close();
    return this.pair.close();
  }

  private rowMac(id: string, type: string, container: string, fingerprint: string): string {
    const message = JSON.stringify([CEILING_TENANT, id, type, container, fingerprint]);
    return Buffer.from(keyedHash(this.sodium, this.rowKey, message)).toString('base64');
  }

  /** Inserts one entry (run inside the group's transaction) and returns the journal's copy of it. */
  private entry(actor: string, entityId: string, operation: string, revealed: number | null): Cell[] {
    const seq = ++this.seq;
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    // The chained fields, then the row: the same cells with the message between.
    const named: Cell[] = [id, CEILING_TENANT, seq, actor, 'application', 'token', entityId, operation];
    const fields = JSON.stringify([...named, createdAt]);
    const prev = this.head;
    const message = new Uint8Array(prev.length + Buffer.byteLength(fields));
    message.set(prev, 0);
    message.set(utf8(fields), prev.length);
    const hash = keyedHash(this.sodium, this.chainKey, message);
    this.head = hash;
    const row: Cell[] = [...named, `Token ${operation}`, createdAt, prev, hash, revealed];
    this.insertEntry.run(row);
    return row;
  }

  /**
   * Group commit: everyone waiting when the previous group is durable forms the next one, in one
   * transaction, one sealed journal record and one durable write pair.
   */
  private grouped(rows: () => Cell[][], startsGroup = true): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.waiting.push({ rows, startsGroup, done, failed });
      if (startsGroup && !this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.some((w) => w.startsGroup)) {
        const group = this.waiting;
        this.waiting = [];
        // A group rolled back leaves the chain where it was, in memory as in the database.
        const [seq, head] = [this.seq, this.head];
        let inTransaction = false;
        try {
          this.sqlite.exec('BEGIN');
          inTransaction = true;
          const journaled: Cell[][][] = group.map((w) => w.rows());
          this.setHead.run([this.seq, this.head, CEILING_TENANT]);
          this.sqlite.exec('COMMIT');
          inTransaction = false;
          const text = JSON.stringify(journaled, (_k, v: unknown) =>
            v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
          );
          await this.pair.write(seal(this.sodium, this.journalKey, utf8(text), utf8('journal')));
          for (const w of group) w.done();
        } catch (error) {
          if (inTransaction) {
            this.sqlite.exec('ROLLBACK');
            [this.seq, this.head] = [seq, head];
          }
          for (const w of group) w.failed(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
