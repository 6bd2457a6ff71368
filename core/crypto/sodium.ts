import sodiumModule from 'libsodium-wrappers-sumo';

export type Sodium = typeof sodiumModule;

let ready: Promise<Sodium> | undefined;

/** libsodium (WASM) once initialised. Every crypto module awaits this before its first use. */
export function loadSodium(): Promise<Sodium> {
  ready ??= sodiumModule.ready.then(() => sodiumModule);
  return ready;
}
