import type { Pagination } from '../api/client';

export function Pager({
  pagination,
  onPage,
}: {
  readonly pagination: Pagination;
  readonly onPage: (page: number) => void;
}) {
  const { page_number, total_pages, total_items } = pagination;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page_number <= 1} onClick={() => onPage(page_number - 1)}>
        Previous
      </button>
      <span>
        Page {page_number} of {Math.max(total_pages, 1)} · {total_items} in all
      </span>
      <button type="button" disabled={page_number >= total_pages} onClick={() => onPage(page_number + 1)}>
        Next
      </button>
    </nav>
  );
}
