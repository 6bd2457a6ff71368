// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type Permission } from '../api/client';
import { RuleEditor, type RuleDraft } from './rule-editor';

afterEach(cleanup);

const PERMISSIONS = [
  { type: 'token:read', description: 'Read tokens' },
  { type: 'token:search', description: 'Search tokens' },
] as unknown as Permission[];

const RULE: RuleDraft = {
  description: '',
  priority: 1,
  container: 'no-slashes',
  transform: 'mask',
  permissions: ['token:read'],
};

describe('RuleEditor', () => {
  it("shows the server's messages at the rule and field they name", () => {
    const error = new ApiError(400, {
      detail: 'The request is not valid.',
      errors: {
        'rules[0].container': ["must start and end with '/'"],
        'rules[0].permissions[0]': ['is not allowed for this type'],
        rules: ['priorities must be unique'],
      },
    });
    render(
      <RuleEditor rules={[RULE]} onChange={() => undefined} tokenPermissions={PERMISSIONS} error={error} />,
    );
    const rule = screen.getByRole('group', { name: 'Rule 1' });
    const container = within(rule).getByLabelText(/Container/);
    expect(container.getAttribute('aria-invalid')).toBe('true');
    expect(within(rule).getByText("must start and end with '/'")).toBeTruthy();
    expect(within(rule).getByText('is not allowed for this type')).toBeTruthy();
    expect(screen.getByText('priorities must be unique')).toBeTruthy();
    expect(
      within(rule)
        .getByLabelText(/Priority/)
        .getAttribute('aria-invalid'),
    ).toBe('false');
  });

  it('edits, adds and removes rules through onChange', () => {
    const onChange = vi.fn<(rules: RuleDraft[]) => void>();
    render(<RuleEditor rules={[RULE]} onChange={onChange} tokenPermissions={PERMISSIONS} error={null} />);
    fireEvent.change(screen.getByLabelText(/Container/), { target: { value: '/pci/' } });
    expect(onChange).toHaveBeenLastCalledWith([{ ...RULE, container: '/pci/' }]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Rule 1: token:search' }));
    expect(onChange).toHaveBeenLastCalledWith([{ ...RULE, permissions: ['token:read', 'token:search'] }]);
    fireEvent.click(screen.getByRole('button', { name: 'Add a rule' }));
    expect(onChange.mock.lastCall?.[0]).toHaveLength(2);
    expect(onChange.mock.lastCall?.[0][1]).toMatchObject({ priority: 2, container: '/' });
    fireEvent.click(screen.getByRole('button', { name: 'Remove rule 1' }));
    expect(onChange).toHaveBeenLastCalledWith([]);
  });
});
