import { fieldErrorsOf, type ApplicationRule, type Permission } from '../api/client';
import { FieldMessages } from './field';

export type Transform = 'mask' | 'redact' | 'reveal';
export type Condition = NonNullable<ApplicationRule['conditions']>[number];

/**
 * One access rule as edited: token permissions on a container, with what reads show. A rule of an
 * expiring application covers the tokens its conditions match instead of a container; those are
 * kept as they are (shown, not edited).
 */
export interface RuleDraft {
  description: string;
  priority: number;
  container: string;
  transform: Transform;
  permissions: string[];
  conditions?: readonly Condition[];
}

/** An application's rule as the editor holds it. */
export function ruleDraftOf(rule: ApplicationRule): RuleDraft {
  return {
    description: rule.description,
    priority: rule.priority,
    container: rule.container ?? '',
    transform: rule.transform,
    permissions: [...rule.permissions],
    ...(rule.conditions === undefined ? {} : { conditions: rule.conditions }),
  };
}

/** A rule's body for the API: a conditioned rule sends its conditions and no container. */
export function ruleInput(rule: RuleDraft) {
  const { conditions, container, ...rest } = rule;
  return conditions === undefined || conditions.length === 0
    ? { ...rest, container }
    : { ...rest, conditions: [...conditions] };
}

/** "id equals …, container starts_with …": what a conditioned rule covers. */
export function conditionsText(conditions: readonly Condition[]): string {
  return conditions.map((c) => `${c.attribute} ${c.operator.replace('_', ' ')} ${c.value}`).join(' and ');
}

const TRANSFORM_LABELS: Record<Transform, string> = {
  mask: 'mask (the token type’s mask)',
  redact: 'redact (no data)',
  reveal: 'reveal (plaintext)',
};

export function newRule(existing: readonly RuleDraft[]): RuleDraft {
  const priority = existing.reduce((max, r) => Math.max(max, r.priority), 0) + 1;
  return { description: '', priority, container: '/', transform: 'mask', permissions: ['token:read'] };
}

/**
 * The access rules of a private or public application. The server judges them (containers,
 * unique priorities, permissions for the type); its messages appear at the rule and field they name.
 */
export function RuleEditor({
  rules,
  onChange,
  tokenPermissions,
  error,
}: {
  readonly rules: readonly RuleDraft[];
  readonly onChange: (rules: RuleDraft[]) => void;
  /** The token permissions the application's type may hold. */
  readonly tokenPermissions: readonly Permission[];
  readonly error: unknown;
}) {
  const update = (index: number, patch: Partial<RuleDraft>) =>
    onChange(rules.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  const toggle = (index: number, permission: string) => {
    const current = rules[index]?.permissions ?? [];
    update(index, {
      permissions: current.includes(permission)
        ? current.filter((p) => p !== permission)
        : [...current, permission],
    });
  };
  return (
    <fieldset className="rule-editor">
      <legend>Access rules</legend>
      <p className="hint">
        Rules grant token permissions per container and decide what reads show. The highest priority rule that
        matches a token wins.
      </p>
      {fieldErrorsOf(error, 'rules').map((m) => (
        <p key={m} className="field-errors">
          {m}
        </p>
      ))}
      {rules.map((rule, i) => {
        const at = `rules[${i}]`;
        const messages = (field: string) => fieldErrorsOf(error, `${at}.${field}`);
        const permissionMessages = [
          ...messages('permissions'),
          ...rule.permissions.flatMap((_, j) => fieldErrorsOf(error, `${at}.permissions[${j}]`)),
        ];
        return (
          <div className="rule" key={i} role="group" aria-label={`Rule ${i + 1}`}>
            <label>
              <span>Priority</span>
              <input
                type="number"
                min={1}
                value={rule.priority}
                onChange={(e) => update(i, { priority: Number(e.target.value) })}
                aria-invalid={messages('priority').length > 0}
              />
              <FieldMessages messages={messages('priority')} />
            </label>
            {rule.conditions !== undefined && rule.conditions.length > 0 ? (
              <p className="rule-conditions">
                <span>Tokens where</span> {conditionsText(rule.conditions)}
              </p>
            ) : (
              <label>
                <span>Container</span>
                <input
                  value={rule.container}
                  onChange={(e) => update(i, { container: e.target.value })}
                  aria-invalid={messages('container').length > 0}
                />
                <FieldMessages messages={messages('container')} />
              </label>
            )}
            <label>
              <span>Transform</span>
              <select
                value={rule.transform}
                onChange={(e) => update(i, { transform: e.target.value as Transform })}
              >
                {(Object.keys(TRANSFORM_LABELS) as Transform[]).map((t) => (
                  <option key={t} value={t}>
                    {TRANSFORM_LABELS[t]}
                  </option>
                ))}
              </select>
            </label>
            <label className="rule-description">
              <span>Description</span>
              <input value={rule.description} onChange={(e) => update(i, { description: e.target.value })} />
            </label>
            <div className="rule-permissions">
              {tokenPermissions.map((p) => (
                <label key={p.type} className="check">
                  <input
                    type="checkbox"
                    checked={rule.permissions.includes(p.type)}
                    onChange={() => toggle(i, p.type)}
                    aria-label={`Rule ${i + 1}: ${p.type}`}
                  />
                  <code>{p.type}</code>
                </label>
              ))}
              <FieldMessages messages={permissionMessages} />
            </div>
            <button type="button" className="ghost" onClick={() => onChange(rules.filter((_, j) => j !== i))}>
              Remove rule {i + 1}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...rules, newRule(rules)])}>
        Add a rule
      </button>
    </fieldset>
  );
}
