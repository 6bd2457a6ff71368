import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, api, tokenApi, unwrap } from '../api/client';
import { CodeEditor } from '../code/code-editor';
import { compileErrorOf, saveWarningOf, type CompileError } from '../code/compile-error';
import { parseJsonObject, pretty } from '../code/json-text';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { ParameterEditor, type ParameterDraft } from '../components/parameter-editor';
import { Empty, Loading, ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

type FormulaView = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly type: 'official' | 'private';
  readonly status: string;
  readonly code: string;
  readonly configuration: readonly { name: string; description?: string; type: ParameterDraft['type'] }[];
  readonly request_parameters: readonly {
    name: string;
    description?: string;
    type: ParameterDraft['type'];
    optional: boolean;
  }[];
};
type ReactorView = {
  readonly id: string;
  readonly name: string;
  readonly formula: FormulaView;
  readonly configuration: Record<string, string | number | boolean>;
};

export const NEW_FORMULA_CODE = `// req.args: the invocation's arguments; req.configuration: the reactor's settings.
module.exports = async function (req) {
  return { raw: { greeting: 'Hello, ' + req.args.name } };
};
`;

/** The compile error a failed save names: in the 422's detail ("line n, column m: …"). */
export function compileErrorsOf(error: unknown): CompileError[] {
  if (!(error instanceof ApiError)) return [];
  const at = compileErrorOf(error.problem.detail) ?? compileErrorOf(error.fieldErrors('code')[0]);
  return at === null ? [] : [at];
}

export function ReactorsPage() {
  const formulas = useQuery({
    queryKey: ['reactor-formulas'],
    queryFn: () => unwrap(api.GET('/reactor-formulas', { params: { query: { page: 1, size: 100 } } })),
  });
  const reactors = useQuery({
    queryKey: ['reactors'],
    queryFn: () => unwrap(api.GET('/reactors', { params: { query: { page: 1, size: 100 } } })),
  });
  const formulaList = formulas.data?.data ?? [];
  return (
    <section aria-labelledby="reactors-title">
      <h1 id="reactors-title">Reactors</h1>
      <Formulas query={formulas} list={formulaList} />
      <Reactors
        loading={reactors.isPending}
        error={reactors.error}
        list={reactors.data?.data ?? []}
        formulas={formulaList}
      />
    </section>
  );
}

