// Query strings and bodies checked with the validators codegen compiled from the contract's
// schemas (ajv, standalone), before anything reaches the upstream. Every failing field is listed
// with a JSON pointer. Query validators coerce ("7" -> 7, "true" -> true) and fill in place.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FieldError } from '../errors.js';
import { InvalidBodyError, InvalidQueryError } from '../errors.js';

/** What codegen's validators.js exports. */
export interface RestValidators {
  readonly validators: Readonly<Record<string, ValidateFunction>>;
  describeErrors(errors: readonly ErrorObject[] | null | undefined): FieldError[];
}

export type Check = (data: Record<string, unknown>) => void;
export type BodyCheck = (data: unknown) => asserts data is Record<string, unknown>;

function validatorOf(validators: RestValidators, schema: string): ValidateFunction {
  const validate = validators.validators[schema];
  if (validate === undefined) throw new Error(`no validator for schema ${schema}: are the generated validators stale?`);
  return validate;
}

function summary(errors: readonly FieldError[]): string {
  const [first] = errors;
  if (first === undefined) return 'invalid';
  return errors.length === 1 ? first.detail : `${first.detail} (and ${errors.length - 1} more)`;
}

/** A check of query parameters (coercing them in place) against the named schema. */
export function queryCheck(validators: RestValidators, schema: string): Check {
  const validate = validatorOf(validators, schema);
  return (data) => {
    if (validate(data)) return;
    const errors = validators.describeErrors(validate.errors);
    throw new InvalidQueryError(summary(errors), errors);
  };
}

/** A check of a JSON body against the named schema. */
export function bodyCheck(validators: RestValidators, schema: string): BodyCheck {
  const validate = validatorOf(validators, schema);
  return (data) => {
    if (validate(data) && typeof data === 'object' && data !== null && !Array.isArray(data)) return;
    const errors = validators.describeErrors(validate.errors);
    const listed = errors.length > 0 ? errors : [{ pointer: '', detail: 'the body must be a JSON object' }];
    throw new InvalidBodyError(summary(listed), listed);
  };
}
