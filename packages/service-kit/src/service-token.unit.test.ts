import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { isLoopbackHost, readServiceToken, SERVICE_TOKEN_MIN_LENGTH } from './service-token.js'
import { configProblems } from './testing/config-problems.js'

const TOKEN = 'a'.repeat(SERVICE_TOKEN_MIN_LENGTH)
const onHost = (host: string) => ({ hostVariable: 'HOST', host, serves: 'the command API' })

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  )
  it.each([
    '0.0.0.0',
    '::',
    '10.0.0.7',
    '192.168.1.2',
    'payment-command',
    '128.0.0.1',
    '127.0.0.1.nip.io',
    '',
  ])('%s is not', (host) => expect(isLoopbackHost(host)).toBe(false))
})

describe('readServiceToken', () => {
  it('needs no token on loopback, and takes one when given', () => {
    expect(readServiceToken(readEnv({}), 'COMMAND_API_TOKEN', onHost('127.0.0.1'))).toBeUndefined()
    expect(
      readServiceToken(readEnv({ COMMAND_API_TOKEN: TOKEN }), 'COMMAND_API_TOKEN', onHost('127.0.0.1')),
    ).toBe(TOKEN)
    expect(
      readServiceToken(readEnv({ COMMAND_API_TOKEN: TOKEN }), 'COMMAND_API_TOKEN', onHost('0.0.0.0')),
    ).toBe(TOKEN)
  })

  it('requires the token when the listener is not on loopback, saying why', () => {
    const read = readEnv({})
    readServiceToken(read, 'COMMAND_API_TOKEN', onHost('0.0.0.0'))
    expect(configProblems(() => read.done())).toEqual([
      'COMMAND_API_TOKEN: required because HOST (0.0.0.0) is not a loopback address: the command API would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
    ])
  })

  it('refuses a short token or one with spaces, without repeating it', () => {
    for (const token of ['short-token', `${TOKEN.slice(1)} x`]) {
      const read = readEnv({ METRICS_TOKEN: token })
      expect(readServiceToken(read, 'METRICS_TOKEN', onHost('127.0.0.1'))).toBeUndefined()
      const problems = configProblems(() => read.done())
      expect(problems).toEqual([
        expect.stringMatching(/^METRICS_TOKEN: expected at least 32 visible ASCII characters without spaces/),
      ])
      expect(problems[0]).not.toContain(token)
    }
  })
})
