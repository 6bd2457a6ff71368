import { useId, type ReactNode } from 'react';
import { fieldErrorsOf } from '../api/problem';

/**
 * A labelled control with the server's messages for its field beneath it. The control is given
 * its id and the id of its error list through `children(props)`.
 */
export function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  readonly label: string;
  /** The field name the server uses in `errors`. */
  readonly name: string;
  readonly error: unknown;
  readonly hint?: string;
  readonly children: (props: {
    id: string;
    'aria-describedby'?: string;
    'aria-invalid'?: boolean;
  }) => ReactNode;
}) {
  const id = useId();
  const messages = fieldErrorsOf(error, name);
  const describedBy = [hint !== undefined ? `${id}-hint` : '', messages.length > 0 ? `${id}-errors` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={messages.length > 0 ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(describedBy === '' ? {} : { 'aria-describedby': describedBy }),
        ...(messages.length > 0 ? { 'aria-invalid': true } : {}),
      })}
      {hint !== undefined && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {messages.length > 0 && (
        <ul id={`${id}-errors`} className="field-errors">
          {messages.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
