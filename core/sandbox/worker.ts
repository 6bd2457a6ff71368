/**
 * Entry point of a sandbox worker thread: runs one formula at a time in QuickJS (engine.ts) and
 * relays host calls to the parent. Runs off the server's event loop, so an endless loop in a formula
 * only occupies this thread until its deadline. While idle (at start and after each reported run)
 * it prepares the next run's fresh context, so a run does not wait for the prelude.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QuickJsEngine } from './engine.ts';
import type { HostToWorker, WorkerData, WorkerToHost } from './protocol.ts';

const port = parentPort;
if (port === null) throw new Error('core/sandbox/worker.ts must run in a worker thread');

const send = (message: WorkerToHost): void => port.postMessage(message);
const data = workerData as WorkerData;
const engine = new QuickJsEngine(send, data.quickJs);
let memoryBytes = data.memoryBytes;

/** After the current macrotask, so a message already waiting is taken first. */
const prepareSoon = (): void => {
  setImmediate(() => void engine.prepareNext(memoryBytes));
};

port.on('message', (message: HostToWorker) => {
  if (message.type === 'reply') {
    engine.reply(message);
    return;
  }
  memoryBytes = message.limits.memoryBytes;
  void engine.run(message).then((result) => {
    send({ type: 'done', runId: message.runId, result });
    prepareSoon();
  });
});
prepareSoon();
