import sodiumModule from 'libsodium-wrappers-sumo';

export type Sodium = typeof sodiumModule;

let ready: Promise<Sodium> | undefined;
let loaded: Sodium | undefined;

/** libsodium (WASM) once initialised. Every crypto module awaits this before its first use. */
export function loadSodium(): Promise<Sodium> {
  ready ??= sodiumModule.ready.then(() => (loaded = sodiumModule));
  return ready;
}

/** libsodium if `loadSodium` has already finished, for a hot path that would only await it. */
export function loadedSodium(): Sodium | undefined {
  return loaded;
}
