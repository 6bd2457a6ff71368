import type { AddressInfo } from 'node:net';
import { DEFAULT_ACCEPT_BASE_URL, createServices } from '../core/services.ts';
import type { ServiceOptions, Services } from '../core/services-contract.ts';
import type { AdminOptions, InvitationService } from '../core/tenancy/admin-contract.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { ACCEPT_PATH } from './routes/invitation-accept.ts';

/**
 * Tenant administration options as the server takes them: like core's AdminOptions, but the base
 * of accept links may be left out. It then defaults to the server's own URL + `/invitations/accept`,
 * which is known only once the server listens (port 0 picks the port then).
 */
export type ServerAdminOptions = Omit<AdminOptions, 'acceptBaseUrl'> & { readonly acceptBaseUrl?: string };

/**
 * Where local clients reach a server bound to `address`, e.g. `http://127.0.0.1:54321`. A wildcard
 * bind is reached locally through loopback.
 */
export function urlOf(address: AddressInfo): string {
  if (address.family === 'IPv6') {
    const ip = address.address === '::' ? '::1' : address.address;
    return `http://[${ip}]:${address.port}`;
  }
  const ip = address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  return `http://${ip}:${address.port}`;
}

export interface ServerServices {
  readonly services: Services;
  /**
   * Tells the services the URL the server listens on. When accept links default to the server's
   * own URL, the invitation service is rebuilt with `url` + `/invitations/accept`; otherwise a no-op.
   */
  listening(url: string): void;
}

/**
 * The default services of a server. Core reads (and checks) `acceptBaseUrl` when the services are
 * created, before the server knows its port. So when `admin` leaves it out, the services start with
 * core's default base (`DEFAULT_ACCEPT_BASE_URL`) and `listening(url)` swaps in an invitation
 * service built for the real URL; routes reach it through `services.invitations`, read per request.
 * An explicit `serviceOptions.admin` wins over `admin` and is used as given.
 */
export function createServerServices(
  vault: VaultHandle,
  serviceOptions: ServiceOptions | undefined,
  admin: ServerAdminOptions | undefined,
): ServerServices {
  if (admin === undefined || serviceOptions?.admin !== undefined) {
    return { services: createServices(vault, serviceOptions), listening: () => undefined };
  }
  const { acceptBaseUrl, ...rest } = admin;
  const optionsFor = (base: string): ServiceOptions => ({
    ...serviceOptions,
    admin: { ...rest, acceptBaseUrl: base },
  });
  if (acceptBaseUrl !== undefined) {
    return { services: createServices(vault, optionsFor(acceptBaseUrl)), listening: () => undefined };
  }
  const base = createServices(vault, optionsFor(DEFAULT_ACCEPT_BASE_URL));
  let invitations: InvitationService = base.invitations;
  const services: Services = {
    ...base,
    get invitations() {
      return invitations;
    },
  };
  return {
    services,
    listening(url) {
      invitations = createServices(vault, optionsFor(`${url}${ACCEPT_PATH}`)).invitations;
    },
  };
}
