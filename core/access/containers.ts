/**
 * Container paths: start and end with `/`, no `//`, segments of letters,
 * digits, `-` and `_`. `/` is the root.
 */
const CONTAINER = /^\/(?:[A-Za-z0-9_-]+\/)*$/;

export function isContainer(path: string): boolean {
  return path.length <= 500 && CONTAINER.test(path);
}

/** A grant on `/pci/` covers `/pci/` itself and everything below it. */
export function containerCovers(grant: string, container: string): boolean {
  return container.startsWith(grant);
}
