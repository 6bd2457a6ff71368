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
      <FieldMessages messages={messages} id={`${id}-errors`} />
    </div>
  );
}

/** The server's messages for a field, as a list beneath it (nothing when there are none). */
export function FieldMessages({
  messages,
  id,
}: {
  readonly messages: readonly string[];
  readonly id?: string;
}) {
  if (messages.length === 0) return null;
  return (
    <ul id={id} className="field-errors">
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}
