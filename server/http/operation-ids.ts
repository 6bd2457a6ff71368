/**
 * The `operationId` of every operation in /openapi.json, in one table keyed by method and OpenAPI
 * path, so routes added in parallel each add one line here instead of editing their route. Names
 * follow `Resource_Verb`, the convention of the API this one follows, and are the same names where
 * the operation is one of its own (typed clients generated from either document then agree); a
 * collection's list is `_Get`, one item `_GetById`. Once published, a name never changes: it is
 * the method name in generated clients.
 *
 * server/routes/openapi.test.ts fails for an operation of the API without a name here, for a name
 * used twice, and for a name here that no operation has.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /healthz': 'Health_Get',

  'POST /auth/login': 'Auth_Login',
  'POST /auth/logout': 'Auth_Logout',
  'POST /console/sessions': 'ConsoleSessions_Create',
  'POST /console/sessions/login': 'ConsoleSessions_Login',
  'GET /console/session': 'ConsoleSessions_Get',
  'GET /console/token-access': 'ConsoleTokenAccess_Get',
  'PUT /console/token-access': 'ConsoleTokenAccess_Update',
  'DELETE /console/token-access': 'ConsoleTokenAccess_Delete',
  'POST /console/tokens/{id}/reveal': 'ConsoleTokens_Reveal',

  'GET /tenants': 'Tenants_List',
  'POST /tenants': 'Tenants_Create',
  'GET /tenants/self': 'Tenants_Get',
  'PUT /tenants/self': 'Tenants_Update',
  'DELETE /tenants/self': 'Tenants_Delete',
  'GET /tenants/self/reports/usage': 'TenantReports_GetTenantUsageReport',
  'GET /tenants/self/reports/operations': 'TenantReports_GetTenantOperationReport',
  'GET /tenants/self/owner': 'TenantMembers_GetOwner',
  'GET /tenants/self/members': 'TenantMembers_GetMembers',
  'PUT /tenants/self/members/{id}': 'TenantMembers_UpdateMember',
  'DELETE /tenants/self/members/{id}': 'TenantMembers_DeleteMember',
  'POST /tenants/self/invitations': 'TenantInvitations_CreateInvitation',
  'GET /tenants/self/invitations': 'TenantInvitations_GetInvitations',
  'GET /tenants/self/invitations/{id}': 'TenantInvitations_GetInvitationById',
  'DELETE /tenants/self/invitations/{id}': 'TenantInvitations_DeleteInvitation',
  'POST /tenants/self/invitations/{id}/resend': 'TenantInvitations_ResendInvitation',
  'GET /invitations/accept': 'Invitations_GetAcceptPage',
  'POST /invitations/accept': 'Invitations_Accept',

  'GET /operator/tenants': 'Operator_GetTenants',
  'POST /operator/tenants': 'Operator_CreateTenant',
  'GET /operator/users': 'Operator_GetUsers',
  'PUT /operator/users/{id}/password': 'Operator_SetUserPassword',
  'GET /operator/vault/status': 'Operator_GetVaultStatus',
  'GET /vault/headroom': 'Vault_GetHeadroom',
  'POST /operator/vault/compact': 'Operator_CompactVault',
  'POST /operator/vault/backup': 'Operator_BackupVault',
  'GET /operator/logs/verify': 'Operator_VerifyLogs',

  'GET /applications': 'Applications_Get',
  'POST /applications': 'Applications_Create',
  'GET /applications/key': 'Applications_GetByKey',
  'GET /applications/{id}': 'Applications_GetById',
  'PUT /applications/{id}': 'Applications_Update',
  'DELETE /applications/{id}': 'Applications_Delete',
  'POST /applications/{id}/regenerate': 'Applications_RegenerateKey',
  'GET /application-templates': 'ApplicationTemplates_Get',
  'GET /application-templates/{id}': 'ApplicationTemplates_GetById',
  'GET /permissions': 'Permissions_Get',

  'GET /logs': 'Logs_Get',
  'GET /logs/entity-types': 'Logs_GetEntityTypes',
  'GET /logs/verify': 'Logs_Verify',

  'POST /tokenize': 'Tokenize_Tokenize',
  'POST /detokenize': 'Detokenize_Detokenize',
  'GET /tokens': 'Tokens_Get',
  'POST /tokens': 'Tokens_Create',
  'POST /tokens/search': 'Tokens_Search',
  'GET /tokens/{id}': 'Tokens_GetById',
  'PATCH /tokens/{id}': 'Tokens_Update',
  'DELETE /tokens/{id}': 'Tokens_Delete',
  'GET /tokens/{parentId}/children': 'Tokens_GetChildren',
  'POST /tokens/{parentId}/children': 'Tokens_CreateChild',
  'POST /tokens/{parentId}/children/{childId}': 'Tokens_CreateAssociation',
  'DELETE /tokens/{parentId}/children/{childId}': 'Tokens_DeleteAssociation',

  'GET /reactor-formulas': 'ReactorFormulas_Get',
  'POST /reactor-formulas': 'ReactorFormulas_Create',
  'GET /reactor-formulas/{id}': 'ReactorFormulas_GetById',
  'PUT /reactor-formulas/{id}': 'ReactorFormulas_Update',
  'DELETE /reactor-formulas/{id}': 'ReactorFormulas_Delete',
  'GET /reactors': 'Reactors_Get',
  'POST /reactors': 'Reactors_Create',
  'GET /reactors/{id}': 'Reactors_GetById',
  'PUT /reactors/{id}': 'Reactors_Update',
  'DELETE /reactors/{id}': 'Reactors_Delete',
  'POST /reactors/{id}/react': 'Reactors_React',

  'GET /proxies': 'Proxies_Get',
  'POST /proxies': 'Proxies_Create',
  'GET /proxies/{id}': 'Proxies_GetById',
  'PUT /proxies/{id}': 'Proxies_Update',
  'DELETE /proxies/{id}': 'Proxies_Delete',
  'GET /proxy': 'Proxy_Get',
  'POST /proxy': 'Proxy_Post',
  'PUT /proxy': 'Proxy_Put',
  'PATCH /proxy': 'Proxy_Patch',
  'DELETE /proxy': 'Proxy_Delete',
  'GET /proxy/{*}': 'Proxy_GetPath',
  'POST /proxy/{*}': 'Proxy_PostPath',
  'PUT /proxy/{*}': 'Proxy_PutPath',
  'PATCH /proxy/{*}': 'Proxy_PatchPath',
  'DELETE /proxy/{*}': 'Proxy_DeletePath',
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type Operations = Record<string, Record<string, unknown>>;

/**
 * Names each operation of `document` from OPERATION_IDS. Operations of one route with several
 * methods share one object in the generated document, so each named operation gets its own copy.
 * An operation the table does not know keeps no name (routes added by tests, say).
 */
export function nameOperations<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Operations> }).paths ?? {};
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.has(method)) continue;
      const operationId = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
      if (operationId !== undefined) operations[method] = { ...operation, operationId };
    }
  }
  return document;
}
