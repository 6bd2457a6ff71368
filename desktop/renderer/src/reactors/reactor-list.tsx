import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, tokenApi, unwrap } from '../api/client';
import { parseJsonObject, pretty } from '../code/json-text';
import { CodeEditor } from '../code/lazy-code-editor';
import { Id } from '../components/copy';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { ProblemAlert } from '../components/states';
import { ResourceTable, type Column, type ListQuery } from '../components/resource-table';
import { useToast } from '../components/toast';
import { useSession } from '../session/session';
import type { FormulaView, ReactorView } from './views';

export function Reactors({
  query,
  formulas,
}: {
  readonly query: ListQuery<{ readonly data: readonly ReactorView[] }>;
  readonly formulas: readonly FormulaView[];
}) {
  const [creating, setCreating] = useState(false);
  const [invoking, setInvoking] = useState<ReactorView | null>(null);
  const deletion = useDeletion(
    (r: ReactorView) => unwrap(api.DELETE('/reactors/{id}', { params: { path: { id: r.id } } })),
    'reactors',
    (r) => `Reactor "${r.name}" deleted.`,
  );
  const columns: Column<ReactorView>[] = [
    { header: 'Name', cell: (r) => r.name },
    { header: 'Id', cell: (r) => <Id value={r.id} of={r.name} /> },
    { header: 'Formula', cell: (r) => r.formula.name },
    {
      header: 'Actions',
      headerHidden: true,
      className: 'actions',
      cell: (r) => (
        <>
          <button type="button" onClick={() => setInvoking(r)} aria-label={`Invoke ${r.name}`}>
            Invoke
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => deletion.ask(r)}
            aria-label={`Delete ${r.name}`}
          >
            Delete
          </button>
        </>
      ),
    },
  ];
  return (
    <div className="card">
      <div className="page-header">
        <h2>Reactors</h2>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New reactor
        </button>
      </div>
      <ResourceTable
        query={query}
        rows={(page) => page.data}
        what="reactors"
        empty="No reactors yet: a reactor is a formula with its configuration."
        label="Reactors"
        columns={columns}
        rowKey={(r) => r.id}
      />
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
  const toast = useToast();
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
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['reactors'] });
      toast(`Reactor "${created.name}" created.`);
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
