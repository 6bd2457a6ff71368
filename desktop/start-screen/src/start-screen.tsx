import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { DesktopBridge, RecentVault, UnlockOutcome, UnlockedInfo } from '../../bridge/desktop-bridge.ts';
import { Field } from '../../renderer/src/components/field';
import { Loading } from '../../renderer/src/components/states';
import { bridgeErrorText, refusalText } from './outcome';
import { passphraseStrength, STRENGTH_WORDS } from './strength';

/** The shortest passphrase of a new vault (the main process checks it: MIN_PASSPHRASE_LENGTH). */
const MIN_NEW_PASSPHRASE = 8;

type Screen =
  | { readonly name: 'choose' }
  | { readonly name: 'unlock'; readonly path: string }
  | { readonly name: 'create'; readonly path: string }
  | { readonly name: 'unlocked'; readonly info: UnlockedInfo };

/** A message for the user, and the console of the server holding the vault when one does. */
interface Message {
  readonly text: string;
  readonly holderUrl: string | null;
}

/**
 * The desktop app's start screen: open a recent vault, open a vault file, or create one; unlock it
 * by passphrase or key file. It talks to the main process only through the bridge (`svcDesktop`,
 * typed by the one channel map) and never to the network.
 */
export function StartScreen({ bridge }: { readonly bridge: DesktopBridge }) {
  const [screen, setScreen] = useState<Screen>({ name: 'choose' });
  const [message, setMessage] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  const [rememberAvailable, setRememberAvailable] = useState(false);

  /** Runs a bridge call; a refusal becomes the message instead of an exception. */
  const guarded = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      setMessage({ text: bridgeErrorText(error), holderUrl: null });
    } finally {
      setBusy(false);
    }
  }, []);

  useEffect(() => {
    void guarded(async () => setRememberAvailable(await bridge.rememberAvailable()));
  }, [bridge, guarded]);

  const afterOutcome = async (outcome: UnlockOutcome) => {
    if (!outcome.ok) {
      setMessage({ text: refusalText(outcome), holderUrl: outcome.holder?.url ?? null });
      return;
    }
    setMessage(null);
    setScreen({ name: 'unlocked', info: outcome.info });
    // With no key to note down, go straight on to the console.
    if (outcome.info.apiKey === null) await bridge.openConsole();
  };

  const go = (next: Screen) => {
    setMessage(null);
    setScreen(next);
  };

  return (
    <main className="sign-in start-screen">
      <h1>svc vault</h1>
      {message !== null && (
        <div className="problem" role="alert">
          <p>{message.text}</p>
          {message.holderUrl !== null && (
            <button
              type="button"
              onClick={() => window.open(`${message.holderUrl!.replace(/\/$/, '')}/console/`)}
            >
              Open that server&apos;s console in the browser
            </button>
          )}
        </div>
      )}
      {screen.name === 'choose' && (
        <Choose
          bridge={bridge}
          busy={busy}
          guarded={guarded}
          onUnlock={(path) => go({ name: 'unlock', path })}
          onCreate={(path) => go({ name: 'create', path })}
          afterOutcome={afterOutcome}
        />
      )}
      {screen.name === 'unlock' && (
        <Unlock
          bridge={bridge}
          path={screen.path}
          busy={busy}
          rememberAvailable={rememberAvailable}
          guarded={guarded}
          afterOutcome={afterOutcome}
          onBack={() => go({ name: 'choose' })}
        />
      )}
      {screen.name === 'create' && (
        <Create
          bridge={bridge}
          path={screen.path}
          busy={busy}
          rememberAvailable={rememberAvailable}
          guarded={guarded}
          afterOutcome={afterOutcome}
          onBack={() => go({ name: 'choose' })}
        />
      )}
      {screen.name === 'unlocked' && <Unlocked bridge={bridge} info={screen.info} guarded={guarded} />}
      {screen.name !== 'unlocked' && <RememberNote available={rememberAvailable} />}
    </main>
  );
}

type Guarded = (work: () => Promise<void>) => Promise<void>;

