/**
 * Imported first by every bench process that serves (the vault, the echoes, the bare proxy, the
 * upstream): it runs with the runtime `svc start` and `svc serve` give a serving process
 * (cli/bin/server-runtime.js), so the figures are the product's and both sides of a ratio run
 * alike. A side-effect import: it replaces the process before the modules after it load.
 */
import { reexecForServing } from '../../cli/bin/server-runtime.js';

reexecForServing();
