/** The file URL of the compiled CLI entry point (dist/cli/main.js), or undefined when absent or stale. */
export declare function compiledMain(): URL | undefined;
