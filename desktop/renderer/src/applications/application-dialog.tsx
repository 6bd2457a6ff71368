import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrorsOf, unwrap, type Application } from '../api/client';
import { Dialog } from '../components/dialog';
import { Field, FieldMessages } from '../components/field';
import { RuleEditor, ruleDraftOf, ruleInput, type RuleDraft } from '../components/rule-editor';
import { Loading, ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';

export type AppType = Application['type'];
export const APP_TYPES: readonly { value: AppType; label: string }[] = [
  { value: 'private', label: 'Private (a backend: tokenize, read, search)' },
  { value: 'public', label: 'Public (a browser or app: tokenize only)' },
  { value: 'management', label: 'Management (administers the tenant)' },
];

/**
 * Creates an application, or edits one (`PUT /applications/{id}`: name, permissions, rules; the type
 * cannot change). The server applies the same grant rules as to any caller of the API, so nothing
 * is judged here: its messages appear at the fields they name.
 */
export function ApplicationDialog({
  application,
  onClose,
  onCreated,
}: {
  /** The application to edit; null creates one. */
  readonly application: Application | null;
  readonly onClose: () => void;
  readonly onCreated: (name: string, key: string) => void;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const editing = application !== null;
  const [name, setName] = useState(application?.name ?? '');
  const [type, setType] = useState<AppType>(application?.type ?? 'private');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set(application?.permissions ?? []));
  const [rules, setRules] = useState<RuleDraft[]>(() => (application?.rules ?? []).map(ruleDraftOf));
  const [mayExpire, setMayExpire] = useState(application?.can_create_expiring_applications ?? false);
  const permissions = useQuery({
    queryKey: ['permissions', type],
    queryFn: () => unwrap(api.GET('/permissions', { params: { query: { application_type: type } } })),
  });
  const save = useMutation({
    mutationFn: async () => {
      const grants = {
        name,
        permissions: [...chosen],
        rules: rules.map(ruleInput),
        ...(type === 'private' ? { can_create_expiring_applications: mayExpire } : {}),
      };
      if (application === null) {
        const created = await unwrap(api.POST('/applications', { body: { ...grants, type } }));
        return { name: created.name, key: created.key as string | undefined };
      }
      const updated = await unwrap(
        api.PUT('/applications/{id}', { params: { path: { id: application.id } }, body: grants }),
      );
      return { name: updated.name, key: undefined };
    },
    onSuccess: async ({ name: saved, key }) => {
      await queryClient.invalidateQueries({ queryKey: ['applications'] });
      if (key !== undefined) onCreated(saved, key);
      else {
        toast(`Application "${saved}" saved.`);
        onClose();
      }
    },
  });
  const toggle = (permission: string) => {
    const next = new Set(chosen);
    if (next.has(permission)) next.delete(permission);
    else next.add(permission);
    setChosen(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Dialog
      title={editing ? `Edit ${application.name}` : 'Create an application'}
      open
      onClose={onClose}
      className="dialog wide"
    >
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={save.error} />
        <Field label="Name" name="name" error={save.error}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required />}
        </Field>
        {editing ? (
          <p className="hint">A {type} application: the type of an application cannot change.</p>
        ) : (
          <Field label="Type" name="type" error={save.error}>
            {(p) => (
              <select
                {...p}
                value={type}
                onChange={(e) => {
                  setType(e.target.value as AppType);
                  setChosen(new Set());
                  setRules([]);
                }}
              >
                {APP_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <fieldset className="permission-picker">
          <legend>Permissions a {type} application may hold</legend>
          {permissions.isPending && <Loading what="permissions" />}
          <ProblemAlert error={permissions.error} />
          {permissions.data?.map((p) => (
            <label key={p.type} className="check">
              <input type="checkbox" checked={chosen.has(p.type)} onChange={() => toggle(p.type)} />
              <code>{p.type}</code> <span>{p.description}</span>
            </label>
          ))}
          <FieldMessages messages={fieldErrorsOf(save.error, 'permissions')} />
        </fieldset>
        {type === 'private' && (
          <label className="inline">
            <input type="checkbox" checked={mayExpire} onChange={(e) => setMayExpire(e.target.checked)} />
            Its key may create expiring applications
          </label>
        )}
        {type !== 'management' && (
          <RuleEditor
            rules={rules}
            onChange={setRules}
            tokenPermissions={(permissions.data ?? []).filter((p) => p.type.startsWith('token:'))}
            error={save.error}
          />
        )}
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {editing ? 'Save application' : 'Create'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
