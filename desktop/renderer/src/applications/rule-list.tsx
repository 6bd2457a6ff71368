import type { ApplicationRule } from '../api/client';
import { Chips } from '../components/chips';
import { conditionsText } from '../components/rule-editor';

/** An application's access rules in priority order: what each covers, shows and allows. */
export function RuleList({ rules, of }: { readonly rules: readonly ApplicationRule[]; readonly of: string }) {
  if (rules.length === 0) return null;
  const sorted = [...rules].sort((a, b) => a.priority - b.priority);
  return (
    <ol className="rule-list" aria-label={`Access rules of ${of}`}>
      {sorted.map((rule) => (
        <li key={rule.priority}>
          <span className="rule-scope">
            {rule.conditions !== undefined && rule.conditions.length > 0 ? (
              conditionsText(rule.conditions)
            ) : (
              <>
                container <code>{rule.container}</code>
              </>
            )}{' '}
            · {rule.transform}
          </span>
          <Chips items={rule.permissions} label={`Permissions of rule ${rule.priority}`} />
        </li>
      ))}
    </ol>
  );
}
