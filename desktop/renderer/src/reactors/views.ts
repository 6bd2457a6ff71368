import { ApiError } from '../api/client';
import { compileErrorOf, type CompileError } from '../code/compile-error';
import type { ParameterDraft } from '../components/parameter-editor';

export type FormulaView = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly type: 'official' | 'private';
  readonly status: string;
  readonly code: string;
  readonly configuration: readonly { name: string; description?: string; type: ParameterDraft['type'] }[];
  readonly request_parameters: readonly {
    name: string;
    description?: string;
    type: ParameterDraft['type'];
    optional: boolean;
  }[];
};

export type ReactorView = {
  readonly id: string;
  readonly name: string;
  readonly formula: FormulaView;
  readonly configuration: Record<string, string | number | boolean>;
};

export const NEW_FORMULA_CODE = `// req.args: the invocation's arguments; req.configuration: the reactor's settings.
module.exports = async function (req) {
  return { raw: { greeting: 'Hello, ' + req.args.name } };
};
`;

/** The compile error a failed save names: in the 422's detail ("line n, column m: …"). */
export function compileErrorsOf(error: unknown): CompileError[] {
  if (!(error instanceof ApiError)) return [];
  const at = compileErrorOf(error.problem.detail) ?? compileErrorOf(error.fieldErrors('code')[0]);
  return at === null ? [] : [at];
}
