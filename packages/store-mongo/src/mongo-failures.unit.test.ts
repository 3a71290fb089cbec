import { StoreUnavailableError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { translateMongoFailure } from './mongo-failures.js'

// The shapes the MongoDB driver throws (its class names); a real server stopped under the stores is
// driven in mongo-failures.int.test.ts and packages/local-cluster/src/faults-servers.e2e.test.ts.
const named = (name: string, message = 'failed') => Object.assign(new Error(message), { name })

describe('translateMongoFailure', () => {
  it.each([
    'MongoServerSelectionError',
    'MongoNetworkError',
    'MongoNetworkTimeoutError',
    'MongoNotConnectedError',
    'MongoTopologyClosedError',
  ])('a %s is an outage: StoreUnavailableError, keeping the cause', (name) => {
    const error = named(name, 'connection refused')
    expect(translateMongoFailure(error)).toBeInstanceOf(StoreUnavailableError)
    expect(translateMongoFailure(error)).toMatchObject({
      cause: error,
      message: 'MongoDB: connection refused',
    })
  })

  it('a query the server refused, or any other error, stays itself (a 500 to fix)', () => {
    for (const error of [
      named('MongoServerError', 'E11000 duplicate key'),
      new TypeError('cannot read properties of undefined'),
      'not an error',
    ]) {
      expect(translateMongoFailure(error)).toBe(error)
    }
  })
})
