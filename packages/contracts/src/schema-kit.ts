// Small helpers shared by the schema files: enums and nullables as OpenAPI readers expect them,
// compile-time agreement between a schema and a domain type, and readable validation errors.

import Type, { type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox'
import type { Validator } from 'typebox/compile'

/**
 * true when A and B describe the same values. Used as `true satisfies MutuallyAssignable<...>`, so a
 * schema that drifts from its domain type fails to compile.
 */
/** the schema option every object schema here takes: unknown properties are an error */
export const strict = { additionalProperties: false } as const

export type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** `{ type: 'string', enum: [...] }`, the form documentation tools render as a list of values */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: TSchemaOptions = {},
): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, type: 'string', enum: [...values] })
}

export function Nullable<Schema extends TSchema>(schema: Schema) {
  return Type.Union([schema, Type.Null()])
}

/** an integer of an asset's smallest unit, written as decimal digits */
export const INTEGER_UNITS_PATTERN = '^(0|[1-9][0-9]*)$'

export const UnitsSchema = Type.String({ pattern: INTEGER_UNITS_PATTERN })

/** ISO 8601 UTC timestamp, 2026-11-21T14:03:07.123Z */
export const TimestampSchema = Type.String({ format: 'date-time' })

const MAX_REPORTED_PROBLEMS = 5

/** the first few problems of an invalid value, as `/path: message` separated by semicolons */
export function describeProblems(validator: Validator, value: unknown): string {
  const problems = validator
    .Errors(value)
    // a property rejected by additionalProperties: false is reported twice; keep the named report
    .filter((error) => error.keyword !== 'boolean')
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath
      const extra =
        error.keyword === 'additionalProperties' ? ` (${error.params.additionalProperties.join(', ')})` : ''
      return `${where}: ${error.message}${extra}`
    })
  const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).join('; ')
  const more = problems.length - MAX_REPORTED_PROBLEMS
  return more > 0 ? `${shown}; and ${more} more` : shown
}
