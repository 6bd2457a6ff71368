import type { ApplicationType } from '../access/permissions.ts';
import type { AccessRule } from '../access/rules.ts';

/**
 * Starting points for new applications, served by `GET /application-templates`. A template is only
 * a suggestion: creating an application from one goes through the same checks as any other, so
 * every template here must be a valid application (the tests create one from each).
 */
export interface ApplicationTemplate {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly application_type: ApplicationType;
  /** What the template is for: `backend`, `collector` or `reporting`. */
  readonly template_type: string;
  /** Shown first to somebody setting up their first applications. */
  readonly is_starter: boolean;
  readonly permissions: readonly string[];
  readonly rules: readonly AccessRule[];
}

/** Fixed ids, so that clients may refer to a template across vaults and versions. */
export const APPLICATION_TEMPLATES: readonly ApplicationTemplate[] = [
  {
    id: '8c5b6f3e-0f2a-4c63-9a57-1d2e3f4a5b01',
    name: 'Backend tokenizer',
    description:
      'A server that tokenizes incoming data and works with tokens: creates, reads (masked), ' +
      'searches, updates and deletes tokens in every container.',
    application_type: 'private',
    template_type: 'backend',
    is_starter: true,
    permissions: [],
    rules: [
      {
        description: 'Everything, data masked',
        priority: 1,
        container: '/',
        permissions: ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete'],
        transform: 'mask',
      },
    ],
  },
  {
    id: '8c5b6f3e-0f2a-4c63-9a57-1d2e3f4a5b02',
    name: 'Browser collector',
    description:
      'A web page or mobile app that collects sensitive data and turns it into tokens; it can ' +
      'create tokens and nothing else, so its key may be public.',
    application_type: 'public',
    template_type: 'collector',
    is_starter: true,
    permissions: ['token:create'],
    rules: [],
  },
  {
    id: '8c5b6f3e-0f2a-4c63-9a57-1d2e3f4a5b03',
    name: 'Read-only reporter',
    description:
      'A reporting job that reads the tenant, its usage report, its applications and the audit ' +
      'log, and changes nothing.',
    application_type: 'management',
    template_type: 'reporting',
    is_starter: false,
    permissions: ['tenant:read', 'report:read', 'application:read', 'log:read'],
    rules: [],
  },
];

/** The template with this id (ids compare case-insensitively), or undefined. */
export function findApplicationTemplate(id: string): ApplicationTemplate | undefined {
  const wanted = id.toLowerCase();
  return APPLICATION_TEMPLATES.find((template) => template.id === wanted);
}
