/**
 * Outbound HTTPS: the destination policy every request to a third-party server obeys (see
 * `OutboundClient`). Used by the proxy and by the sandbox's host `fetch`.
 */
export {
  classifyAddress,
  embeddedIpv4,
  parseAllowList,
  refusedAddressClass,
  type AddressClass,
  type AllowList,
} from './address-policy.ts';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  UNREACHABLE_DETAIL,
  createOutboundClient,
  failureReason,
  guardedLookup,
  outboundAgentOptions,
  outboundError,
  type OutboundClient,
  type OutboundFailure,
  type OutboundHeaders,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundStreamResponse,
  type Resolver,
} from './client.ts';
export { DESTINATION_URL_MAX, destinationUrlProblem } from './destination-url.ts';
export {
  DEFAULT_DESTINATION_TIMEOUT_MS,
  DEFAULT_OUTBOUND_SETTINGS,
  MAX_DESTINATION_TIMEOUT_MS,
  loadOutboundSettings,
  type OutboundSettings,
} from './settings.ts';
export { sandboxFetchFrom } from './sandbox-fetch.ts';