function Choose({
  bridge,
  busy,
  guarded,
  onUnlock,
  onCreate,
  afterOutcome,
}: {
  readonly bridge: DesktopBridge;
  readonly busy: boolean;
  readonly guarded: Guarded;
  readonly onUnlock: (path: string) => void;
  readonly onCreate: (path: string) => void;
  readonly afterOutcome: (outcome: UnlockOutcome) => Promise<void>;
}) {
  const [recent, setRecent] = useState<readonly RecentVault[] | null>(null);
  useEffect(() => {
    void guarded(async () => setRecent(await bridge.listRecentVaults()));
  }, [bridge, guarded]);

  const openRecent = (entry: RecentVault) =>
    guarded(async () => {
      if (entry.remembered) {
        const outcome = await bridge.unlockRemembered({ path: entry.path });
        if (outcome.ok || outcome.code !== 'VAULT_KEY_REQUIRED') return afterOutcome(outcome);
      }
      onUnlock(entry.path);
    });

  return (
    <section className="card" aria-labelledby="choose-title">
      <h2 id="choose-title">Open a vault</h2>
      {recent === null ? (
        <Loading what="recent vaults" />
      ) : recent.length === 0 ? (
        <p className="state empty">No recent vaults.</p>
      ) : (
        <ul className="recent-vaults" aria-label="Recent vaults">
          {recent.map((entry) => (
            <li key={entry.path}>
              <button type="button" className="link" disabled={busy} onClick={() => void openRecent(entry)}>
                <code>{entry.path}</code>
              </button>
              {entry.remembered && <span className="badge">key remembered</span>}
            </li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void guarded(async () => {
              const path = await bridge.chooseVaultFile();
              if (path !== null) onUnlock(path);
            })
          }
        >
          Open a vault file…
        </button>
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() =>
            void guarded(async () => {
              const path = await bridge.chooseNewVaultLocation();
              if (path !== null) onCreate(path);
            })
          }
        >
          Create a new vault…
        </button>
      </div>
    </section>
  );
}

function RememberBox({
  available,
  checked,
  onChange,
}: {
  readonly available: boolean;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
}) {
  return (
    <label className="inline">
      <input
        type="checkbox"
        checked={checked}
        disabled={!available}
        onChange={(e) => onChange(e.target.checked)}
      />{' '}
      Remember the key on this computer
    </label>
  );
}

function RememberNote({ available }: { readonly available: boolean }) {
  return available ? (
    <p className="hint">
      Remembering keeps the key in this computer&apos;s keychain (Keychain, Credential Manager or the Secret
      Service), readable only by your user account; anyone who can use your session can then open the vault
      without the key. It is off unless you tick it.
    </p>
  ) : (
    <p className="hint">This computer offers no keychain, so keys cannot be remembered.</p>
  );
}

function Unlock({
  bridge,
  path,
  busy,
  rememberAvailable,
  guarded,
  afterOutcome,
  onBack,
}: {
  readonly bridge: DesktopBridge;
  readonly path: string;
  readonly busy: boolean;
  readonly rememberAvailable: boolean;
  readonly guarded: Guarded;
  readonly afterOutcome: (outcome: UnlockOutcome) => Promise<void>;
  readonly onBack: () => void;
}) {
  const [kind, setKind] = useState<'passphrase' | 'key-file'>('passphrase');
  const [passphrase, setPassphrase] = useState('');
  const [keyFile, setKeyFile] = useState<string | null>(null);
  const [remember, setRemember] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void guarded(async () => {
      const secret =
        kind === 'passphrase' ? ({ kind, passphrase } as const) : ({ kind, keyFile: keyFile ?? '' } as const);
      const outcome = await bridge.unlockVault({ path, secret, remember });
      setPassphrase('');
      await afterOutcome(outcome);
    });
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="unlock-title">
      <h2 id="unlock-title">Unlock the vault</h2>
      <p>
        <code>{path}</code>
      </p>
      <fieldset>
        <legend>Key</legend>
        <label className="inline">
          <input type="radio" checked={kind === 'passphrase'} onChange={() => setKind('passphrase')} /> With
          the passphrase
        </label>
        <label className="inline">
          <input type="radio" checked={kind === 'key-file'} onChange={() => setKind('key-file')} /> With the
          key file
        </label>
      </fieldset>
      {kind === 'passphrase' ? (
        <Field label="Passphrase" name="passphrase" error={null}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="off"
              autoFocus
              value={passphrase}
              onChange={(e) => setPassphrase(e.target.value)}
            />
          )}
        </Field>
      ) : (
        <div className="field">
          <button
            type="button"
            disabled={busy}
            onClick={() => void guarded(async () => setKeyFile(await bridge.chooseKeyFile()))}
          >
            Choose the key file…
          </button>{' '}
          {keyFile !== null && <code>{keyFile}</code>}
        </div>
      )}
      <RememberBox available={rememberAvailable} checked={remember} onChange={setRemember} />
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Unlock
        </button>
      </div>
    </form>
  );
}

