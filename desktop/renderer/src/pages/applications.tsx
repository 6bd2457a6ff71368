import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApplications } from '../applications/use-applications';
import { api, unwrap, type Application } from '../api/client';
import { ApplicationDialog } from '../applications/application-dialog';
import { KeyOnce } from '../applications/key-once';
import { RuleList } from '../applications/rule-list';
import { Chips } from '../components/chips';
import { Id } from '../components/copy';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { ConfirmDialog } from '../components/dialog';
import { ResourceTable, type Column } from '../components/resource-table';
import { ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';

export function ApplicationsPage() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState<Application | 'new' | null>(null);
  const [shownKey, setShownKey] = useState<{ name: string; key: string } | null>(null);
  const [regenerating, setRegenerating] = useState<Application | null>(null);

  const list = useApplications();
  const deletion = useDeletion(
    (app: Application) => unwrap(api.DELETE('/applications/{id}', { params: { path: { id: app.id } } })),
    'applications',
    (app) => `Application "${app.name}" deleted; its key no longer works.`,
  );
  const regenerate = useMutation({
    mutationFn: (app: Application) =>
      unwrap(api.POST('/applications/{id}/regenerate', { params: { path: { id: app.id } } })),
    onSuccess: async (result) => {
      setRegenerating(null);
      setShownKey({ name: result.name, key: result.key });
      toast(`A new key for "${result.name}": the old one no longer works.`);
      await queryClient.invalidateQueries({ queryKey: ['applications'] });
    },
  });

  const columns: Column<Application>[] = [
    {
      header: 'Name',
      cell: (app) => (
        <>
          {app.name}
          <small className="hint">created {new Date(app.created_at).toLocaleDateString()}</small>
        </>
      ),
    },
    { header: 'Id', cell: (app) => <Id value={app.id} of={app.name} /> },
    {
      header: 'Type',
      cell: (app) => (
        <>
          {app.type}
          {app.expires_at === null ? null : (
            <small className="hint">until {new Date(app.expires_at).toLocaleString()}</small>
          )}
        </>
      ),
    },
    {
      header: 'Permissions and rules',
      className: 'permissions',
      cell: (app) => (
        <>
          <Chips items={app.permissions} label={`Permissions of ${app.name}`} />
          <RuleList rules={app.rules} of={app.name} />
        </>
      ),
    },
    {
      header: 'Actions',
      headerHidden: true,
      className: 'actions',
      cell: (app) => (
        <>
          <button type="button" onClick={() => setEditing(app)} aria-label={`Edit ${app.name}`}>
            Edit
          </button>
          <button
            type="button"
            onClick={() => setRegenerating(app)}
            aria-label={`Regenerate key of ${app.name}`}
          >
            Regenerate key
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => deletion.ask(app)}
            aria-label={`Delete ${app.name}`}
          >
            Delete
          </button>
        </>
      ),
    },
  ];

  return (
    <section aria-labelledby="apps-title">
      <div className="page-header">
        <h1 id="apps-title">Applications</h1>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          Create application
        </button>
      </div>
      <ResourceTable
        query={list}
        rows={(page) => page.data}
        what="applications"
        empty="No applications yet."
        label="Applications"
        columns={columns}
        rowKey={(app) => app.id}
      />
      {editing !== null && (
        <ApplicationDialog
          application={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onCreated={(name, key) => {
            setEditing(null);
            setShownKey({ name, key });
          }}
        />
      )}
      <KeyOnce shown={shownKey} onClose={() => setShownKey(null)} />
      <ConfirmDialog
        title="Regenerate the key?"
        open={regenerating !== null}
        onCancel={() => {
          regenerate.reset();
          setRegenerating(null);
        }}
        onConfirm={() => regenerating !== null && regenerate.mutate(regenerating)}
        confirmLabel="Regenerate key"
        busy={regenerate.isPending}
      >
        <p>
          The current key of "{regenerating?.name ?? ''}" stops working at once; the new one is shown once.
        </p>
        <ProblemAlert error={regenerate.error} />
      </ConfirmDialog>
      <DeletionDialog deletion={deletion} title="Delete this application?" confirmLabel="Delete application">
        {(app) => <p>"{app.name}" and its key stop working at once.</p>}
      </DeletionDialog>
    </section>
  );
}
