import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { CodeEditor } from '../code/lazy-code-editor';
import { Id } from '../components/copy';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { ParameterEditor, type ParameterDraft } from '../components/parameter-editor';
import { ProblemAlert } from '../components/states';
import { ResourceTable, type Column, type ListQuery } from '../components/resource-table';
import { useToast } from '../components/toast';
import { compileErrorOf, saveWarningOf } from '../code/compile-error';
import { compileErrorsOf, NEW_FORMULA_CODE, type FormulaView } from './views';

export function Formulas({
  query,
}: {
  readonly query: ListQuery<{ readonly data: readonly FormulaView[] }>;
}) {
  const [editing, setEditing] = useState<FormulaView | 'new' | null>(null);
  const deletion = useDeletion(
    (f: FormulaView) => unwrap(api.DELETE('/reactor-formulas/{id}', { params: { path: { id: f.id } } })),
    'reactor-formulas',
    (f) => `Formula "${f.name}" deleted.`,
  );
  const columns: Column<FormulaView>[] = [
    {
      header: 'Name',
      cell: (f) => (
        <>
          {f.name}
          {f.description === null ? null : <small className="hint"> {f.description}</small>}
        </>
      ),
    },
    { header: 'Id', cell: (f) => <Id value={f.id} of={f.name} /> },
    { header: 'Type', cell: (f) => `${f.type}${f.status === 'coming_soon' ? ' (coming soon)' : ''}` },
    { header: 'Parameters', cell: (f) => f.request_parameters.map((p) => p.name).join(', ') || '—' },
    {
      header: 'Actions',
      headerHidden: true,
      className: 'actions',
      cell: (f) => (
        <>
          <button
            type="button"
            onClick={() => setEditing(f)}
            aria-label={`${f.type === 'official' ? 'View' : 'Edit'} ${f.name}`}
          >
            {f.type === 'official' ? 'View' : 'Edit'}
          </button>
          {f.type === 'private' && (
            <button
              type="button"
              className="danger"
              onClick={() => deletion.ask(f)}
              aria-label={`Delete ${f.name}`}
            >
              Delete
            </button>
          )}
        </>
      ),
    },
  ];
  return (
    <div className="card">
      <div className="page-header">
        <h2>Formulas</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New formula
        </button>
      </div>
      <ResourceTable
        query={query}
        rows={(page) => page.data}
        what="formulas"
        empty="No formulas yet."
        label="Formulas"
        columns={columns}
        rowKey={(f) => f.id}
      />
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
  const toast = useToast();
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
      return { id: saved.id, name: saved.name, warning: saveWarningOf(answered.response.headers) };
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['reactor-formulas'] });
      setSavedId(saved.id);
      setWarning(saved.warning);
      if (saved.warning === null) {
        toast(`Formula "${saved.name}" saved.`);
        onClose();
      }
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
        {warning !== null && !save.isError && (
          <p className="hint" role="status">
            Saved, but the code does not compile: reactors of this formula fail until it is fixed. {warning}
          </p>
        )}
        <ProblemAlert error={save.error} />
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
          readOnly={readOnly}
          hint="CommonJS: module.exports = async function (req) { … } returning { raw } and/or { tokenize }."
        />
        <ParameterEditor
          legend="Configuration"
          field="configuration"
          withOptional={false}
          parameters={config}
          onChange={setConfig}
          error={save.error}
          readOnly={readOnly}
        />
        <ParameterEditor
          legend="Request parameters"
          field="request_parameters"
          withOptional
          parameters={params}
          onChange={setParams}
          error={save.error}
          readOnly={readOnly}
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
