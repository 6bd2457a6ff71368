import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { tokenScopeAction, withTokens, type TokenScopeOptions } from './common.ts';
import { cell } from './format.ts';

/** `svc token associate|dissociate <parent-id> <child-id>`: parent/child links between tokens. */
export interface TokenLinkOptions extends TokenScopeOptions {
  readonly parentId: string;
  readonly childId: string;
}

const PARENT_HELP = "the parent token's id (see 'svc token list')";
const CHILD_HELP = "the child token's id";

function linkCommand(
  deps: CliDeps,
  name: string,
  description: string,
  run: Runner<TokenLinkOptions>,
): Command {
  const command = new Command(name)
    .description(description)
    .argument('<parent-id>', PARENT_HELP)
    .argument('<child-id>', CHILD_HELP);
  return tokenScopeAction(command, deps, (scope, _raw, args) =>
    run({ ...scope, parentId: String(args[0]), childId: String(args[1]) }),
  );
}

export function newTokenAssociateCommand(
  deps: CliDeps,
  run: Runner<TokenLinkOptions> = (o) => runTokenLink(deps, o, 'associate'),
): Command {
  return linkCommand(deps, 'associate', 'Make a token the child of another (see svc token children)', run);
}

export function newTokenDissociateCommand(
  deps: CliDeps,
  run: Runner<TokenLinkOptions> = (o) => runTokenLink(deps, o, 'dissociate'),
): Command {
  return linkCommand(deps, 'dissociate', 'Remove a parent/child link; both tokens stay', run);
}

export async function runTokenLink(
  deps: CliDeps,
  options: TokenLinkOptions,
  action: 'associate' | 'dissociate',
): Promise<void> {
  const tenantId = await withTokens(deps, options, async ({ associations, principal, tenant }) => {
    if (action === 'associate') await associations.associate(principal, options.parentId, options.childId);
    else await associations.dissociate(principal, options.parentId, options.childId);
    return tenant.id;
  });
  const linked = action === 'associate';
  if (options.json) {
    writeJson(deps.stdout, {
      parent_id: options.parentId,
      child_id: options.childId,
      tenant_id: tenantId,
      associated: linked,
    });
  } else {
    const verb = linked ? 'is now a child of' : 'is no longer a child of';
    writeLine(deps.stdout, `Token ${cell(options.childId)} ${verb} ${cell(options.parentId)}`);
  }
}
