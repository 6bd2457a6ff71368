/**
 * The file URL of the bundled CLI entry point (dist/svc/main.js under `repo`, default this
 * repository), or undefined when absent or stale.
 */
export declare function compiledMain(repo?: string): URL | undefined;
