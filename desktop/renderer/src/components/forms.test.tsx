// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { CodeEditor } from '../code/code-editor';
import { Field } from './field';
import { ParameterEditor, type ParameterDraft } from './parameter-editor';
import { ProblemAlert } from './states';

afterEach(cleanup);

const PROBLEM = new ApiError(400, {
  detail: 'The request is not valid.',
  errors: { name: ['must not be empty'], 'request_parameters[0].name': ['must be unique'] },
});

describe('Field', () => {
  it('puts the messages for its field beneath the control, tied to it', () => {
    render(
      <Field label="Name" name="name" error={PROBLEM} hint="Shown to members.">
        {(p) => <input {...p} />}
      </Field>,
    );
    const input = screen.getByLabelText('Name');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (input.getAttribute('aria-describedby') ?? '').split(' ');
    const texts = describedBy.map((id) => document.getElementById(id)?.textContent);
    expect(texts).toEqual(['Shown to members.', 'must not be empty']);
  });

  it('is plain without an error for its field', () => {
    render(
      <Field label="Description" name="description" error={PROBLEM}>
        {(p) => <input {...p} />}
      </Field>,
    );
    const input = screen.getByLabelText('Description');
    expect(input.hasAttribute('aria-invalid')).toBe(false);
    expect(input.hasAttribute('aria-describedby')).toBe(false);
  });
});

describe('ProblemAlert', () => {
  it("shows the problem's detail, and its field errors when asked", () => {
    render(<ProblemAlert error={PROBLEM} withFields />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('The request is not valid.');
    expect(alert.textContent).toContain('name must not be empty');
  });

  it('shows nothing without an error', () => {
    const { container } = render(<ProblemAlert error={null} />);
    expect(container.textContent).toBe('');
  });
});

describe('ParameterEditor', () => {
  it('places messages at the parameter they name and edits through onChange', () => {
    const onChange = vi.fn<(p: ParameterDraft[]) => void>();
    const params: ParameterDraft[] = [{ name: 'amount', description: '', type: 'number', optional: false }];
    render(
      <ParameterEditor
        legend="Request parameters"
        field="request_parameters"
        withOptional
        parameters={params}
        onChange={onChange}
        error={PROBLEM}
      />,
    );
    const group = screen.getByRole('group', { name: 'Request parameters 1' });
    expect(group.textContent).toContain('must be unique');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    fireEvent.click(screen.getByLabelText('Optional'));
    expect(onChange).toHaveBeenLastCalledWith([{ ...params[0], optional: true }]);
  });
});

describe('CodeEditor', () => {
  it('labels the editor and lists compile errors with their line and column', () => {
    render(
      <CodeEditor
        label="Code (JavaScript)"
        language="javascript"
        value={'module.exports = async function () {\n  return {;\n};\n'}
        onChange={() => undefined}
        errors={[{ line: 2, column: 11, message: 'unexpected token' }]}
      />,
    );
    // The editor sits in a shadow root (for the CSP), named by its own aria-label.
    const host = document.querySelector('.code-editor');
    const editor = host?.shadowRoot?.querySelector('[role="textbox"]');
    expect(editor?.getAttribute('aria-label')).toBe('Code (JavaScript)');
    expect(editor?.textContent).toContain('module.exports');
    expect(screen.getByText('Line 2, column 11: unexpected token')).toBeTruthy();
  });
});
