import { ConfigError } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { configProblems } from './config-problems.js'

describe('configProblems', () => {
  it('lists the problems of a ConfigError', () => {
    const problems = configProblems(() => {
      throw new ConfigError(['PORT: required', 'HOST: required'])
    })
    expect(problems).toEqual(['PORT: required', 'HOST: required'])
  })

  it('is empty when the configuration reads', () => {
    expect(configProblems(() => ({ port: 8080 }))).toEqual([])
  })

  it('lets any other error through', () => {
    expect(() =>
      configProblems(() => {
        throw new TypeError('a bug, not a configuration problem')
      }),
    ).toThrow(TypeError)
  })
})
