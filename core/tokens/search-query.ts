import { randomUUID } from 'node:crypto';
import lucene from 'lucene';
import type { AST, BinaryNode, RangeNode, TermNode } from 'lucene';
import { VaultError } from '../errors/catalogue.ts';
import { LruCache } from '../expressions/lru.ts';

/**
 * The token search language, parsed with the `lucene` PEG parser and
 * checked into a small typed tree. Decisions: terms side by side without an operator are ANDed
 * (narrower is safer than Lucene's default OR); a bare term without a field is refused.
 */
export type SearchNode =
  | { readonly kind: 'and' | 'or'; readonly left: SearchNode; readonly right: SearchNode }
  | { readonly kind: 'not'; readonly node: SearchNode }
  | {
      readonly kind: 'equals';
      readonly field: 'id' | 'type' | 'fingerprint' | 'created_by' | 'modified_by';
      readonly value: string;
    }
  | { readonly kind: 'data'; readonly value: string }
  | { readonly kind: 'metadata'; readonly key: string; readonly value: string }
  | { readonly kind: 'container'; readonly value: string; readonly prefix: boolean }
  | {
      readonly kind: 'range';
      readonly field: 'created_at' | 'modified_at';
      readonly min: string | null;
      readonly max: string | null;
      readonly minInclusive: boolean;
      readonly maxInclusive: boolean;
    };

export const MAX_QUERY_LENGTH = 200;
/**
 * `data:` terms per query. Each is a guess at a plaintext-derived value; a handful covers real
 * lookups (a value in a few formats), while a long OR-chain of guesses is refused outright.
 */
export const MAX_DATA_TERMS = 3;
const EXACT_FIELDS = new Set(['id', 'type', 'fingerprint', 'created_by', 'modified_by']);
const DATE_FIELDS = new Set(['created_at', 'modified_at']);
const METADATA_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function invalid(message: string, position?: number): VaultError {
  const where = position === undefined ? '' : ` at position ${position}`;
  return new VaultError('VALIDATION_FAILED', `Invalid search query${where}: ${message}`, {
    errors: { query: [`${message}${where}`] },
  });
}

/**
 * The query as a tree. Trees are kept by the query's shape (see `shapeOfQuery`), never by its
 * values: a tree kept by the query's text would answer a repeated query faster, and a caller timing
 * its own guess (`data:<a card number>`) would learn whether another caller searched for it lately.
 */
export function parseSearchQuery(query: string): SearchNode {
  if (query.trim().length === 0) throw invalid('the query is empty');
  if (query.length > MAX_QUERY_LENGTH)
    throw invalid(`the query is longer than ${MAX_QUERY_LENGTH} characters`);
  checkOperatorPlacement(query);
  const tree = parsedByShape(query);
  if (countDataTerms(tree) > MAX_DATA_TERMS) {
    throw invalid(`a query may hold at most ${MAX_DATA_TERMS} data: terms`);
  }
  return tree;
}

function parseText(query: string): SearchNode {
  let ast: AST;
  try {
    ast = lucene.parse(query);
  } catch (err) {
    const position = (err as { location?: { start?: { offset?: number } } }).location?.start?.offset;
    throw invalid('syntax error', position);
  }
  return convert(ast);
}

/**
 * Parsing is the dearest part of a search after SQLite (the PEG parser), and a caller's queries
 * mostly repeat a few shapes with other values, so trees are kept per shape:
 *
 * - The shape is the query with the value of every `id`, `type`, `fingerprint`, `created_by`,
 *   `modified_by`, `data`, `metadata.<key>` and plain `container` term replaced by a numbered slot,
 *   where the value is quoted without `"`, `\` or `*` inside, or is a bare word of letters,
 *   digits and `_` (not an operator word), standing alone. Other values (wildcards, escapes,
 *   dates, container prefixes) stay in the shape.
 * - A shape's tree is the shape parsed once, its slots left in the leaves; a query of that shape
 *   gets the tree with its own values in the slots. Inside quotes, or as such a bare word, a value
 *   cannot change how the rest of the query parses, so every query of a shape parses to that tree.
 * - A shape is kept only when its tree, filled with the values of the query that brought it,
 *   equals that query's own parse, and only when every term value in it came from a slot (apart
 *   from container prefixes, which are part of a statement's shape too): the cache holds no value
 *   of any caller, so a hit tells a timing caller no more than that its shape was used lately.
 */
const MAX_PARSED_SHAPES = 256;
const SLOT = `\u0000svc-query-slot-${randomUUID()}:`;
const parsedShapes = new LruCache<string, SearchNode>(MAX_PARSED_SHAPES);

const SLOTTED_FIELD =
  'id|type|fingerprint|created_by|modified_by|data|container|metadata\\.[A-Za-z0-9][A-Za-z0-9._-]*';
