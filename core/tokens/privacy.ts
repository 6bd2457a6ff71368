/**
 * The older `privacy` object of a token, `{classification, impact_level, restriction_policy}`:
 * containers replaced it, and the default containers keep its shape, `/<classification>/<impact_level>/`.
 * It is never stored; it is read off the token's container:
 * - `classification`: the container's first segment when it is 1–25 letters, else null;
 * - `impact_level`: the second segment when the first is a classification and the second is
 *   `low`, `moderate` or `high`, else null (deeper segments do not matter: `/pci/high/shop/` is pci/high);
 * - `restriction_policy`: always `mask`: what a read shows is decided by access rules, and a rule's
 *   `mask` shows no data for a token without a mask, which is what the older `redact` policy did.
 *
 * On create, `privacy` is the older way to choose a container: classification and impact level name
 * `/<classification>/<impact_level>/`, a missing one taken from the type's default container. With
 * `containers` as well, every field given must agree with what the container says (else 400), so a
 * client that sends both (as older clients did) cannot end up somewhere it did not ask for.
 * `restriction_policy: redact` is refused: it cannot take effect per token (use an access rule).
 */
import { Type, type Static } from 'typebox';
import type { FieldErrorCollector } from '../validation/fields.ts';
import { Nullable, StringEnum } from '../validation/json-schema.ts';
import { isPlainObject } from '../validation/json-value.ts';

export const IMPACT_LEVELS = ['low', 'moderate', 'high'] as const;
export type ImpactLevel = (typeof IMPACT_LEVELS)[number];
export const RESTRICTION_POLICIES = ['mask', 'redact'] as const;
export type RestrictionPolicy = (typeof RESTRICTION_POLICIES)[number];
/** What every token reports; see the module comment. */
export const TOKEN_RESTRICTION_POLICY: RestrictionPolicy = 'mask';
export const CLASSIFICATION_MAX_LENGTH = 25;

const CLASSIFICATION = new RegExp(`^[A-Za-z]{1,${CLASSIFICATION_MAX_LENGTH}}$`);
const FIELDS = ['classification', 'impact_level', 'restriction_policy'] as const;
type PrivacyField = (typeof FIELDS)[number];

/** `privacy` as a token shows it; the schema of the API and the source of the `Privacy` type. */
export const PrivacySchema = Type.Object(
  {
    classification: Nullable(
      Type.String({ maxLength: CLASSIFICATION_MAX_LENGTH, description: 'First segment of the container.' }),
    ),
    impact_level: Nullable(StringEnum(IMPACT_LEVELS, { description: 'Second segment of the container.' })),
    restriction_policy: StringEnum(RESTRICTION_POLICIES, { description: 'Always mask.' }),
  },
  {
    description:
      'The older classification of the token, read off its container `/<classification>/<impact_level>/` ' +
      '(null where the container has another shape). Not stored: change `containers` to change it.',
  },
);

export type Privacy = Readonly<Static<typeof PrivacySchema>>;

function isImpactLevel(value: unknown): value is ImpactLevel {
  return typeof value === 'string' && (IMPACT_LEVELS as readonly string[]).includes(value);
}

/** The privacy a container stands for (see the module comment). */
export function privacyOf(container: string): Privacy {
  const [first, second] = container.split('/').filter((segment) => segment !== '');
  const classification = first !== undefined && CLASSIFICATION.test(first) ? first : null;
  const impact = classification !== null && isImpactLevel(second) ? second : null;
  return { classification, impact_level: impact, restriction_policy: TOKEN_RESTRICTION_POLICY };
}

type GivenPrivacy = Partial<Record<PrivacyField, string>>;

/** The fields of a `privacy` input that were given (null = not given); problems go to `errors`. */
function checkPrivacyInput(errors: FieldErrorCollector, input: unknown): GivenPrivacy {
  if (!isPlainObject(input)) {
    errors.add('privacy', 'must be an object with classification, impact_level and restriction_policy');
    return {};
  }
  const given: GivenPrivacy = {};
  for (const key of Object.keys(input)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      errors.add('privacy', `unknown field (known: ${FIELDS.join(', ')})`);
    }
  }
  const { classification, impact_level: impact, restriction_policy: policy } = input;
  if (classification !== undefined && classification !== null) {
    if (typeof classification !== 'string' || !CLASSIFICATION.test(classification)) {
      errors.add('privacy.classification', `must be 1 to ${CLASSIFICATION_MAX_LENGTH} letters`);
    } else given.classification = classification;
  }
  if (impact !== undefined && impact !== null) {
    if (!isImpactLevel(impact))
      errors.add('privacy.impact_level', `must be one of: ${IMPACT_LEVELS.join(', ')}`);
    else given.impact_level = impact;
  }
  if (policy !== undefined && policy !== null) {
    if (policy === 'redact') {
      errors.add(
        'privacy.restriction_policy',
        'only mask is supported: to hide data, give the caller an access rule with transform redact',
      );
    } else if (policy === TOKEN_RESTRICTION_POLICY) {
      given.restriction_policy = TOKEN_RESTRICTION_POLICY;
    } else {
      errors.add('privacy.restriction_policy', `must be one of: ${RESTRICTION_POLICIES.join(', ')}`);
    }
  }
  return given;
}

function containersGiven(input: unknown): boolean {
  return Array.isArray(input) && input.length > 0;
}

/**
 * The container of a new token, given its `privacy` and `containers` inputs and the container that
 * `containers` alone chose (`checked`: the request's or the type's default). Problems go to `errors`.
 */
export function containerWithPrivacy(
  errors: FieldErrorCollector,
  privacyInput: unknown,
  containersInput: unknown,
  checked: string,
): string {
  if (privacyInput === undefined || privacyInput === null) return checked;
  const given = checkPrivacyInput(errors, privacyInput);
  const current = privacyOf(checked);
  if (containersGiven(containersInput)) {
    for (const field of FIELDS) {
      const value = given[field];
      if (value !== undefined && value !== current[field]) {
        errors.add(
          `privacy.${field}`,
          `contradicts containers: ${checked} has ${field} ${current[field] ?? 'none'}`,
        );
      }
    }
    return checked;
  }
  if (given.classification === undefined && given.impact_level === undefined) return checked;
  const classification = given.classification ?? current.classification;
  const impact = given.impact_level ?? current.impact_level;
  if (classification === null || impact === null) {
    // Only reachable if a type's default container did not have the classic shape.
    errors.add('privacy', 'give both classification and impact_level, or containers');
    return checked;
  }
  return `/${classification}/${impact}/`;
}
