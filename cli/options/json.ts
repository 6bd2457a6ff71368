import { Option, type Command } from 'commander';

export function addJsonOption(command: Command): Command {
  return command
    .option('--json', 'print machine-readable JSON')
    .addOption(
      new Option(
        '--jq <expression>',
        "filter the JSON with a jq expression, e.g. '.data[].id' (implies --json)",
      ).implies({ json: true }),
    );
}