/** A quoted string (skipped whole), or a slotted field's simple value standing alone. */
const TERM_VALUE = new RegExp(
  `"(?:[^"\\\\]|\\\\.)*"?|(?<=^|[\\s(])([-!+]?(?:${SLOTTED_FIELD}):)("[^"\\\\*\\u0000]*"|[A-Za-z0-9_]+)(?=[\\s)]|$)`,
  'g',
);
const OPERATOR_WORD = /^(and|or|not|to)$/i;

/** The query's shape and the values taken out of it, in slot order. */
function shapeOfQuery(query: string): { shape: string; values: string[] } {
  const values: string[] = [];
  const shape = query.replace(TERM_VALUE, (whole, field: string | undefined, value: string | undefined) => {
    if (field === undefined || value === undefined) return whole;
    const bare = !value.startsWith('"');
    if (bare && OPERATOR_WORD.test(value)) return whole;
    values.push(bare ? value : value.slice(1, -1));
    return `${field}"${SLOT}${values.length - 1}"`;
  });
  return { shape, values };
}

/** `tree` with each slot replaced by its value; null where a term value is no slot. */
function filled(tree: SearchNode, values: readonly string[]): SearchNode | null {
  const value = (v: string): string | null =>
    v.startsWith(SLOT) ? (values[Number(v.slice(SLOT.length))] ?? null) : null;
  switch (tree.kind) {
    case 'and':
    case 'or': {
      const left = filled(tree.left, values);
      const right = filled(tree.right, values);
      return left === null || right === null ? null : { kind: tree.kind, left, right };
    }
    case 'not': {
      const node = filled(tree.node, values);
      return node === null ? null : { kind: 'not', node };
    }
    case 'container':
      if (tree.prefix) return tree;
      return filledLeaf(tree, value(tree.value));
    case 'range':
      return null;
    default:
      return filledLeaf(tree, value(tree.value));
  }
}

function filledLeaf<T extends { readonly value: string }>(leaf: T, value: string | null): T | null {
  return value === null ? null : { ...leaf, value };
}

function parsedByShape(query: string): SearchNode {
  const { shape, values } = shapeOfQuery(query);
  const kept = values.length === 0 ? undefined : parsedShapes.get(shape);
  if (kept !== undefined) {
    const tree = filled(kept, values);
    if (tree !== null) return tree;
  }
  const tree = parseText(query);
  if (values.length > 0) {
    let template: SearchNode | null = null;
    try {
      template = parseText(shape);
    } catch {
      // The shape does not parse as the query did: it is not kept.
    }
    const check = template === null ? null : filled(template, values);
    if (template !== null && check !== null && JSON.stringify(check) === JSON.stringify(tree)) {
      parsedShapes.set(shape, template);
    }
  }
  return tree;
}

const BINARY_OPERATOR = /^(AND|OR|&&|\|\|)$/;
const ANY_OPERATOR = /^(AND|OR|NOT|&&|\|\||!)$/;
const LOWERCASE_OPERATOR = /^(and|or|not)$/i;

/**
 * Every operator needs a term after it, and AND/OR one before it. The parser quietly drops an
 * operator at the end of the query or of a group (`type:card AND` would match every card), so the
 * words are checked here, outside quoted values, with their positions.
 */
function checkOperatorPlacement(query: string): void {
  // Quoted values become blanks of the same length, so positions stay right and "a AND" is data.
  const unquoted = query.replace(/"(?:[^"\\]|\\.)*"?/g, (quoted) => `"${' '.repeat(quoted.length - 2)}"`);
  const words = [...unquoted.matchAll(/[()]|[^\s()]+/g)];
  words.forEach((match, index) => {
    const word = match[0];
    const position = match.index;
    if (!ANY_OPERATOR.test(word)) return;
    const next = words[index + 1]?.[0];
    const previous = words[index - 1]?.[0];
    if (next === undefined || next === ')' || BINARY_OPERATOR.test(next)) {
      throw invalid(`'${word}' needs a term after it`, position);
    }
    if (BINARY_OPERATOR.test(word) && (previous === undefined || previous === '(')) {
      throw invalid(`'${word}' needs a term before it`, position);
    }
  });
}

/** How many `data:` terms the query holds. */
export function countDataTerms(node: SearchNode): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return countDataTerms(node.left) + countDataTerms(node.right);
    case 'not':
      return countDataTerms(node.node);
    default:
      return node.kind === 'data' ? 1 : 0;
  }
}

/** The `created_by:` and `modified_by:` terms of the query. */
export function actorTerms(node: SearchNode): Array<{ field: 'created_by' | 'modified_by'; value: string }> {
  switch (node.kind) {
    case 'and':
    case 'or':
      return [...actorTerms(node.left), ...actorTerms(node.right)];
    case 'not':
      return actorTerms(node.node);
    case 'equals':
      return node.field === 'created_by' || node.field === 'modified_by'
        ? [{ field: node.field, value: node.value }]
        : [];
    default:
      return [];
  }
}

