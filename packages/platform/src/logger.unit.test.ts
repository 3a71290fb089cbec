import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createRootLogger, LOG_LEVELS, moduleLogger, REDACTED_PATHS } from './logger.js'

/** a pino destination that keeps every line written to it */
function captureLines(): {
  destination: Writable
  lines: () => Record<string, unknown>[]
  text: () => string
} {
  const chunks: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    },
  })
  const text = () => chunks.join('')
  const lines = () =>
    text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  return { destination, lines, text }
}

const SECRET = 'very-secret-value-4f1c'

describe('createRootLogger', () => {
  it('writes JSON lines with the service name, level label and ISO time', () => {
    const capture = captureLines()
    const logger = createRootLogger({ service: 'gateway', level: 'info', destination: capture.destination })
    logger.info({ paymentId: 'p1' }, 'payment created')
    const [line] = capture.lines()
    expect(line).toMatchObject({ service: 'gateway', level: 'info', paymentId: 'p1', msg: 'payment created' })
    expect(String(line?.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it('drops lines below the configured level', () => {
    const capture = captureLines()
    const logger = createRootLogger({ service: 's', level: 'warn', destination: capture.destination })
    logger.info('quiet')
    logger.warn('loud')
    expect(capture.lines().map((line) => line.msg)).toEqual(['loud'])
  })

  it('takes the level from LOG_LEVEL when none is given', () => {
    const previous = process.env.LOG_LEVEL
    process.env.LOG_LEVEL = 'debug'
    try {
      expect(createRootLogger({ service: 's', destination: captureLines().destination }).level).toBe('debug')
    } finally {
      if (previous === undefined) delete process.env.LOG_LEVEL
      else process.env.LOG_LEVEL = previous
    }
  })

  it.each(LOG_LEVELS)('accepts the LOG_LEVELS entry %s', (level) => {
    const logger = createRootLogger({ service: 's', level, destination: captureLines().destination })
    expect(logger.level).toBe(level)
  })

  it('rejects an unknown level with a message naming LOG_LEVEL', () => {
    expect(() =>
      createRootLogger({ service: 's', level: 'loud', destination: captureLines().destination }),
    ).toThrow(/LOG_LEVEL: expected one of .*got 'loud'/)
  })

  it.each([
    ['top-level secret', { secret: SECRET }],
    ['apiSecret one level down', { merchant: { apiSecret: SECRET } }],
    ['webhookSecret two levels down', { req: { merchant: { webhookSecret: SECRET } } }],
    ['token', { token: SECRET }],
    ['password', { db: { password: SECRET } }],
    ['seed', { wallet: { seed: SECRET } }],
    ['mnemonic', { mnemonic: SECRET }],
    ['authorization header', { req: { headers: { authorization: `Bearer ${SECRET}` } } }],
    ['x-service-signature header', { req: { headers: { 'x-service-signature': SECRET } } }],
    ['x-service-signature one level down', { headers: { 'x-service-signature': SECRET } }],
  ])('redacts a %s', (_case, fields) => {
    const capture = captureLines()
    const logger = createRootLogger({ service: 's', level: 'info', destination: capture.destination })
    logger.info(fields, 'something happened')
    expect(capture.text()).toContain('something happened')
    expect(capture.text()).toContain('[redacted]')
    expect(capture.text()).not.toContain(SECRET)
  })

  it('keeps fields that are not secrets', () => {
    const capture = captureLines()
    const logger = createRootLogger({ service: 's', level: 'info', destination: capture.destination })
    logger.info({ req: { headers: { 'x-service-key': 'pk_live_1' } }, secretive: 'kept' })
    expect(capture.lines()[0]).toMatchObject({
      req: { headers: { 'x-service-key': 'pk_live_1' } },
      secretive: 'kept',
    })
  })

  it('lists the redacted paths it uses', () => {
    expect(REDACTED_PATHS).toContain('*.*.webhookSecret')
    expect(REDACTED_PATHS).toContain('*.*["x-service-signature"]')
  })
})

describe('moduleLogger', () => {
  it('adds the module name and keeps redaction', () => {
    const capture = captureLines()
    const root = createRootLogger({ service: 'notifier', level: 'info', destination: capture.destination })
    moduleLogger(root, 'delivery').info({ merchant: { webhookSecret: SECRET } }, 'sent')
    expect(capture.lines()[0]).toMatchObject({ service: 'notifier', module: 'delivery', msg: 'sent' })
    expect(capture.text()).not.toContain(SECRET)
  })
})
