import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, fieldErrorsOf, unwrap, type Tenant } from '../api/client';
import { Field, FieldMessages } from '../components/field';
import { Loading, ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';
import { settingLabel, settingSpecs, type SettingSpec } from './schema';

/** The server's OpenAPI document: it describes the settings (read once per page load). */
function useSettingSpecs() {
  return useQuery({
    queryKey: ['setting-specs'],
    staleTime: Infinity,
    queryFn: async () => {
      const response = await fetch('/openapi.json', { credentials: 'omit' });
      if (!response.ok) throw new Error(`The server's API description answered ${response.status}.`);
      return settingSpecs(await response.json());
    },
  });
}

/**
 * The tenant's name and settings: each setting the server describes as a switch (or a list of its
 * values), showing its default while it is not set. Only settings that are set are sent, so an
 * untouched setting keeps following the vault's default; the server checks every value.
 */
export function SettingsForm({ tenant }: { readonly tenant: Tenant }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const specs = useSettingSpecs();
  const [name, setName] = useState(tenant.name);
  const [values, setValues] = useState<Record<string, string>>({ ...tenant.settings });
  const known = new Set((specs.data ?? []).map((s) => s.name));
  const unknown = Object.keys(values).filter((key) => specs.data !== undefined && !known.has(key));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/tenants/self', {
          body: {
            name,
            settings: Object.fromEntries(Object.entries(values).filter(([key]) => known.has(key))),
          },
        }),
      ),
    onSuccess: async (saved) => {
      setValues({ ...saved.settings });
      toast('Tenant settings saved.');
      await queryClient.invalidateQueries({ queryKey: ['tenant-self'] });
      await queryClient.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="general-title">
      <h2 id="general-title">General</h2>
      <ProblemAlert error={save.error} />
      <Field label="Name" name="name" error={save.error}>
        {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required />}
      </Field>
      <fieldset className="settings">
        <legend>Settings</legend>
        {fieldErrorsOf(save.error, 'settings').map((m) => (
          <p key={m} className="field-errors">
            {m}
          </p>
        ))}
        {specs.isPending && <Loading what="the settings this vault has" />}
        <ProblemAlert error={specs.error} />
        {specs.data?.map((spec) => (
          <SettingControl
            key={spec.name}
            spec={spec}
            value={values[spec.name]}
            error={save.error}
            onChange={(value) => setValues({ ...values, [spec.name]: value })}
          />
        ))}
        {unknown.length > 0 && (
          <p className="hint">
            Stored but not understood by this vault, and left out when saving: {unknown.join(', ')}.
          </p>
        )}
      </fieldset>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}

function SettingControl({
  spec,
  value,
  error,
  onChange,
}: {
  readonly spec: SettingSpec;
  /** The stored value; undefined while the setting is not set (its default applies). */
  readonly value: string | undefined;
  readonly error: unknown;
  readonly onChange: (value: string) => void;
}) {
  const id = useId();
  const messages = fieldErrorsOf(error, `settings.${spec.name}`);
  const effective = value ?? spec.defaultValue ?? '';
  const describedBy = [`${id}-hint`, messages.length > 0 ? `${id}-errors` : ''].filter(Boolean).join(' ');
  const defaultNote =
    value === undefined && spec.defaultValue !== null
      ? ` Not set: the default (${spec.kind === 'switch' ? (spec.defaultValue === 'true' ? 'on' : 'off') : spec.defaultValue}) applies.`
      : '';
  return (
    <div className={messages.length > 0 ? 'setting invalid' : 'setting'}>
      {spec.kind === 'switch' ? (
        <label className="switch" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            role="switch"
            checked={effective === 'true'}
            onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
            aria-describedby={describedBy}
            aria-invalid={messages.length > 0 || undefined}
          />
          <span>{settingLabel(spec.name)}</span>
        </label>
      ) : (
        <>
          <label htmlFor={id}>{settingLabel(spec.name)}</label>
          {spec.kind === 'select' ? (
            <select
              id={id}
              value={effective}
              onChange={(e) => onChange(e.target.value)}
              aria-describedby={describedBy}
              aria-invalid={messages.length > 0 || undefined}
            >
              {spec.values.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          ) : (
            <input
              id={id}
              value={effective}
              onChange={(e) => onChange(e.target.value)}
              aria-describedby={describedBy}
              aria-invalid={messages.length > 0 || undefined}
            />
          )}
        </>
      )}
      <small id={`${id}-hint`} className="hint">
        <code>{spec.name}</code>: {spec.description}
        {defaultNote}
      </small>
      <FieldMessages messages={messages} id={`${id}-errors`} />
    </div>
  );
}
