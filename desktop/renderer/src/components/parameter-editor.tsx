import { fieldErrorsOf } from '../api/client';
import { FieldMessages } from './field';

export const PARAMETER_TYPES = ['string', 'number', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** A configuration setting or a request parameter of a reactor formula, as edited. */
export interface ParameterDraft {
  name: string;
  description: string;
  type: ParameterType;
  /** Request parameters only: may the caller leave it out. */
  optional: boolean;
}

export function newParameter(): ParameterDraft {
  return { name: '', description: '', type: 'string', optional: false };
}

/**
 * The list of a formula's configuration settings or request parameters. The server judges them;
 * its messages appear at the row and field they name (`configuration[0].name`).
 */
export function ParameterEditor({
  legend,
  field,
  withOptional,
  parameters,
  onChange,
  error,
  readOnly = false,
}: {
  readonly legend: string;
  /** The body field the server names in `errors`: `configuration` or `request_parameters`. */
  readonly field: string;
  readonly withOptional: boolean;
  readonly parameters: readonly ParameterDraft[];
  readonly onChange: (parameters: ParameterDraft[]) => void;
  readonly error: unknown;
  /** Listed, not edited (an official formula's): no inputs, nothing to add or remove. */
  readonly readOnly?: boolean;
}) {
  if (readOnly) return <ParameterList legend={legend} parameters={parameters} withOptional={withOptional} />;
  const update = (index: number, patch: Partial<ParameterDraft>) =>
    onChange(parameters.map((p, i) => (i === index ? { ...p, ...patch } : p)));
  const errorsAt = (index: number, name?: string) =>
    fieldErrorsOf(error, name === undefined ? `${field}[${index}]` : `${field}[${index}].${name}`);
  return (
    <fieldset className="parameter-editor">
      <legend>{legend}</legend>
      {fieldErrorsOf(error, field).map((m) => (
        <p key={m} className="field-errors">
          {m}
        </p>
      ))}
      {parameters.length === 0 && <p className="hint">None.</p>}
      {parameters.map((p, index) => {
        const n = index + 1;
        const nameErrors = errorsAt(index, 'name');
        return (
          <div key={index} className="parameter" role="group" aria-label={`${legend} ${n}`}>
            <label>
              <span>Name</span>
              <input
                value={p.name}
                aria-invalid={nameErrors.length > 0 || undefined}
                onChange={(e) => update(index, { name: e.target.value })}
              />
            </label>
            <label>
              <span>Type</span>
              <select
                value={p.type}
                onChange={(e) => update(index, { type: e.target.value as ParameterType })}
              >
                {PARAMETER_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
            <label>
              <span>Description</span>
              <input value={p.description} onChange={(e) => update(index, { description: e.target.value })} />
            </label>
            {withOptional && (
              <label className="inline">
                <input
                  type="checkbox"
                  checked={p.optional}
                  onChange={(e) => update(index, { optional: e.target.checked })}
                />
                Optional
              </label>
            )}
            <button type="button" onClick={() => onChange(parameters.filter((_, i) => i !== index))}>
              Remove {n}
            </button>
            <FieldMessages messages={[...errorsAt(index), ...nameErrors, ...errorsAt(index, 'type')]} />
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...parameters, newParameter()])}>
        Add {withOptional ? 'a request parameter' : 'a setting'}
      </button>
    </fieldset>
  );
}

function ParameterList({
  legend,
  parameters,
  withOptional,
}: {
  readonly legend: string;
  readonly parameters: readonly ParameterDraft[];
  readonly withOptional: boolean;
}) {
  return (
    <fieldset className="parameter-editor">
      <legend>{legend}</legend>
      {parameters.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <dl className="facts">
          {parameters.map((p) => (
            <div key={p.name} className="parameter-fact">
              <dt>
                <code>{p.name}</code>
              </dt>
              <dd>
                {p.type}
                {withOptional && p.optional ? ', optional' : ''}
                {p.description === '' ? '' : ` — ${p.description}`}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </fieldset>
  );
}