function Create({
  bridge,
  path,
  busy,
  rememberAvailable,
  guarded,
  afterOutcome,
  onBack,
}: {
  readonly bridge: DesktopBridge;
  readonly path: string;
  readonly busy: boolean;
  readonly rememberAvailable: boolean;
  readonly guarded: Guarded;
  readonly afterOutcome: (outcome: UnlockOutcome) => Promise<void>;
  readonly onBack: () => void;
}) {
  const [kind, setKind] = useState<'passphrase' | 'new-key-file'>('passphrase');
  const [passphrase, setPassphrase] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [keyFile, setKeyFile] = useState<string | null>(null);
  const [remember, setRemember] = useState(false);
  const score = passphraseStrength(passphrase);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void guarded(async () => {
      const secret =
        kind === 'passphrase'
          ? ({ kind, passphrase, confirmation } as const)
          : ({ kind, keyFile: keyFile ?? '' } as const);
      const outcome = await bridge.createVault({ path, secret, remember });
      setPassphrase('');
      setConfirmation('');
      await afterOutcome(outcome);
    });
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create a new vault</h2>
      <p>
        <code>{path}</code>
      </p>
      <fieldset>
        <legend>Protect it with</legend>
        <label className="inline">
          <input type="radio" checked={kind === 'passphrase'} onChange={() => setKind('passphrase')} /> A
          passphrase
        </label>
        <label className="inline">
          <input type="radio" checked={kind === 'new-key-file'} onChange={() => setKind('new-key-file')} /> A
          generated key file
        </label>
      </fieldset>
      {kind === 'passphrase' ? (
        <>
          <Field
            label="Passphrase"
            name="passphrase"
            error={null}
            hint={`At least ${MIN_NEW_PASSPHRASE} characters. Strength: ${STRENGTH_WORDS[score]}.`}
          >
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                value={passphrase}
                onChange={(e) => setPassphrase(e.target.value)}
              />
            )}
          </Field>
          <meter
            className="strength"
            aria-label="Passphrase strength"
            min={0}
            max={4}
            low={2}
            high={3}
            optimum={4}
            value={score}
          />
          <Field label="Passphrase again" name="confirmation" error={null}>
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                value={confirmation}
                onChange={(e) => setConfirmation(e.target.value)}
              />
            )}
          </Field>
        </>
      ) : (
        <div className="field">
          <button
            type="button"
            disabled={busy}
            onClick={() => void guarded(async () => setKeyFile(await bridge.chooseNewKeyFileLocation()))}
          >
            Save the key file as…
          </button>{' '}
          {keyFile !== null && <code>{keyFile}</code>}
          <p className="hint">
            Keep the key file somewhere safe and apart from the vault: without it the vault cannot be opened.
          </p>
        </div>
      )}
      <RememberBox available={rememberAvailable} checked={remember} onChange={setRemember} />
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Create and open
        </button>
      </div>
    </form>
  );
}

function Unlocked({
  bridge,
  info,
  guarded,
}: {
  readonly bridge: DesktopBridge;
  readonly info: UnlockedInfo;
  readonly guarded: Guarded;
}) {
  return (
    <section className="card" aria-labelledby="unlocked-title">
      <h2 id="unlocked-title">Vault open</h2>
      <p>
        Server: <code>{info.url}</code> — local applications use this address for the API and the proxy.
      </p>
      {info.apiKey !== null && (
        <div className="warning" role="note">
          <p>Management API key (shown only this once; store it now):</p>
          <input
            className="key"
            readOnly
            aria-label="Management API key"
            value={info.apiKey}
            data-testid="api-key"
          />
        </div>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          className="primary"
          onClick={() => void guarded(() => bridge.openConsole().then(() => undefined))}
        >
          Open the console
        </button>
      </div>
    </section>
  );
}
