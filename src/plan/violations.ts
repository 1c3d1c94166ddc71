import type { Violation } from '../contracts/results.js';
import { VIOLATION_CODES, type ViolationCode } from '../contracts/violations.js';

export function violation(code: ViolationCode, path: string, message: string, cycle?: string[]): Violation {
  const v: Violation = { code, severity: VIOLATION_CODES[code].severity, path, message };
  if (cycle) v.cycle = cycle;
  return v;
}
