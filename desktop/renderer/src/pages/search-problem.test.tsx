// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { SearchProblem } from './tokens';

afterEach(cleanup);

describe('SearchProblem (the search box error)', () => {
  it('underlines the character the server points at', () => {
    const query = 'type:card AND (';
    const error = new ApiError(400, {
      detail: 'The search query is not valid.',
      errors: { query: ['Expected an expression at position 15'] },
    });
    render(<SearchProblem error={error} query={query} />);
    const shown = screen.getByLabelText('The error is at position 15 of the query');
    expect(shown.textContent).toBe(`${query} `);
    const mark = shown.querySelector('mark.error-at');
    expect(mark?.textContent).toBe(' '); // past the end: a marked blank
    expect(screen.getAllByRole('alert')[0]?.textContent).toContain('The search query is not valid.');
  });

  it('marks a character inside the query', () => {
    const error = new ApiError(400, { detail: 'Bad.', errors: { query: ['Unknown field at position 5'] } });
    render(<SearchProblem error={error} query="type:card" />);
    expect(document.querySelector('mark.error-at')?.textContent).toBe('c');
  });

  it('shows only the problem when no position is named', () => {
    const error = new ApiError(400, { detail: 'Bad.', errors: { query: ['too long'] } });
    render(<SearchProblem error={error} query="x" />);
    expect(document.querySelector('mark.error-at')).toBeNull();
  });
});
