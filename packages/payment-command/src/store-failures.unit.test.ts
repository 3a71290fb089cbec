import { describe, expect, it } from 'vitest'
import { isStoreUnavailable } from './store-failures.js'

// The shapes the MongoDB driver and the KurrentDB client throw (their class names and the client's
// `type`); the real outages are driven in packages/local-cluster/src/faults-servers.e2e.test.ts.
const named = (name: string, message = 'failed') => Object.assign(new Error(message), { name })
const typed = (type: string) => Object.assign(new Error(`kurrentdb: ${type}`), { type })

describe('isStoreUnavailable', () => {
  it.each([
    'MongoServerSelectionError',
    'MongoNetworkError',
    'MongoNetworkTimeoutError',
    'MongoNotConnectedError',
    'MongoTopologyClosedError',
  ])('a MongoDB %s is an outage (503), also when wrapped', (name) => {
    expect(isStoreUnavailable(named(name))).toBe(true)
    expect(isStoreUnavailable(new Error('allocating an address', { cause: named(name) }))).toBe(true)
  })

  it.each(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader'])(
    'a KurrentDB %s error is an outage (503)',
    (type) => {
      expect(isStoreUnavailable(typed(type))).toBe(true)
    },
  )

  it('a query the server refused, or any other error, is ours to fix (500)', () => {
    expect(isStoreUnavailable(named('MongoServerError', 'E11000 duplicate key'))).toBe(false)
    expect(isStoreUnavailable(typed('wrong-expected-version'))).toBe(false)
    expect(isStoreUnavailable(new TypeError('cannot read properties of undefined'))).toBe(false)
    expect(isStoreUnavailable('not an error')).toBe(false)
  })
})
