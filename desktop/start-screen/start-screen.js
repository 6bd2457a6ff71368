/* global document, window */
// The start screen: talks to the main process only through window.svcDesktop (the preload's
// allow-list). No inline script (the page's CSP forbids it); no network access.
'use strict';

const api = window.svcDesktop;
const $ = (id) => document.getElementById(id);
const sections = ['choose', 'unlock', 'create', 'unlocked'];
const state = { path: null, unlockKeyFile: null, createKeyFile: null, holderUrl: null };

function show(section) {
  for (const name of sections) $(name).hidden = name !== section;
}

function say(text, holderUrl) {
  $('message').hidden = text === null;
  $('message-text').textContent = text ?? '';
  state.holderUrl = holderUrl ?? null;
  $('connect-holder').hidden = state.holderUrl === null;
}

function kindOf(name) {
  return document.querySelector(`input[name="${name}"]:checked`).value;
}

/** A rough strength estimate: length and character variety, 0 (weak) to 4 (strong). */
function strength(text) {
  let classes = 0;
  for (const re of [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/]) if (re.test(text)) classes += 1;
  const bits = text.length * Math.log2([1, 26, 52, 62, 94][classes]);
  return bits >= 90 ? 4 : bits >= 70 ? 3 : bits >= 50 ? 2 : bits >= 30 ? 1 : 0;
}
const STRENGTH_WORDS = ['very weak', 'weak', 'fair', 'good', 'strong'];

async function afterOutcome(outcome) {
  if (!outcome.ok) {
    const holder = outcome.holder;
    const who = holder
      ? ` It is held by process ${holder.pid} on ${holder.host} since ${holder.startedAt}${holder.url ? `, serving ${holder.url}` : ''}.`
      : '';
    say(`${outcome.message}${holder ? who : ''}`, holder && holder.url ? holder.url : null);
    return;
  }
  say(null);
  $('unlock-passphrase').value = '';
  $('create-passphrase').value = '';
  $('create-confirmation').value = '';
  $('server-url').textContent = outcome.info.url;
  $('api-key-row').hidden = outcome.info.apiKey === null;
  $('api-key').textContent = outcome.info.apiKey ?? '';
  show('unlocked');
  // With no key to note down, go straight on to the console.
  if (outcome.info.apiKey === null) await api.openConsole();
}

async function guarded(fn) {
  try {
    await fn();
  } catch (error) {
    say(
      String(error && error.message ? error.message : error).replace(
        /^Error invoking remote method '[^']+': /,
        '',
      ),
    );
  }
}

async function listRecent() {
  const recent = await api.listRecentVaults();
  const list = $('recent');
  list.replaceChildren();
  $('no-recent').hidden = recent.length > 0;
  for (const entry of recent) {
    const item = document.createElement('li');
    const open = document.createElement('button');
    open.type = 'button';
    open.textContent = entry.path;
    open.addEventListener('click', () =>
      guarded(async () => {
        if (entry.remembered) {
          const outcome = await api.unlockRemembered({ path: entry.path });
          if (outcome.ok || outcome.code !== 'VAULT_KEY_REQUIRED') return afterOutcome(outcome);
        }
        startUnlock(entry.path);
      }),
    );
    item.append(open);
    list.append(item);
  }
}

function startUnlock(path) {
  state.path = path;
  state.unlockKeyFile = null;
  $('unlock-path').textContent = path;
  $('unlock-key-file').textContent = '';
  say(null);
  show('unlock');
  $('unlock-passphrase').focus();
}

function toggleRows() {
  const unlockKind = kindOf('unlock-kind');
  $('unlock-passphrase-row').hidden = unlockKind !== 'passphrase';
  $('unlock-key-file-row').hidden = unlockKind !== 'key-file';
  const createKind = kindOf('create-kind');
  $('create-passphrase-row').hidden = createKind !== 'passphrase';
  $('create-key-file-row').hidden = createKind !== 'new-key-file';
}

async function init() {
  const rememberAvailable = await api.rememberAvailable();
  $('unlock-remember').disabled = !rememberAvailable;
  $('create-remember').disabled = !rememberAvailable;
  $('remember-unavailable').hidden = rememberAvailable;
  for (const input of document.querySelectorAll('input[type="radio"]'))
    input.addEventListener('change', toggleRows);
  for (const back of document.querySelectorAll('button.back'))
    back.addEventListener('click', () => show('choose'));

  $('open-file').addEventListener('click', () =>
    guarded(async () => {
      const path = await api.chooseVaultFile();
      if (path !== null) startUnlock(path);
    }),
  );
  $('create-new').addEventListener('click', () =>
    guarded(async () => {
      const path = await api.chooseNewVaultLocation();
      if (path === null) return;
      state.path = path;
      $('create-path').textContent = path;
      say(null);
      show('create');
    }),
  );
  $('unlock-choose-key').addEventListener('click', () =>
    guarded(async () => {
      state.unlockKeyFile = await api.chooseKeyFile();
      $('unlock-key-file').textContent = state.unlockKeyFile ?? '';
    }),
  );
  $('create-choose-key').addEventListener('click', () =>
    guarded(async () => {
      state.createKeyFile = await api.chooseNewKeyFileLocation();
      $('create-key-file').textContent = state.createKeyFile ?? '';
    }),
  );
  $('create-passphrase').addEventListener('input', () => {
    const score = strength($('create-passphrase').value);
    $('strength').value = score;
    $('strength-label').textContent = STRENGTH_WORDS[score];
  });

  $('unlock-go').addEventListener('click', () =>
    guarded(async () => {
      const secret =
        kindOf('unlock-kind') === 'passphrase'
          ? { kind: 'passphrase', passphrase: $('unlock-passphrase').value }
          : { kind: 'key-file', keyFile: state.unlockKeyFile };
      await afterOutcome(
        await api.unlockVault({ path: state.path, secret, remember: $('unlock-remember').checked }),
      );
    }),
  );
  $('create-go').addEventListener('click', () =>
    guarded(async () => {
      const secret =
        kindOf('create-kind') === 'passphrase'
          ? {
              kind: 'passphrase',
              passphrase: $('create-passphrase').value,
              confirmation: $('create-confirmation').value,
            }
          : { kind: 'new-key-file', keyFile: state.createKeyFile };
      await afterOutcome(
        await api.createVault({ path: state.path, secret, remember: $('create-remember').checked }),
      );
    }),
  );
  $('open-console').addEventListener('click', () => guarded(() => api.openConsole()));
  // Another of our servers holds the vault: its console opens in the system browser.
  $('connect-holder').addEventListener('click', () => {
    if (state.holderUrl !== null) window.open(`${state.holderUrl.replace(/\/$/, '')}/console/`);
  });

  toggleRows();
  await listRecent();
}

void guarded(init);
