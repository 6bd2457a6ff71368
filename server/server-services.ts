import type { AddressInfo } from 'node:net';
import { DEFAULT_ACCEPT_BASE_URL, createServices } from '../core/services.ts';
import type { ServiceOptions, Services } from '../core/services-contract.ts';
import type { TenancyOptions } from '../core/tenancy/contract.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { acceptBaseUrlAt } from '../core/tenancy/accept-link.ts';

/**
 * Tenancy options (invitation mail, accept links) as the server takes them: like core's
 * TenancyOptions, but the base of accept links may be left out. It then defaults to the server's own
 * URL + `/invitations/accept`, which is known only once the server listens (port 0 picks the port then).
 */
export type ServerTenancyOptions = Omit<TenancyOptions, 'acceptBaseUrl'> & {
  readonly acceptBaseUrl?: string;
};

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
   * own URL, links made from now on use `url` + `/invitations/accept`; otherwise a no-op.
   */
  listening(url: string): void;
}

/**
 * The default services of a server. When `tenancy` leaves the accept-link base out, core gets it as
 * a function: core's default base (`DEFAULT_ACCEPT_BASE_URL`) until `listening(url)` gives the real
 * URL. An explicit `serviceOptions.tenancy` wins over `tenancy` and is used as given.
 */
export function createServerServices(
  vault: VaultHandle,
  serviceOptions: ServiceOptions | undefined,
  tenancy: ServerTenancyOptions | undefined,
): ServerServices {
  if (tenancy === undefined || serviceOptions?.tenancy !== undefined) {
    return { services: createServices(vault, serviceOptions), listening: () => undefined };
  }
  const { acceptBaseUrl, ...rest } = tenancy;
  if (acceptBaseUrl !== undefined) {
    const services = createServices(vault, { ...serviceOptions, tenancy: { ...rest, acceptBaseUrl } });
    return { services, listening: () => undefined };
  }
  let base = DEFAULT_ACCEPT_BASE_URL;
  const services = createServices(vault, {
    ...serviceOptions,
    tenancy: { ...rest, acceptBaseUrl: () => base },
  });
  return {
    services,
    listening(url) {
      base = acceptBaseUrlAt(url);
    },
  };
}
