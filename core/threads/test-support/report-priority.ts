/** Worker entry of background-priority.test.ts: lowers its own priority and reports its nice values. */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadPriority, thisThreadNice } from '../background-priority.ts';

const before = thisThreadNice();
const lowered = lowerThisThreadPriority();
parentPort?.postMessage({ before, lowered, nice: thisThreadNice() });
