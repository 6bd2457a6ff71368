import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Invitation, type Member } from '../api/client';
import { ConfirmDialog } from '../components/dialog';
import { Field } from '../components/field';
import { Empty, Loading, ProblemAlert } from '../components/states';

/** The first page only: a tenant has a handful of members and open invitations. */
const PAGE_SIZE = 50;

const fullName = (m: Member) => [m.user.first_name, m.user.last_name].filter(Boolean).join(' ');

export function MembersPage() {
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState<Member | null>(null);
  const members = useQuery({
    queryKey: ['members'],
    queryFn: () =>
      unwrap(api.GET('/tenants/self/members', { params: { query: { page: 1, size: PAGE_SIZE } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/tenants/self/members/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setRemoving(null);
      await queryClient.invalidateQueries({ queryKey: ['members'] });
    },
  });
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
                      <button type="button" className="danger" onClick={() => setRemoving(m)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <ConfirmDialog
        title="Remove this member?"
        open={removing !== null}
        onCancel={() => {
          remove.reset();
          setRemoving(null);
        }}
        onConfirm={() => removing !== null && remove.mutate(removing.id)}
        confirmLabel="Remove member"
        busy={remove.isPending}
      >
        <p>{removing?.user.email} loses access to this tenant at once.</p>
        <ProblemAlert error={remove.error} />
      </ConfirmDialog>
      <Invitations />
    </section>
  );
}

function Invitations() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [deleting, setDeleting] = useState<Invitation | null>(null);
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
  const remove = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/tenants/self/invitations/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });
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
                    <button type="button" className="danger" onClick={() => setDeleting(i)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <ConfirmDialog
        title="Delete this invitation?"
        open={deleting !== null}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting !== null && remove.mutate(deleting.id)}
        confirmLabel="Delete invitation"
        busy={remove.isPending}
      >
        <p>The link sent to {deleting?.email} stops working.</p>
        <ProblemAlert error={remove.error} />
      </ConfirmDialog>
    </section>
  );
}