function isTerm(node: AST): node is TermNode {
  return 'term' in node;
}

function isRange(node: AST): node is RangeNode {
  return 'term_min' in node;
}

function convert(node: AST): SearchNode {
  if (isTerm(node)) return convertTerm(node);
  if (isRange(node)) return convertRange(node);
  return convertBinary(node);
}

function convertBinary(node: BinaryNode): SearchNode {
  let left = convert(node.left);
  if (node.start === 'NOT' || node.start === '!') left = { kind: 'not', node: left };
  if (!node.right) return left;
  const right = convert(node.right);
  switch (node.operator) {
    case 'AND':
    case '&&':
    case '<implicit>':
      return { kind: 'and', left, right };
    case 'OR':
    case '||':
      return { kind: 'or', left, right };
    case 'AND NOT':
    case 'NOT':
      return { kind: 'and', left, right: { kind: 'not', node: right } };
    case 'OR NOT':
      return { kind: 'or', left, right: { kind: 'not', node: right } };
    default:
      throw invalid(`unsupported operator '${node.operator ?? ''}'`);
  }
}

/** `-field:value` and `!field:value` negate; the parser leaves the sign on the field name. */
function splitNegation(field: string): { field: string; negated: boolean } {
  if (field.startsWith('-') || field.startsWith('!')) return { field: field.slice(1), negated: true };
  return { field, negated: false };
}

function convertTerm(node: TermNode): SearchNode {
  const position = node.fieldLocation?.start.offset ?? node.termLocation.start.offset;
  if (node.field === '<implicit>' && !node.quoted && LOWERCASE_OPERATOR.test(node.term))
    throw invalid(`operators are upper-case (AND, OR, NOT), not '${node.term}'`, position);
  if (node.field === '<implicit>')
    throw invalid(`'${node.term}' needs a field, e.g. id:${node.term}`, position);
  if (node.regex) throw invalid('regular expressions are not supported', position);
  const { field, negated } = splitNegation(node.field);
  const prefixNegated = node.prefix === '-' || node.prefix === '!';
  const value = node.term;
  let result: SearchNode;
  if (EXACT_FIELDS.has(field)) {
    result = { kind: 'equals', field: field as 'id', value };
  } else if (field === 'data') {
    if (value.includes('*')) throw invalid('data: does not support wildcards', position);
    result = { kind: 'data', value };
  } else if (field === 'container') {
    const prefix = value.endsWith('*');
    const path = prefix ? value.slice(0, -1) : value;
    if (path.includes('*')) throw invalid('a container wildcard is allowed only at the end', position);
    result = { kind: 'container', value: path, prefix };
  } else if (field.startsWith('metadata.')) {
    const key = field.slice('metadata.'.length);
    if (!METADATA_KEY.test(key)) throw invalid(`'${key}' is not a valid metadata key`, position);
    result = { kind: 'metadata', key, value };
  } else if (DATE_FIELDS.has(field)) {
    const date = checkDate(value, position);
    // A bare date means that whole day; a date-time means that instant.
    result =
      value.length === 10
        ? {
            kind: 'range',
            field: field as 'created_at',
            min: date,
            max: nextDay(value),
            minInclusive: true,
            maxInclusive: false,
          }
        : {
            kind: 'range',
            field: field as 'created_at',
            min: date,
            max: date,
            minInclusive: true,
            maxInclusive: true,
          };
  } else {
    throw invalid(`unknown field '${field}'`, position);
  }
  return negated || prefixNegated ? { kind: 'not', node: result } : result;
}

function convertRange(node: RangeNode): SearchNode {
  const position = node.fieldLocation?.start.offset;
  const { field, negated } = splitNegation(node.field);
  if (!DATE_FIELDS.has(field))
    throw invalid(`ranges are supported on created_at and modified_at only, not '${field}'`, position);
  const min = node.term_min === '*' ? null : checkDate(node.term_min, position);
  const max = node.term_max === '*' ? null : checkDate(node.term_max, position);
  const result: SearchNode = {
    kind: 'range',
    field: field as 'created_at',
    min,
    max,
    minInclusive: node.inclusive === 'both' || node.inclusive === 'left',
    maxInclusive: node.inclusive === 'both' || node.inclusive === 'right',
  };
  return negated ? { kind: 'not', node: result } : result;
}

/** Normalises a date or date-time to the ISO UTC form timestamps are stored in. */
function checkDate(value: string, position: number | undefined): string {
  const date = new Date(value);
  if (!ISO_DATE.test(value) || Number.isNaN(date.getTime())) {
    throw invalid('a date is not an ISO 8601 date or date-time', position);
  }
  return date.toISOString();
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}
