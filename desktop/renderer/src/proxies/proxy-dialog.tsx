import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { useApplications } from '../applications/use-applications';
import { api, fieldErrorsOf, unwrap, type ProxyView } from '../api/client';
import { compileErrorOf, type CompileError } from '../code/compile-error';
import { CodeEditor } from '../code/lazy-code-editor';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';

export const NEW_TRANSFORM_CODE = `// Receives { body, headers, configuration } and returns what is sent on.
module.exports = async function (req) {
  return { body: req.body, headers: req.headers };
};
`;

/** The compile errors the server names at a transform (`request_transform.code`). */
function transformErrors(error: unknown, field: string): CompileError[] {
  return fieldErrorsOf(error, field).flatMap((m) => {
    const at = compileErrorOf(m);
    return at === null ? [{ line: 1, column: 1, message: m }] : [at];
  });
}

/**
 * Creates a proxy or edits one (a full replacement: the application and configuration it has are
 * sent back as they are unless changed here). The server judges everything, attaching an
 * application included; its messages appear at the fields they name.
 */
export function ProxyDialog({
  proxy,
  onClose,
}: {
  readonly proxy: ProxyView | null;
  readonly onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(proxy?.name ?? '');
  const [destination, setDestination] = useState(proxy?.destination_url ?? 'https://');
  const [requireAuth, setRequireAuth] = useState(proxy?.require_auth ?? true);
  const [applicationId, setApplicationId] = useState(proxy?.application_id ?? '');
  const [requestCode, setRequestCode] = useState(proxy?.request_transform?.code ?? '');
  const [responseCode, setResponseCode] = useState(proxy?.response_transform?.code ?? '');
  const applications = useApplications();
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        destination_url: destination,
        require_auth: requireAuth,
        application: applicationId === '' ? null : { id: applicationId },
        configuration: proxy?.configuration ?? {},
        request_transform: requestCode.trim() === '' ? null : { code: requestCode },
        response_transform: responseCode.trim() === '' ? null : { code: responseCode },
      };
      return proxy === null
        ? unwrap(api.POST('/proxies', { body }))
        : unwrap(api.PUT('/proxies/{id}', { params: { path: { id: proxy.id } }, body }));
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['proxies'] });
      toast(`Proxy "${saved.name}" saved.`);
      onClose();
    },
  });
  const requestErrors = useMemo(() => transformErrors(save.error, 'request_transform.code'), [save.error]);
  const responseErrors = useMemo(() => transformErrors(save.error, 'response_transform.code'), [save.error]);
  const attachable = (applications.data?.data ?? []).filter(
    (a) => a.type === 'private' || a.type === 'public',
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Dialog
      title={proxy === null ? 'New proxy' : `Edit ${proxy.name}`}
      open
      onClose={onClose}
      className="dialog wide"
    >
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={save.error} />
        <Field label="Name" name="name" error={save.error}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field
          label="Destination URL"
          name="destination_url"
          error={save.error}
          hint="https:// with a host name; the path after /proxy and the query are appended."
        >
          {(p) => (
            <input {...p} type="url" value={destination} onChange={(e) => setDestination(e.target.value)} />
          )}
        </Field>
        <label className="inline">
          <input type="checkbox" checked={requireAuth} onChange={(e) => setRequireAuth(e.target.checked)} />
          Callers must give an application key (SVC-API-KEY)
        </label>
        <Field
          label="Application"
          name="application"
          error={save.error}
          hint="Whose permissions detokenize when callers give no key, and whom transforms act as (req.svc)."
        >
          {(p) => (
            <select {...p} value={applicationId} onChange={(e) => setApplicationId(e.target.value)}>
              <option value="">None</option>
              {attachable.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.type})
                </option>
              ))}
              {applicationId !== '' && !attachable.some((a) => a.id === applicationId) && (
                <option value={applicationId}>{applicationId}</option>
              )}
            </select>
          )}
        </Field>
        <CodeEditor
          label="Request transform (JavaScript, optional)"
          language="javascript"
          value={requestCode}
          onChange={setRequestCode}
          errors={requestErrors}
          hint="Leave empty to forward the request as it is."
        />
        {requestCode === '' && (
          <button type="button" onClick={() => setRequestCode(NEW_TRANSFORM_CODE)}>
            Start a request transform
          </button>
        )}
        <CodeEditor
          label="Response transform (JavaScript, optional)"
          language="javascript"
          value={responseCode}
          onChange={setResponseCode}
          errors={responseErrors}
          hint="Leave empty to answer the destination's response as it is."
        />
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            Save proxy
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
