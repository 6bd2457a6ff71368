import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ProblemAlert } from '../components/states';

/** The tenant's hash chain checked by the server (the same check as `svc logs verify`). */
export function VerifyChain() {
  const verify = useMutation({ mutationFn: () => unwrap(api.GET('/logs/verify')) });
  const result = verify.data;
  return (
    <div className="verify-chain">
      <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
        {verify.isPending ? 'Verifying…' : 'Verify chain'}
      </button>
      <div role="status" aria-live="polite">
        {result !== undefined &&
          (result.ok ? (
            <span className="verified">
              Chain intact: {result.entries} {result.entries === 1 ? 'entry' : 'entries'} verified.
            </span>
          ) : (
            <span className="broken">
              Chain broken at entry #{result.first_break?.seq}
              {result.first_break?.entry_id ? ` (${result.first_break.entry_id})` : ''}:{' '}
              {result.first_break?.reason}.
            </span>
          ))}
      </div>
      <ProblemAlert error={verify.error} title="Verification failed" />
    </div>
  );
}
