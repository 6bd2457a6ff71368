import { constants } from 'node:fs';
import { copyFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { Type } from 'typebox';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { VaultStatusSchema } from '../../core/vault/status-schema.ts';
import { Nullable } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';
import { ApplicationWithKeySchema, applicationBody } from './applications.ts';
import { UserSchema } from './members.ts';
import { TenantSchema, tenantBody } from './tenants.ts';

const NAME_MAX = 200;
const EMAIL_MAX = 330;
const PATH_MAX = 4096;
const PASSWORD_MAX = 1024;

const OperatorUserSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
});

const CreateTenantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    owner_email: Type.Optional(Type.String({ minLength: 1, maxLength: EMAIL_MAX })),
    owner_password: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX })),
    with_application: Type.Optional(Type.Boolean({ default: true })),
  },
  { description: 'Unknown fields are ignored.' },
);

const CreatedTenantSchema = Type.Object({
  tenant: TenantSchema,
  owner: Nullable(UserSchema),
  application: Nullable(ApplicationWithKeySchema),
});

const BackupBody = Type.Object({
  file: Type.String({ minLength: 1, maxLength: PATH_MAX, description: 'Absolute path on the server host.' }),
  force: Type.Optional(Type.Boolean({ default: false })),
});

const BackupSchema = Type.Object({
  file: Type.String(),
  bytes: Type.Integer(),
  sequence: Type.Integer(),
});

const ChainReportSchema = Type.Object({
  ok: Type.Boolean(),
  tenants: Type.Integer(),
  entries: Type.Integer(),
  first_break: Nullable(
    Type.Object({
      tenant_id: Type.String(),
      seq: Type.Integer(),
      entry_id: Nullable(Type.String()),
      reason: Type.String(),
    }),
  ),
});

const tags = ['operator'];
const access = 'operator' as const;

/**
 * Vault-wide actions of the operator (the person holding the vault's home folder) through the
 * server that holds the vault: the CLI calls these while `svc start` runs. Guarded by the operator
 * credential (server/operator-credential.ts): loopback only, new at every start.
 */
export function registerOperatorRoutes(app: VaultServer, services: Services): void {
  registerOperatorPeopleRoutes(app, services);
  registerOperatorVaultRoutes(app, services);
}

/** Tenants and users across the vault. */
function registerOperatorPeopleRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/operator/tenants',
    {
      config: { access },
      schema: {
        summary: 'Every tenant of the vault',
        tags,
        response: { 200: Type.Array(TenantSchema) },
      },
    },
    async () => (await services.tenants.listAll()).map(tenantBody),
  );

  app.post(
    '/operator/tenants',
    {
      config: { access },
      schema: {
        summary: 'Create a tenant with its owner',
        description:
          'Creates the tenant, its owner (a new user unless the e-mail has an account) as OWNER member ' +
          'and, unless `with_application` is false, a first management application whose key is shown once.',
        tags,
        body: CreateTenantBody,
        response: { 201: CreatedTenantSchema },
      },
    },
    async (request, reply) => {
      const { name, owner_email, owner_password, with_application } = request.body;
      const created = await services.tenants.create(
        {
          name,
          ...(owner_email === undefined ? {} : { ownerEmail: owner_email }),
          ...(owner_password === undefined ? {} : { ownerPassword: owner_password }),
          ...(with_application === undefined ? {} : { withApplication: with_application }),
        },
        null,
      );
      return reply.code(201).send({
        tenant: tenantBody(created.tenant),
        owner: created.owner === null ? null : { ...created.owner, picture: null },
        application:
          created.application === null
            ? null
            : { ...applicationBody(created.application), key: created.application.key },
      });
    },
  );

  app.get(
    '/operator/users',
    {
      config: { access },
      schema: {
        summary: 'Users by e-mail or id',
        description:
          'The user with this e-mail address or id, as a list of zero or one; neither given: none.',
        tags,
        querystring: Type.Object({
          email: Type.Optional(Type.String({ minLength: 1, maxLength: EMAIL_MAX })),
          id: Type.Optional(Type.String({ format: 'uuid' })),
        }),
        response: { 200: Type.Array(OperatorUserSchema) },
      },
    },
    async (request) => {
      const { email, id } = request.query;
      const user =
        email !== undefined
          ? await services.users.findByEmail(email)
          : id !== undefined
            ? await services.users.get(id)
            : null;
      return user === null ? [] : [user];
    },
  );

  app.put(
    '/operator/users/:id/password',
    {
      config: { access },
      schema: {
        summary: "Set a user's password",
        description:
          "Sets the password of the user with this id (the CLI's `svc user passwd` while a server holds the " +
          'vault). The password rules are those of every password; a password that breaks one is a 400 naming `password`.',
        tags,
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Type.Object({ password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }) }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await services.users.setPassword(request.params.id, request.body.password);
      return reply.code(204).send(null);
    },
  );
}

/** The vault itself: status, compaction, backup, and the audit chains' check. */
function registerOperatorVaultRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/operator/vault/status',
    {
      config: { access },
      schema: {
        summary: 'The vault file, its sizes, journal, key terms and lock holder',
        tags,
        response: { 200: VaultStatusSchema },
      },
    },
    async () => services.vault.status(),
  );

  app.post(
    '/operator/vault/compact',
    {
      config: { access },
      schema: {
        summary: 'Write a fresh snapshot and empty the journal',
        tags,
        response: { 200: VaultStatusSchema },
      },
    },
    async () => {
      await services.vault.compact();
      return services.vault.status();
    },
  );

  app.post(
    '/operator/vault/backup',
    {
      config: { access },
      schema: {
        summary: 'Write a consistent, encrypted copy of the vault to a file on the server host',
        description:
          'Compacts, then copies the snapshot: a snapshot file is never changed once in place, so the ' +
          'copy is the committed state at the compaction, encrypted with the key the vault has now.',
        tags,
        body: BackupBody,
        response: { 200: BackupSchema },
      },
    },
    async (request) => {
      const { file, force = false } = request.body;
      if (services.vault.backend !== 'embedded') {
        throw new VaultError(
          'USAGE',
          "The backup copies the embedded vault file, but this vault is in a PostgreSQL database; back the database up with PostgreSQL's own tools (pg_dump, or continuous archiving).",
        );
      }
      if (!isAbsolute(file)) {
        throw new VaultError('USAGE', 'The backup file must be an absolute path on the server host.');
      }
      if (file === services.vault.path)
        throw new VaultError('USAGE', 'The backup file cannot be the vault itself.');
      await services.vault.compact();
      const { snapshot_sequence: sequence } = await services.vault.status();
      try {
        await copyFile(services.vault.path, file, force ? 0 : constants.COPYFILE_EXCL);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new VaultError('VAULT_EXISTS', `${file} already exists; pass --force to replace it.`);
        }
        throw error;
      }
      return { file, bytes: (await stat(file)).size, sequence };
    },
  );

  app.get(
    '/operator/logs/verify',
    {
      config: { access },
      schema: {
        summary: "Check the audit log's hash chains",
        tags,
        querystring: Type.Object({ tenant_id: Type.Optional(Type.String({ format: 'uuid' })) }),
        response: { 200: ChainReportSchema },
      },
    },
    async (request) => {
      const report = await services.logs.verify(request.query.tenant_id);
      const broken = report.firstBreak;
      return {
        ok: report.ok,
        tenants: report.tenants,
        entries: report.entries,
        first_break:
          broken === null
            ? null
            : {
                tenant_id: broken.tenantId,
                seq: broken.seq,
                entry_id: broken.entryId,
                reason: broken.reason,
              },
      };
    },
  );
}
