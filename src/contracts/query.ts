import { z } from 'zod';

/**
 * A whole number read from a query string. Text that is no number is coerced to NaN before any check runs,
 * so every failure carries one message that names the range instead of "received NaN".
 */
export const queryInt = (min: number, max = Number.MAX_SAFE_INTEGER) => {
  const error = max === Number.MAX_SAFE_INTEGER ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
