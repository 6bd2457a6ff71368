import { Type, type Static, type TObject, type TInteger, type TSchema } from 'typebox';
import { DEFAULT_PAGE_SIZE } from '../../core/common-types.ts';
import { NullableInput } from './schemas.ts';

/**
 * Offset pagination: `?page=1&size=20`, answered with
 * `{ pagination: { total_items, page_number, page_size, total_pages }, data: [...] }`.
 * `size=0` is allowed: an empty page whose `total_items` still counts every match (a count without
 * the items), with `total_pages` 0 (no page of size 0 holds anything).
 */

/** The largest int32, the page number's declared range; it keeps `(page - 1) * size` an exact integer. */
const MAX_PAGE = 2_147_483_647;

export interface PageQueryOptions {
  /** Default `DEFAULT_PAGE_SIZE` (core/common-types.ts). */
  readonly defaultSize?: number;
  /** The service's own maximum (each core service exports it). */
  readonly maxSize: number;
}

export type PageQuerySchema = TObject<{ page: TInteger; size: TInteger }>;

/**
 * Query schema of a list endpoint. To add filters, spread its properties:
 * `Type.Object({ ...pageQuery().properties, name: Type.Optional(Type.String()) })`.
 */
export function pageQuery({ defaultSize = DEFAULT_PAGE_SIZE, maxSize }: PageQueryOptions): PageQuerySchema {
  if (!Number.isInteger(maxSize) || maxSize < 1 || defaultSize < 1 || defaultSize > maxSize) {
    throw new RangeError(`page size default ${defaultSize} must lie in 1..${maxSize}`);
  }
  return Type.Object({
    page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1.' }),
    size: Type.Integer({
      minimum: 0,
      maximum: maxSize,
      default: defaultSize,
      description: `Items per page, 0 to ${maxSize} (0: no items, only the totals).`,
    }),
  });
}

/**
 * Page fields of a request BODY (search): like `pageQuery`, but `null` is accepted and means "not
 * given" (bodies are not coerced, so the defaults are applied by `pageFromBody`, not the schema).
 */
export function pageBody({ defaultSize = DEFAULT_PAGE_SIZE, maxSize }: PageQueryOptions) {
  pageQuery({ defaultSize, maxSize }); // checks the options
  return Type.Object({
    page: Type.Optional(
      NullableInput(
        Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1; default 1.' }),
      ),
    ),
    size: Type.Optional(
      NullableInput(
        Type.Integer({
          minimum: 0,
          maximum: maxSize,
          description: `Items per page, 0 to ${maxSize} (0: only the totals); default ${defaultSize}.`,
        }),
      ),
    ),
  });
}

/** The page a `pageBody` asks for, defaults filled in. */
export function pageFromBody(
  body: { readonly page?: number | null; readonly size?: number | null },
  { defaultSize = DEFAULT_PAGE_SIZE }: Partial<PageQueryOptions> = {},
): PageRequest {
  return { page: body.page ?? 1, size: body.size ?? defaultSize };
}

export interface PageRequest {
  readonly page: number;
  readonly size: number;
}

export const PaginationSchema = Type.Object({
  total_items: Type.Integer({ minimum: 0 }),
  page_number: Type.Integer({ minimum: 1 }),
  page_size: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
});

export type Pagination = Static<typeof PaginationSchema>;

/** Response schema of a list endpoint whose items match `item`. */
export function paginated<Item extends TSchema>(item: Item) {
  return Type.Object({ pagination: PaginationSchema, data: Type.Array(item) });
}

export interface Page<T> {
  pagination: Pagination;
  data: T[];
}

/** Builds the envelope for one page of `items` out of `total` matching items. */
export function paginate<T>(items: T[], total: number, page: number, size: number): Page<T> {
  return {
    pagination: {
      total_items: total,
      page_number: page,
      page_size: size,
      total_pages: size === 0 ? 0 : Math.ceil(total / size),
    },
    data: items,
  };
}

/** SQL window of a page: `LIMIT limit OFFSET offset`. */
export function pageWindow({ page, size }: PageRequest): { offset: number; limit: number } {
  return { offset: (page - 1) * size, limit: size };
}
