import { codeProblemOf } from '../sandbox/index.ts';
import type { FormulaWarning } from './contract.ts';

/**
 * The warning of a save whose code check found `detail` (`Invalid Reactor Formula: line <n>,
 * column <m>: <message>`, or why the module is not one function): the same text, and its position.
 */
export function formulaWarningOf(detail: string): FormulaWarning {
  const { line, column } = codeProblemOf(detail);
  return { code: 'INVALID_REACTOR_FORMULA', detail, line, column };
}
