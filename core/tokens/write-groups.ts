/**
 * Writes that arrive while another is being written are written together, in one transaction: the
 * first caller starts a group at once; callers that arrive while a group is written queue, and the
 * next group takes them all (up to `maxWeight`). A group is being written until it is answered, or
 * until its journal record is durable (`onJournaled`) when at least as many callers wait as it
 * holds: the next group then runs while the previous one's commit is acknowledged (a smaller one
 * started that early would cost its fixed work for fewer callers). A group costs one transaction, one commit and one journal record however many
 * callers it answers, and each caller is answered only after the group's commit is durable, as
 * with a transaction of its own.
 *
 * A group that fails is written by nobody: every member is told to run alone (its own transaction,
 * its own error), so one member's failure never becomes another's. A group's writer may also tell
 * single members to run alone (work the group does not do).
 *
 * Groups are written in the async context the queue was made in, never a caller's: a caller's
 * request budget or open transaction must not carry over into other callers' work.
 */
import { AsyncResource } from 'node:async_hooks';
import type { TransactionOptions } from '../vault/storage-contract.ts';

export type GroupOutcome<R> = { readonly kind: 'done'; readonly value: R } | { readonly kind: 'alone' };

const ALONE: GroupOutcome<never> = { kind: 'alone' };

export function runAlone(): GroupOutcome<never> {
  return ALONE;
}

interface Waiting<M, R> {
  readonly member: M;
  readonly weight: number;
  resolve(outcome: GroupOutcome<R>): void;
}

export class WriteGroups<M, R> {
  private queue: Array<Waiting<M, R>> = [];
  private writing = false;
  private readonly scope = new AsyncResource('svc.write-groups');

  /**
   * `write` writes the members in one transaction (run with `options`), returning one outcome per
   * member in order.
   */
  constructor(
    private readonly write: (
      members: readonly M[],
      options: TransactionOptions,
    ) => Promise<ReadonlyArray<GroupOutcome<R>>>,
    private readonly maxWeight: number,
  ) {}

  /** Queues `member`; resolves with its outcome once its group is durable (or failed). */
  submit(member: M, weight: number): Promise<GroupOutcome<R>> {
    return new Promise((resolve) => {
      this.queue.push({ member, weight, resolve });
      this.startGroup();
    });
  }

  private take(): Array<Waiting<M, R>> {
    let weight = 0;
    let n = 0;
    while (n < this.queue.length && (n === 0 || weight + this.queue[n]!.weight <= this.maxWeight)) {
      weight += this.queue[n]!.weight;
      n += 1;
    }
    return this.queue.splice(0, n);
  }

  /** Starts the next group unless one is being written. */
  private startGroup(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const group = this.take();
    let written = false;
    const next = () => {
      if (written) return;
      written = true;
      this.writing = false;
      this.startGroup();
    };
    this.scope.runInAsyncScope(() => void this.writeGroup(group, next));
  }

  private async writeGroup(group: Array<Waiting<M, R>>, written: () => void): Promise<void> {
    let outcomes: ReadonlyArray<GroupOutcome<R>> | null = null;
    try {
      // Started early only when the next group would be no smaller than this one.
      const onJournaled = () => this.queue.length >= group.length && written();
      outcomes = await this.write(
        group.map((w) => w.member),
        { onJournaled },
      );
    } catch {
      outcomes = null;
    } finally {
      written();
    }
    for (const [i, waiting] of group.entries()) waiting.resolve(outcomes?.[i] ?? ALONE);
  }
}
