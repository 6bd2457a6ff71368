/** Pre-configured and ephemeral proxies: management (ProxyService) and invocation (ProxyInvoker). */
export type {
  Proxy,
  ProxyFilter,
  ProxyInput,
  ProxyService,
  ProxyTransform,
  TransformChecker,
  TransformProblem,
} from './contract.ts';
export {
  DESTINATION_STATUS_HEADER,
  PROXY_KEY_HEADER,
  PROXY_URL_HEADER,
  bodyKindOf,
  bodyOf,
  type BodyKind,
  type ProxyInvocation,
  type ProxyResponse,
} from './proxy-request.ts';
export { createProxyInvoker, type ProxyInvoker } from './invoke.ts';
export { EPHEMERAL_PROXY_ID, PROXY_ENTITY } from './proxy-store.ts';
export {
  createProxyService,
  generateProxyKey,
  sandboxTransformChecker,
  transformsUnsupported,
} from './proxy-service.ts';
export { TRANSFORM_CODE_MAX } from './proxy-input.ts';
