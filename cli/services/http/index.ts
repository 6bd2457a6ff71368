import type { ApiClient } from '../../../client/api-client.ts';
import type { CliServices } from '../contract.ts';
import { httpApplications } from './applications.ts';
import type { HttpAuthority } from './context.ts';
import { httpDetokenizer } from './detokenizer.ts';
import { httpInvitations } from './invitations.ts';
import { httpLogs } from './logs.ts';
import { httpMembers } from './members.ts';
import { httpProxies } from './proxies.ts';
import { httpReactors } from './reactors.ts';
import { httpTenants } from './tenants.ts';
import { httpTokenAssociations } from './token-associations.ts';
import { httpTokens } from './tokens.ts';
import { httpUsage } from './usage.ts';
import { httpUsers } from './users.ts';

export type { HttpAuthority } from './context.ts';
export { httpVaultUpkeep } from './vault-upkeep.ts';

/**
 * The command services over HTTP, one module per service: each call is one request of the typed
 * client (client/), whose generated types give the API's shapes, and a problem answer becomes the
 * catalogue error it names, so commands print the same message and exit with the same code as
 * in-process. Where an answer cannot show core's shape as it is (a member the API leaves out, the
 * order of members), the service restores it.
 */
export function httpCliServices(api: ApiClient, authority: HttpAuthority): CliServices {
  const http = { api, authority };
  return {
    tenants: httpTenants(http),
    users: httpUsers(http),
    applications: httpApplications(http),
    tokens: httpTokens(http),
    tokenAssociations: httpTokenAssociations(http),
    logs: httpLogs(http),
    members: httpMembers(http),
    invitations: httpInvitations(http),
    usage: httpUsage(http),
    reactors: httpReactors(http),
    proxies: httpProxies(http),
    detokenizer: httpDetokenizer(http),
    // A server's writes cannot be counted from here: a follower looks every time.
    changeCounter: () => undefined,
  };
}
