// Types for the parts of the `lucene` package (a PEG query parser) that core/tokens uses.
declare module 'lucene' {
  export interface Location {
    readonly start: { readonly offset: number; readonly line: number; readonly column: number };
    readonly end: { readonly offset: number; readonly line: number; readonly column: number };
  }
  export interface TermNode {
    readonly field: string;
    readonly fieldLocation: Location | null;
    readonly term: string;
    readonly quoted: boolean;
    readonly regex?: boolean;
    readonly prefix?: string | null;
    readonly termLocation: Location;
  }
  export interface RangeNode {
    readonly field: string;
    readonly fieldLocation: Location | null;
    readonly term_min: string;
    readonly term_max: string;
    readonly inclusive: 'both' | 'none' | 'left' | 'right';
  }
  export interface BinaryNode {
    readonly left: AST;
    readonly operator?: string;
    readonly right?: AST;
    readonly start?: string;
    readonly parenthesized?: boolean;
  }
  export type AST = BinaryNode | TermNode | RangeNode;
  export interface SyntaxError extends Error {
    readonly location?: Location;
  }
  const lucene: { parse(query: string): AST };
  export default lucene;
}
