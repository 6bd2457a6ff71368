/**
 * The tenant this tab works in, kept across a reload in the tab's sessionStorage. A tenant id is
 * no secret (it names, it does not open); nothing else of the session is ever stored there.
 */
const KEY = 'svc-console.tenant';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function rememberTenant(id: string | null, storage: Storage = window.sessionStorage): void {
  try {
    if (id === null) storage.removeItem(KEY);
    else storage.setItem(KEY, id);
  } catch {
    // Storage refused (a private mode, quota): a reload then starts on the first tenant.
  }
}

export function rememberedTenant(storage: Storage = window.sessionStorage): string | null {
  try {
    const id = storage.getItem(KEY);
    return id !== null && UUID.test(id) ? id : null;
  } catch {
    return null;
  }
}
