import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Invitation, type Member } from '../api/client';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Field } from '../components/field';
import { Empty, Loading, ProblemAlert } from '../components/states';

/** The first page only: a tenant has a handful of members and open invitations. */
const PAGE_SIZE = 50;

const fullName = (m: Member) => [m.user.first_name, m.user.last_name].filter(Boolean).join(' ');

export function MembersPage() {
  const members = useQuery({
    queryKey: ['members'],
    queryFn: () =>
      unwrap(api.GET('/tenants/self/members', { params: { query: { page: 1, size: PAGE_SIZE } } })),
  });
  const removal = useDeletion(
    (m: Member) => unwrap(api.DELETE('/tenants/self/members/{id}', { params: { path: { id: m.id } } })),
    'members',
  );
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      {members.isPending && <Loading what="members" />}
      <ProblemAlert error={members.error} withFields />
      {members.data !== undefined &&
        (members.data.data.length === 0 ? (
          <Empty>No members: the tenant is run by the operator at the machine.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.data.map((m) => (
                <tr key={m.id}>
                  <td>{m.user.email}</td>
                  <td>{fullName(m)}</td>
                  <td>{m.role}</td>
                  <td>{new Date(m.created_at).toLocaleDateString()}</td>
                  <td className="actions">
                    {m.role === 'OWNER' ? (
                      <span className="hint">The owner cannot be removed</span>
                    ) : (
                      <button type="button" className="danger" onClick={() => removal.ask(m)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <DeletionDialog deletion={removal} title="Remove this member?" confirmLabel="Remove member">
        {(m) => <p>{m.user.email} loses access to this tenant at once.</p>}
      </DeletionDialog>
      <Invitations />
    </section>
  );
}

function Invitations() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: () =>
      unwrap(api.GET('/tenants/self/invitations', { params: { query: { page: 1, size: PAGE_SIZE } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['invitations'] });
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/tenants/self/invitations', { body: { email } })),
    onSuccess: async () => {
      setEmail('');
      await refresh();
    },
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.POST('/tenants/self/invitations/{id}/resend', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const deletion = useDeletion(
    (i: Invitation) =>
      unwrap(api.DELETE('/tenants/self/invitations/{id}', { params: { path: { id: i.id } } })),
    'invitations',
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
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
      {invitations.isPending && <Loading what="invitations" />}
      <ProblemAlert error={invitations.error} withFields />
      {invitations.data !== undefined &&
        (invitations.data.data.length === 0 ? (
          <Empty>No open invitations.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.data.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>
                    <span className={`badge ${i.status.toLowerCase()}`}>{i.status}</span>
                  </td>
                  <td>{new Date(i.expires_at).toLocaleString()}</td>
                  <td className="actions">
                    <button type="button" onClick={() => resend.mutate(i.id)} disabled={resend.isPending}>
                      Resend
                    </button>
                    <button type="button" className="danger" onClick={() => deletion.ask(i)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <DeletionDialog deletion={deletion} title="Delete this invitation?" confirmLabel="Delete invitation">
        {(i) => <p>The link sent to {i.email} stops working.</p>}
      </DeletionDialog>
    </section>
  );
}
