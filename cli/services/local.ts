import type { Services } from '../../core/services-contract.ts';
import type { CliServices } from './contract.ts';

/** The command services over the vault opened in this process: the domain services themselves. */
export function localCliServices(services: Services): CliServices {
  return {
    tenants: services.tenants,
    users: services.users,
    applications: services.applications,
    tokens: services.tokens,
    tokenAssociations: services.tokenAssociations,
    logs: services.logs,
    members: services.members,
    invitations: services.invitations,
    usage: services.usage,
    reactors: services.reactors,
    proxies: services.proxies,
    detokenizer: {
      detokenize: (principal, value) =>
        services.detokenizer.detokenize(principal, value, { permission: 'token:read', field: 'body' }),
    },
    changeCounter: () => services.vault.sequence,
  };
}
