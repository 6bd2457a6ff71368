import { useNavigate } from 'react-router';
import { CopyButton } from '../components/copy';
import { Dialog } from '../components/dialog';
import { useSession } from '../session/session';

/** The key is in this dialog's memory only; closing it forgets the key for good. */
export function KeyOnce({
  shown,
  onClose,
}: {
  readonly shown: { name: string; key: string } | null;
  readonly onClose: () => void;
}) {
  const { chooseTokenApp } = useSession();
  const navigate = useNavigate();
  return (
    <Dialog title="The application's key" open={shown !== null} onClose={onClose}>
      {shown !== null && (
        <div className="dialog-body">
          <p className="warning" role="note">
            Copy the key of <strong>{shown.name}</strong> now. It is shown only this once: the vault keeps
            only a hash of it. If it is lost, regenerate it.
          </p>
          <label htmlFor="shown-key">API key</label>
          <input id="shown-key" className="key" readOnly value={shown.key} data-testid="api-key" />
          <footer className="dialog-actions">
            <CopyButton value={shown.key} label="Copy key" />
            <button
              type="button"
              onClick={() => {
                chooseTokenApp({ name: shown.name, key: shown.key });
                onClose();
                void navigate('/tokens');
              }}
            >
              Use on the Tokens screen
            </button>
            <button type="button" className="primary" onClick={onClose}>
              I have stored the key
            </button>
          </footer>
        </div>
      )}
    </Dialog>
  );
}