function Formulas({
  query,
  list,
}: {
  readonly query: { isPending: boolean; error: unknown };
  readonly list: readonly FormulaView[];
}) {
  const [editing, setEditing] = useState<FormulaView | 'new' | null>(null);
  const deletion = useDeletion(
    (f: FormulaView) => unwrap(api.DELETE('/reactor-formulas/{id}', { params: { path: { id: f.id } } })),
    'reactor-formulas',
  );
  return (
    <div className="card">
      <div className="page-header">
        <h2>Formulas</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New formula
        </button>
      </div>
      {query.isPending && <Loading what="formulas" />}
      <ProblemAlert error={query.error} />
      {!query.isPending &&
        query.error === null &&
        (list.length === 0 ? (
          <Empty>No formulas yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Parameters</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((f) => (
                <tr key={f.id}>
                  <td>
                    {f.name}
                    {f.description === null ? null : <small className="hint"> {f.description}</small>}
                  </td>
                  <td>
                    {f.type}
                    {f.status === 'coming_soon' ? ' (coming soon)' : ''}
                  </td>
                  <td>{f.request_parameters.map((p) => p.name).join(', ') || '—'}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setEditing(f)}>
                      {f.type === 'official' ? 'View' : 'Edit'} {f.name}
                    </button>
                    {f.type === 'private' && (
                      <button type="button" className="danger" onClick={() => deletion.ask(f)}>
                        Delete {f.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {editing !== null && (
        <FormulaDialog formula={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      )}
      <DeletionDialog deletion={deletion} title="Delete formula" confirmLabel="Delete formula">
        {(item) => (
          <p>
            Delete the formula <strong>{item.name}</strong>? Reactors made from it must be deleted first.
          </p>
        )}
      </DeletionDialog>
    </div>
  );
}

function draftsOf(formula: FormulaView | null): { config: ParameterDraft[]; params: ParameterDraft[] } {
  return {
    config: (formula?.configuration ?? []).map((c) => ({
      name: c.name,
      description: c.description ?? '',
      type: c.type,
      optional: false,
    })),
    params: (formula?.request_parameters ?? []).map((p) => ({
      name: p.name,
      description: p.description ?? '',
      type: p.type,
      optional: p.optional,
    })),
  };
}

/** Creates a private formula, or edits one (full replacement); official ones are shown read-only. */
function FormulaDialog({
  formula,
  onClose,
}: {
  readonly formula: FormulaView | null;
  readonly onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const readOnly = formula?.type === 'official';
  const [name, setName] = useState(formula?.name ?? '');
  const [description, setDescription] = useState(formula?.description ?? '');
  const [code, setCode] = useState(formula?.code ?? NEW_FORMULA_CODE);
  const [config, setConfig] = useState(() => draftsOf(formula).config);
  const [params, setParams] = useState(() => draftsOf(formula).params);
  // Code that does not compile is saved all the same: the dialog then stays open on the warning,
  // and saves again to the formula just created.
  const [savedId, setSavedId] = useState(formula?.id ?? null);
  const [warning, setWarning] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name,
        description: description === '' ? null : description,
        type: 'private',
        code,
        configuration: config.map((c) => ({
          name: c.name,
          type: c.type,
          ...(c.description === '' ? {} : { description: c.description }),
        })),
        request_parameters: params.map((p) => ({
          name: p.name,
          type: p.type,
          optional: p.optional,
          ...(p.description === '' ? {} : { description: p.description }),
        })),
      };
      const answered = await (savedId === null
        ? api.POST('/reactor-formulas', { body })
        : api.PUT('/reactor-formulas/{id}', { params: { path: { id: savedId } }, body }));
      const saved = await unwrap(Promise.resolve(answered));
      return { id: saved.id, warning: saveWarningOf(answered.response.headers) };
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['reactor-formulas'] });
      setSavedId(saved.id);
      setWarning(saved.warning);
      if (saved.warning === null) onClose();
    },
  });
  const errors = useMemo(() => {
    if (save.isError) return compileErrorsOf(save.error);
    const at = compileErrorOf(warning ?? undefined);
    return at === null ? [] : [at];
  }, [save.isError, save.error, warning]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!readOnly) save.mutate();
  };
  const title =
    formula === null ? 'New formula' : readOnly ? `Formula ${formula.name}` : `Edit ${formula.name}`;
  return (
    <Dialog title={title} open onClose={onClose} className="dialog wide">
      <form noValidate className="dialog-body" onSubmit={submit}>
        {readOnly && <p className="hint">Official formulas ship with the vault and cannot be changed.</p>}
        <ProblemAlert error={save.error} />
        {warning !== null && !save.isError && (
          <p className="hint" role="status">
            Saved, but the code does not compile: reactors of this formula fail until it is fixed. {warning}
          </p>
        )}
        <Field label="Name" name="name" error={save.error}>
          {(p) => <input {...p} value={name} readOnly={readOnly} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Description" name="description" error={save.error}>
          {(p) => (
            <input
              {...p}
              value={description}
              readOnly={readOnly}
              onChange={(e) => setDescription(e.target.value)}
            />
          )}
        </Field>
        <CodeEditor
          label="Code (JavaScript)"
          language="javascript"
          value={code}
          onChange={setCode}
          errors={errors}
          hint="CommonJS: module.exports = async function (req) { … } returning { raw } and/or { tokenize }."
        />
        <ParameterEditor
          legend="Configuration"
          field="configuration"
          withOptional={false}
          parameters={config}
          onChange={setConfig}
          error={save.error}
        />
        <ParameterEditor
          legend="Request parameters"
          field="request_parameters"
          withOptional
          parameters={params}
          onChange={setParams}
          error={save.error}
        />
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            {readOnly ? 'Close' : 'Cancel'}
          </button>
          {!readOnly && (
            <button type="submit" className="primary" disabled={save.isPending}>
              Save formula
            </button>
          )}
        </footer>
      </form>
    </Dialog>
  );
}

function Reactors({
  loading,
  error,
  list,
  formulas,
}: {
  readonly loading: boolean;
  readonly error: unknown;
  readonly list: readonly ReactorView[];
  readonly formulas: readonly FormulaView[];
}) {
  const [creating, setCreating] = useState(false);
  const [invoking, setInvoking] = useState<ReactorView | null>(null);
  const deletion = useDeletion(
    (r: ReactorView) => unwrap(api.DELETE('/reactors/{id}', { params: { path: { id: r.id } } })),
    'reactors',
  );
  return (
    <div className="card">
      <div className="page-header">
        <h2>Reactors</h2>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New reactor
        </button>
      </div>
      {loading && <Loading what="reactors" />}
      <ProblemAlert error={error} />
      {!loading &&
        error === null &&
        (list.length === 0 ? (
          <Empty>No reactors yet: a reactor is a formula with its configuration.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Formula</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td>
                  <td>{r.formula.name}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setInvoking(r)}>
                      Invoke {r.name}
                    </button>
                    <button type="button" className="danger" onClick={() => deletion.ask(r)}>
                      Delete {r.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {creating && <ReactorDialog formulas={formulas} onClose={() => setCreating(false)} />}
      {invoking !== null && <InvokeDialog reactor={invoking} onClose={() => setInvoking(null)} />}
      <DeletionDialog deletion={deletion} title="Delete reactor" confirmLabel="Delete reactor">
        {(item) => (
          <p>
            Delete the reactor <strong>{item.name}</strong>?
          </p>
        )}
      </DeletionDialog>
    </div>
  );
}

type ConfigValue = string | number | boolean;

function ReactorDialog({
  formulas,
  onClose,
}: {
  readonly formulas: readonly FormulaView[];
  readonly onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const usable = formulas.filter((f) => f.status !== 'coming_soon');
  const [name, setName] = useState('');
  const [formulaId, setFormulaId] = useState(usable[0]?.id ?? '');
  const [values, setValues] = useState<Record<string, ConfigValue>>({});
  const formula = usable.find((f) => f.id === formulaId);
  const create = useMutation({
    mutationFn: () => {
      const configuration: Record<string, ConfigValue> = {};
      for (const setting of formula?.configuration ?? []) {
        const value = values[setting.name];
        configuration[setting.name] = value ?? (setting.type === 'boolean' ? false : '');
      }
      return unwrap(api.POST('/reactors', { body: { name, formula: { id: formulaId }, configuration } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['reactors'] });
      onClose();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Dialog title="New reactor" open onClose={onClose}>
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={create.error} />
        <Field label="Name" name="name" error={create.error}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Formula" name="formula" error={create.error}>
          {(p) => (
            <select
              {...p}
              value={formulaId}
              onChange={(e) => {
                setFormulaId(e.target.value);
                setValues({});
              }}
            >
              {usable.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.name} ({f.type})
                </option>
              ))}
            </select>
          )}
        </Field>
        {formula !== undefined && formula.configuration.length > 0 && (
          <fieldset>
            <legend>Configuration</legend>
            {formula.configuration.map((setting) => (
              <Field
                key={setting.name}
                label={setting.name}
                name={`configuration.${setting.name}`}
                error={create.error}
                {...(setting.description === undefined ? {} : { hint: setting.description })}
              >
                {(p) =>
                  setting.type === 'boolean' ? (
                    <input
                      {...p}
                      type="checkbox"
                      checked={values[setting.name] === true}
                      onChange={(e) => setValues({ ...values, [setting.name]: e.target.checked })}
                    />
                  ) : (
                    <input
                      {...p}
                      type={setting.type === 'number' ? 'number' : 'text'}
                      value={String(values[setting.name] ?? '')}
                      onChange={(e) =>
                        setValues({
                          ...values,
                          [setting.name]:
                            setting.type === 'number' && e.target.value !== ''
                              ? Number(e.target.value)
                              : e.target.value,
                        })
                      }
                    />
                  )
                }
              </Field>
            ))}
          </fieldset>
        )}
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending || formulaId === ''}>
            Create reactor
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/**
 * Invokes a reactor with JSON arguments. Invoking detokenizes and tokenizes, so it needs token:use:
 * it acts as the application whose key was given on the Tokens screen, never as the member.
 */
function InvokeDialog({ reactor, onClose }: { readonly reactor: ReactorView; readonly onClose: () => void }) {
  const { tokenApp } = useSession();
  const example = Object.fromEntries(
    reactor.formula.request_parameters.map((p) => [
      p.name,
      p.type === 'number' ? 0 : p.type === 'boolean' ? false : '',
    ]),
  );
  const [args, setArgs] = useState(pretty(example));
  const parsed = parseJsonObject(args);
  const invoke = useMutation({
    mutationFn: () => {
      if (!parsed.ok) throw new Error(parsed.message);
      return unwrap(
        tokenApi.POST('/reactors/{id}/react', {
          params: { path: { id: reactor.id } },
          body: { args: parsed.value },
        }),
      );
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invoke.mutate();
  };
  return (
    <Dialog title={`Invoke ${reactor.name}`} open onClose={onClose} className="dialog wide">
      <form noValidate className="dialog-body" onSubmit={submit}>
        {tokenApp === null ? (
          <p className="problem" role="alert">
            Invoking reads and writes tokens, so it acts as an application with token:use. Give its key on the{' '}
            <Link to="/tokens">Tokens screen</Link> first.
          </p>
        ) : (
          <p className="hint">Invoked as {tokenApp.name}.</p>
        )}
        <CodeEditor
          label="Arguments (JSON)"
          language="json"
          value={args}
          onChange={setArgs}
          errors={parsed.ok ? [] : [{ line: 1, column: 1, message: parsed.message }]}
          hint="Token expressions such as {{ <token id> }} are detokenized before the code runs."
        />
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button
            type="submit"
            className="primary"
            disabled={invoke.isPending || tokenApp === null || !parsed.ok}
          >
            Invoke
          </button>
        </footer>
        <ProblemAlert error={invoke.error} withFields />
        {invoke.data !== undefined && (
          <div className="result" role="status">
            <h3>Result</h3>
            <pre aria-label="Invocation result">{pretty(invoke.data)}</pre>
          </div>
        )}
      </form>
    </Dialog>
  );
}
