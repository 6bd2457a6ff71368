import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Invitation, type Member, type SentInvitation } from '../api/client';
import { Id } from '../components/copy';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Field } from '../components/field';
import { ResourceTable, type Column } from '../components/resource-table';
import { ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';

/** The first page only: a tenant has a handful of members and open invitations. */
const PAGE_SIZE = 50;

const fullName = (m: Member) => [m.user.first_name, m.user.last_name].filter(Boolean).join(' ');

/** Where an invitation's mail went, for people: the SMTP server, or the outbox folder to open. */
export function mailNotice(sent: SentInvitation, verb: 'sent' | 'sent again'): string {
  const where =
    sent.mail.transport === 'smtp'
      ? `through the SMTP server ${sent.mail.destination}`
      : `to the outbox folder ${sent.mail.destination} (no SMTP server is set up: the mail is a file there)`;
  return `Invitation ${verb} to ${sent.email} ${where}.`;
}

export function MembersPage() {
  const members = useQuery({
    queryKey: ['members'],
    queryFn: () =>
      unwrap(api.GET('/tenants/self/members', { params: { query: { page: 1, size: PAGE_SIZE } } })),
  });
  const removal = useDeletion(
    (m: Member) => unwrap(api.DELETE('/tenants/self/members/{id}', { params: { path: { id: m.id } } })),
    'members',
    (m) => `${m.user.email} was removed from this tenant (no e-mail is sent).`,
  );
  const columns: Column<Member>[] = [
    { header: 'E-mail', cell: (m) => m.user.email },
    { header: 'Name', cell: fullName },
    { header: 'Id', cell: (m) => <Id value={m.id} of={`member ${m.user.email}`} /> },
    { header: 'Role', cell: (m) => m.role },
    { header: 'Since', cell: (m) => new Date(m.created_at).toLocaleDateString() },
    {
      header: 'Actions',
      headerHidden: true,
      className: 'actions',
      cell: (m) =>
        m.role === 'OWNER' ? (
          <span className="hint">The owner cannot be removed</span>
        ) : (
          <button
            type="button"
            className="danger"
            onClick={() => removal.ask(m)}
            aria-label={`Remove ${m.user.email}`}
          >
            Remove
          </button>
        ),
    },
  ];
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <ResourceTable
        query={members}
        rows={(page) => page.data}
        what="members"
        empty="No members: the tenant is run by the operator at the machine."
        label="Members"
        columns={columns}
        rowKey={(m) => m.id}
      />
      <DeletionDialog deletion={removal} title="Remove this member?" confirmLabel="Remove member">
        {(m) => <p>{m.user.email} loses access to this tenant at once.</p>}
      </DeletionDialog>
      <Invitations />
    </section>
  );
}

function Invitations() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [email, setEmail] = useState('');
  // The last mail's confirmation stays on screen (the toast says it too, and goes).
  const [lastSent, setLastSent] = useState<string | null>(null);
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: () =>
      unwrap(api.GET('/tenants/self/invitations', { params: { query: { page: 1, size: PAGE_SIZE } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['invitations'] });
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/tenants/self/invitations', { body: { email } })),
    onSuccess: async (sent) => {
      setEmail('');
      setLastSent(mailNotice(sent, 'sent'));
      toast(mailNotice(sent, 'sent'));
      await refresh();
    },
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.POST('/tenants/self/invitations/{id}/resend', { params: { path: { id } } })),
    onSuccess: async (sent) => {
      setLastSent(mailNotice(sent, 'sent again'));
      toast(mailNotice(sent, 'sent again'));
      await refresh();
    },
  });
  const deletion = useDeletion(
    (i: Invitation) =>
      unwrap(api.DELETE('/tenants/self/invitations/{id}', { params: { path: { id: i.id } } })),
    'invitations',
    (i) => `The invitation of ${i.email} was deleted; its link no longer works (no e-mail is sent).`,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  const columns: Column<Invitation>[] = [
    { header: 'E-mail', cell: (i) => i.email },
    { header: 'Id', cell: (i) => <Id value={i.id} of={`the invitation of ${i.email}`} /> },
    {
      header: 'Status',
      cell: (i) => <span className={`badge ${i.status.toLowerCase()}`}>{i.status}</span>,
    },
    { header: 'Expires', cell: (i) => new Date(i.expires_at).toLocaleString() },
    {
      header: 'Actions',
      headerHidden: true,
      className: 'actions',
      cell: (i) => (
        <>
          <button
            type="button"
            onClick={() => resend.mutate(i.id)}
            disabled={resend.isPending}
            aria-label={`Resend the invitation of ${i.email}`}
          >
            Resend
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => deletion.ask(i)}
            aria-label={`Delete the invitation of ${i.email}`}
          >
            Delete
          </button>
        </>
      ),
    },
  ];
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <form noValidate className="inline-form" onSubmit={submit}>
        <Field label="Invite by e-mail" name="email" error={invite.error}>
          {(p) => (
            <input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
          )}
        </Field>
        <button type="submit" className="primary" disabled={invite.isPending}>
          Send invitation
        </button>
      </form>
      <ProblemAlert error={invite.error ?? resend.error} />
      {lastSent !== null && <p className="notice">{lastSent}</p>}
      <ResourceTable
        query={invitations}
        rows={(page) => page.data}
        what="invitations"
        empty="No open invitations."
        label="Invitations"
        columns={columns}
        rowKey={(i) => i.id}
      />
      <DeletionDialog deletion={deletion} title="Delete this invitation?" confirmLabel="Delete invitation">
        {(i) => <p>The link sent to {i.email} stops working.</p>}
      </DeletionDialog>
    </section>
  );
}
