/** Node's own platform pool size, used when `--v8-pool-size` is not given. */
export declare const NODE_V8_POOL_SIZE: number;

/** The pool size a serving process uses on a machine with `cores` cores. */
export declare function servingV8PoolSize(cores: number): number;

/** The Node options to add for serving, or an empty list when the process already runs as it should. */
export declare function servingNodeOptions(runtime: {
  readonly execArgv: readonly string[];
  readonly nodeOptions: string | undefined;
  readonly cores: number;
}): string[];

/** Replaces this process with one started with the serving options, when any are missing. */
export declare function reexecForServing(): void;
