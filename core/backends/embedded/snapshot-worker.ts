/**
 * Entry point of a background snapshot's worker thread: builds one new vault file from the files
 * (snapshot-build.ts) with its own sql.js and libsodium, reports how it ended, and exits. The copy
 * and the encryption of the database run here, so the vault's event loop keeps serving meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import { loadSodium } from '../../crypto/sodium.ts';
import { lowerThisThreadPriority } from '../../threads/background-priority.ts';
import { nodeStorageFs } from './storage-fs.ts';
import { buildSnapshotFromFiles } from './snapshot-build.ts';
import type { SnapshotBuildRequest } from './snapshot-build.ts';
import { failureOutcome } from './snapshot-thread.ts';
import type { SnapshotBuildOutcome } from './snapshot-thread.ts';

const port = parentPort;
if (port === null) throw new Error('core/backends/embedded/snapshot-worker.ts must run in a worker thread');

// The build competes for the cores with the thread that answers requests: it yields to it.
lowerThisThreadPriority();

port.once('message', (request: SnapshotBuildRequest) => {
  void build(request).then((outcome) => {
    port.postMessage(outcome);
    port.close();
  });
});

async function build(request: SnapshotBuildRequest): Promise<SnapshotBuildOutcome> {
  try {
    await buildSnapshotFromFiles(await loadSodium(), nodeStorageFs, request);
    return { ok: true };
  } catch (err) {
    return failureOutcome(err);
  } finally {
    // This thread's copies of the keys; the vault's own stay with its keyring.
    for (const [, key] of request.fileKeys) key.fill(0);
  }
}
