/** The file URL of the bundled CLI entry point (dist/svc/main.js), or undefined when absent or stale. */
export declare function compiledMain(): URL | undefined;
