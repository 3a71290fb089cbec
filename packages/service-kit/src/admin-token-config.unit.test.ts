import { generateAdminToken, readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readAdminToken } from './admin-token-config.js'
import { configProblems } from './testing/config-problems.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  const read = readEnv(env)
  readAdminToken(read)
  return configProblems(() => read.done())
}

describe('readAdminToken', () => {
  it('returns a strong token', () => {
    const token = generateAdminToken()
    const read = readEnv({ ADMIN_TOKEN: token })
    expect(readAdminToken(read)).toBe(token)
    expect(() => read.done()).not.toThrow()
  })

  it('requires the token', () => {
    expect(problemsOf({})).toEqual(['ADMIN_TOKEN: required'])
  })

  it('refuses a weak token, saying how to generate one and never repeating it', () => {
    const problems = problemsOf({ ADMIN_TOKEN: 'adm_operator' })
    expect(problems).toEqual([
      'ADMIN_TOKEN: too short: at least 32 characters, got 12; generate one with `openssl rand -hex 32`',
    ])
    expect(problems.join('\n')).not.toContain('adm_operator')
  })
})
