import Type from 'typebox'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { describeProblems, Nullable, StringEnum, TimestampSchema, UnitsSchema } from './schema-kit.js'

describe('StringEnum', () => {
  it('is a string schema with an enum list', () => {
    const schema = StringEnum(['a', 'b'], { description: 'letters' })
    expect(JSON.parse(JSON.stringify(schema))).toEqual({
      description: 'letters',
      type: 'string',
      enum: ['a', 'b'],
    })
    const validator = Compile(schema)
    expect(validator.Check('a')).toBe(true)
    expect(validator.Check('c')).toBe(false)
  })
})

describe('Nullable', () => {
  it('accepts the schema or null', () => {
    const validator = Compile(Nullable(Type.String()))
    expect(validator.Check('x')).toBe(true)
    expect(validator.Check(null)).toBe(true)
    expect(validator.Check(1)).toBe(false)
  })
})

describe('UnitsSchema and TimestampSchema', () => {
  it('accept integer digits and ISO timestamps only', () => {
    const units = Compile(UnitsSchema)
    expect(['0', '12500000', '123456789012345678901234567890'].every((text) => units.Check(text))).toBe(true)
    expect(['', '-1', '01', '1.5', '1e6'].some((text) => units.Check(text))).toBe(false)
    const timestamp = Compile(TimestampSchema)
    expect(timestamp.Check('2026-11-21T14:03:07.123Z')).toBe(true)
    expect(timestamp.Check('yesterday')).toBe(false)
  })
})

describe('describeProblems', () => {
  const validator = Compile(
    Type.Object({ a: Type.String(), b: Type.Integer() }, { additionalProperties: false }),
  )

  it('names each path and unknown properties', () => {
    expect(describeProblems(validator, { a: 1, b: 'x', c: true })).toBe(
      '(root): must not have additional properties (c); /a: must be string; /b: must be integer',
    )
  })

  it('shows five problems and counts the rest', () => {
    const many = Compile(
      Type.Object(Object.fromEntries('abcdefg'.split('').map((key) => [key, Type.String()]))),
    )
    const allNumbers = Object.fromEntries('abcdefg'.split('').map((key) => [key, 1]))
    expect(describeProblems(many, allNumbers)).toBe(
      '/a: must be string; /b: must be string; /c: must be string; /d: must be string; /e: must be string; and 2 more',
    )
  })
})
