/**
 * The QuickJS sandbox for user JavaScript (reactor formulas, proxy transforms).
 *
 * API:
 * - `createSandbox({ limits?, workers?, fetch? })` → `Sandbox`; build one per process and `close()` it.
 * - `sandbox.checkModuleCode(code)` → null, or the 422 UNPROCESSABLE VaultError whose detail says
 *   `Invalid Reactor Formula: line <n>, column <m>: <message>` (or why the module is not one function).
 * - `sandbox.runModule({ code, args, configuration, svc, limits? })` → `SandboxOutcome`:
 *   `{kind:'ok', output}` | `{kind:'problem', error: VaultError}` |
 *   `{kind:'custom-response', status, headers, body}` (answer exactly that).
 *   The code is CommonJS `module.exports = async function (req) {…}` and gets
 *   `req = { args, configuration, svc }`; `svc` is built from the `SvcBridge` (null → `req.svc === null`).
 * - `fetch` (an `OutboundFetch`): the network behind the code's global `fetch`; default refuses.
 * - Limits (limits.ts): fixed 64 MiB WebAssembly memory, 30 s deadline, 1 MiB output, host-call caps.
 * Error-class table and problem mapping: outcome.ts. Shims and `require` allow-list: prelude.ts.
 */
export {
  CODE_CHECK_TIMEOUT_MS,
  DEFAULT_SANDBOX_LIMITS,
  DEFAULT_SANDBOX_MEMORY_BYTES,
  DEFAULT_SANDBOX_OUTPUT_BYTES,
  DEFAULT_SANDBOX_TIMEOUT_MS,
  sandboxLimits,
} from './limits.ts';
export type { SandboxLimits } from './limits.ts';
export { SANDBOX_FETCH_MAX_RESPONSE_BYTES, SANDBOX_FETCH_TIMEOUT_MS, refuseOutbound } from './outbound.ts';
export type { OutboundFetch, OutboundRequest, OutboundResponse } from './outbound.ts';
export { checkedErrors, checkedHeaders, codeProblemOf } from './outcome.ts';
export type { CodeProblem, SandboxOutcome } from './outcome.ts';
export { ERROR_FALLBACK, REACTOR_ERROR_CLASSES, REQUIRABLE_MODULES, SVC_METHODS } from './prelude.ts';
export type { ReactorErrorClass, SvcMethod } from './prelude.ts';
export { createSandbox } from './sandbox.ts';
export type { RunModuleRequest, Sandbox, SandboxOptions, SvcBridge } from './sandbox.ts';
